import FlickCore
import FoundationEssentials
import TOMLKit

/// Reads the TOML config file into a `Configuration`, rejecting anything it does not know:
/// unknown sections and keys, wrong types and out-of-range values are errors naming the file,
/// the line and the key. Keys left out keep their defaults.
public enum ConfigLoader {
    /// The file used when `--config` is not given.
    public static let defaultPath = "/etc/flickd/flickd.toml"

    /// Every key the loader accepts (`section.key`), for docs and tests.
    public static var knownKeys: [String] { ConfigSchema.keys.keys.sorted() }

    /// Loads a file.
    /// - Parameters:
    ///   - path: the file.
    ///   - explicit: whether the user named it; a missing default file means built-in defaults.
    /// - Returns: the configuration, and whether it came from the file (false: defaults).
    /// - Throws: `ConfigError` naming the file, line and key.
    public static func load(path: String, explicit: Bool = true) throws(ConfigError) -> (Configuration, fromFile: Bool) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !explicit && !FileManager.default.fileExists(atPath: path) { return (Configuration(), false) }
            let why = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "no such file"
            throw ConfigError(path: path, line: 0, key: "", message: why)
        }
        return (try parse(String(decoding: data, as: UTF8.self), path: path), true)
    }

    /// Parses config text.
    /// - Throws: `ConfigError` naming `path`, the line and the key.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> Configuration {
        // TOMLKit hands toml++ a C string, which would end silently at a NUL; and toml++ aborts
        // on some table headers instead of reporting them (TOMLScan). Found by fuzzing.
        if let nul = text.unicodeScalars.firstIndex(of: "\0") {
            let line = text.unicodeScalars[..<nul].lazy.filter { $0 == "\n" }.count + 1
            throw ConfigError(path: path, line: line, key: "", message: "TOML syntax: a NUL character; expected text")
        }
        if let abort = TOMLScan.firstAbort(in: text) {
            throw ConfigError(path: path, line: abort.line, key: "", message: "TOML syntax: " + abort.message)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, key: "", message: "TOML syntax: \(error.description)")
        } catch {
            throw ConfigError(path: path, line: 0, key: "", message: "TOML syntax: \(error)")
        }
        let lines = KeyLines(text)
        var configuration = Configuration()
        let sections = Set(ConfigSchema.keys.keys.map { String($0.prefix { $0 != "." }) })
        for section in table.keys.sorted() {
            guard sections.contains(section), let values = table[section]?.table else {
                let message = sections.contains(section)
                    ? "expected a table [\(section)]"
                    : "unknown section; expected one of " + sections.sorted().map { "[\($0)]" }.joined(separator: ", ")
                throw ConfigError(path: path, line: lines.nearestLine(of: section), key: spelled(section), message: message)
            }
            for key in values.keys.sorted() {
                let name = "\(section).\(key)"
                guard let reader = ConfigSchema.keys[name], let value = values[key] else {
                    let known = ConfigSchema.keys.keys.filter { $0.hasPrefix(section + ".") }.sorted()
                        .map { String($0.dropFirst(section.count + 1)) }.joined(separator: ", ")
                    throw ConfigError(path: path, line: lines.nearestLine(of: name), key: "\(section).\(spelled(key))",
                                      message: "unknown key; [\(section)] takes \(known)")
                }
                do {
                    try reader(value, &configuration)
                } catch let problem as ValueProblem {
                    throw ConfigError(path: path, line: lines.nearestLine(of: name), key: name, message: problem.message)
                } catch {
                    throw ConfigError(path: path, line: lines.nearestLine(of: name), key: name, message: "\(error)")
                }
            }
        }
        try checkCombinations(configuration, path: path, lines: lines)
        return configuration
    }

    /// A name part as TOML would write it, so an error names even `''` or `"a.b"` unambiguously:
    /// bare when it is a bare key, else quoted. (Fuzzing found `''='='` reported with no key.)
    static func spelled(_ part: String) -> String {
        let bare = !part.isEmpty && part.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
        if bare { return part }
        var quoted = "\""
        for scalar in part.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                quoted += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16, uppercase: true)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// Rules across keys, reported at the later key's line.
    private static func checkCombinations(_ c: Configuration, path: String, lines: KeyLines) throws(ConfigError) {
        if c.minimumZoomScale > c.maximumZoomScale {
            throw ConfigError(path: path, line: lines.nearestLine(of: "zoom.minimum_scale"), key: "zoom.minimum_scale",
                              message: "expected at most zoom.maximum_scale (\(c.maximumZoomScale)), got \(c.minimumZoomScale)")
        }
        do {
            try c.physics.validate()
        } catch {
            if case let .invalidTunable(name, _, _) = error {
                let key = name.hasPrefix("indicator_") ? "indicators." + name.dropFirst("indicator_".count) : "scroll.\(name)"
                throw ConfigError(path: path, line: lines.nearestLine(of: key), key: key, message: error.description)
            }
            throw ConfigError(path: path, line: 0, key: "scroll", message: error.description)
        }
    }
}

