/// The folder part of a file path, as `dirname` gives it but empty for a bare name (nothing to
/// create): `a/b` → `a`, `/b` → `/`, `b` → ``.
public func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    let parent = path[..<slash].reversed().drop { $0 == "/" }.reversed()
    return parent.isEmpty ? "/" : String(parent)
}
