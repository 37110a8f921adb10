/// Where each name is first written (`section`, `section.key`, `a.b.c` for nested tables), as
/// toml++ read it: every key of a parsed document carries its line, whether it is a header, a
/// dotted part, an inline table's key or a quoted name. (Before toml++ was reached directly, a
/// hand-written reader guessed these lines from the text; fuzzing found six ways it missed.)
struct KeyLines {
    private var lines: [String: Int] = [:]

    init(_ table: [TOMLEntry]) { record(table, under: "") }

    private mutating func record(_ table: [TOMLEntry], under prefix: String) {
        for entry in table {
            let name = prefix + entry.key
            if entry.line > 0 && lines[name] == nil { lines[name] = entry.line }
            // toml++ bounds nesting (256 levels), so this recursion is bounded too.
            if let inner = entry.value.table { record(inner, under: name + ".") }
        }
    }

    /// The line of a key or section, 0 if toml++ gave it none.
    func line(of name: String) -> Int { lines[name] ?? 0 }

    /// The line of a key or section, else of the nearest table holding it; 0 if none is written.
    func nearestLine(of name: String) -> Int {
        var name = Substring(name)
        while true {
            if let line = lines[String(name)] { return line }
            guard let dot = name.lastIndex(of: ".") else { return 0 }
            name = name[..<dot]
        }
    }
}