/// Where each `section.key` (and each `[section]`) is written, since TOMLKit does not say.
/// Plain `key = value` lines under `[section]` headers: the shape of flickd's file. Only lines
/// that begin a statement count (`TOMLScan`); names are read as TOML spells them (`[[section]]`,
/// quoted and dotted parts); a name written in no line of its own (a key of an inline table
/// `zoom = { … }`) takes the line of the table holding it.
struct KeyLines {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var section = ""
        // "\r\n" is one Character: split on it too, or a CRLF file is one line.
        let split = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        // Lines inside a multi-line string or array hold no names, whatever they look like.
        let statements = TOMLScan.statementLines(in: text)
        for (index, raw) in split.enumerated() where statements.contains(index + 1) {
            // TOML is defined on code points, not on what Unicode draws as one character: a
            // combining mark after a quote must not hide the quote (fuzzing found `'̿$' = …`
            // given no line). So a line is read scalar by scalar.
            // toml++ skips a byte-order mark before the first line.
            let line = raw.unicodeScalars.drop { $0 == " " || $0 == "\t" || (index == 0 && $0 == "\u{FEFF}") }
            guard let first = line.first, first != "#" else { continue }
            if first == "[" {
                let header = line.drop { $0 == "[" }
                section = Self.name(in: header, endingAt: "]") ?? Self.name(in: header, endingAt: nil) ?? ""
                record(section, at: index + 1)
            } else if let key = Self.name(in: line, endingAt: "=") {
                record(section.isEmpty ? key : "\(section).\(key)", at: index + 1)
            }
        }
    }

    /// Reads the dotted name at the start of `text` up to the first `terminator` outside quotes
    /// (a header's `]`, a key's `=`; `nil`: to the end), the one reader of names here.
    ///
    /// Parts are trimmed and unquoted: `a . "b"` is `a.b`, and `"a.b"` is the one part `a.b`
    /// (dots inside quotes do not split); `["a]b"]` names `a]b`, and `"a=b" = 1` the key `a=b`.
    /// A basic string's escapes are read as TOML reads them (`"s\\["` is `s\[`), so the name
    /// matches TOMLKit's key (found by fuzzing).
    ///
    /// - Returns: the name, or `nil` when no terminator lies outside quotes.
    private static func name(in text: Substring.UnicodeScalarView, endingAt terminator: Unicode.Scalar?) -> String? {
        var parts: [String] = []
        var part = String.UnicodeScalarView()
        var quote: Unicode.Scalar?
        var escaped = false
        var ended = false
        for c in text {
            if let q = quote {
                part.append(c)
                if escaped { escaped = false } else if q == "\"" && c == "\\" { escaped = true } else if c == q { quote = nil }
            } else if c == terminator {
                ended = true
                break
            } else if c == "." {
                parts.append(Self.part(part))
                part = String.UnicodeScalarView()
            } else {
                if c == "\"" || c == "'" { quote = c }
                part.append(c)
            }
        }
        if terminator != nil && !ended { return nil }
        parts.append(Self.part(part))
        return parts.joined(separator: ".")
    }

    /// One part of a name: blanks around it dropped, then one pair of quotes, no more (`"'x"` is
    /// the name `'x`).
    private static func part(_ scalars: String.UnicodeScalarView) -> String {
        var s = Substring(String(scalars)).unicodeScalars
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        if s.count >= 2, let q = s.first, q == "'" || q == "\"", s.last == q {
            let inner = s.dropFirst().dropLast()
            guard q == "\"" else { return String(String.UnicodeScalarView(inner)) }
            // TOMLKit passes names on as C strings: an escaped NUL (`\u0000`) ends the name
            // there (found by fuzzing).
            return String(unescaped(inner).unicodeScalars.prefix { $0 != "\0" })
        }
        return String(String.UnicodeScalarView(s))
    }

    /// A basic string's text with its escapes read as TOML reads them. An escape TOML does not
    /// define stays as written.
    private static func unescaped(_ text: Substring.UnicodeScalarView) -> String {
        var out = String.UnicodeScalarView()
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            i = text.index(after: i)
            guard c == "\\", i < text.endIndex else { out.append(c); continue }
            let e = text[i]
            i = text.index(after: i)
            switch e {
            case "b": out.append("\u{08}")
            case "t": out.append("\t")
            case "n": out.append("\n")
            case "f": out.append("\u{0C}")
            case "r": out.append("\r")
            case "e": out.append("\u{1B}")
            case "\"", "\\": out.append(e)
            case "u", "U":
                let digits = text[i...].prefix(e == "u" ? 4 : 8)
                if digits.count == (e == "u" ? 4 : 8),
                   let v = UInt32(String(String.UnicodeScalarView(digits)), radix: 16), let scalar = Unicode.Scalar(v) {
                    out.append(scalar)
                    i = digits.endIndex
                } else {
                    out.append("\\"); out.append(e)
                }
            default: out.append("\\"); out.append(e)
            }
        }
        return String(out)
    }

    /// Records the first line of a name and of each table above it (`a.b.c` also makes `a.b`, `a`).
    private mutating func record(_ name: String, at line: Int) {
        var name = Substring(name)
        while true {
            if lines[String(name)] == nil { lines[String(name)] = line }
            guard let dot = name.lastIndex(of: ".") else { return }
            name = name[..<dot]
        }
    }

    /// The line of a key or section, 0 if not written on a line of its own.
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
