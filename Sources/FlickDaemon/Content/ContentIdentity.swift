import Glibc

/// Which content a saved state belongs to, so the view is restored only onto the same content;
/// and whether the content on disk is still what is shown.
enum ContentIdentity {
    /// Path, size and modification time: a changed file is different content. A name that is
    /// no file (a content provider's, the test pattern) is its own identity.
    static func of(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec)"
    }

    /// A cheap look at content on disk: a file's (or a `.dzi` descriptor's) device, inode, size
    /// and times to the nanosecond, and for a folder of pages the same of each visible entry. A
    /// file renamed over it (a new inode), written in place (new times) or a page added or
    /// removed changes it; reading the pixels is not needed to tell.
    struct Signature: Hashable, Sendable {
        /// One file's or folder's numbers.
        struct Entry: Hashable, Sendable {
            var name: String
            var device: UInt64
            var inode: UInt64
            var size: Int64
            var modified: Int64
            var changed: Int64
        }

        var entries: [Entry]
    }

    /// The signature of the content at `path` (following symbolic links), or `nil` when there
    /// is nothing there.
    static func signature(of path: String) -> Signature? {
        guard var root = entry(path, name: "") else { return nil }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return Signature(entries: [root]) }
        // The folder's own times change with every entry added, removed or renamed, a hidden
        // temporary file's too: its visible entries' numbers say what matters.
        root.modified = 0
        root.changed = 0
        var entries = [root]
        guard let dir = opendir(path) else { return Signature(entries: entries) }
        defer { closedir(dir) }
        var names: [String] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        for name in names.sorted() {
            if let e = entry(path + "/" + name, name: name) { entries.append(e) }
        }
        return Signature(entries: entries)
    }

    private static func entry(_ path: String, name: String) -> Signature.Entry? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) &* 1_000_000_000 &+ Int64(t.tv_nsec) }
        return Signature.Entry(name: name, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                               modified: nanoseconds(info.st_mtim), changed: nanoseconds(info.st_ctim))
    }
}
