/// One line of a `WAYLAND_DEBUG=1` log taken apart: `[MS.US] [ -> ][{queue} ]interface@id.name(args)`.
struct WaylandLogLine {
    /// Whether the client sent it (` -> `) rather than received it.
    var isRequest: Bool
    /// Whether libwayland dropped it, its object gone (`discarded `): the client never heard it.
    var isDiscarded = false
    /// `wl_touch@13`.
    var target: String
    /// `wl_touch`.
    var interface: String
    /// `down`.
    var name: String
    /// The arguments as printed, split at the commas outside strings, blanks trimmed.
    var arguments: [String]

    static let expected = "expected '[MILLISECONDS.MICROSECONDS] interface@id.message(arguments)' as WAYLAND_DEBUG=1 prints it"

    init(_ text: Substring, path: String, line: Int) throws(WaylandLogError) {
        func fail(_ found: String) -> WaylandLogError {
            WaylandLogError(path: path, line: line, message: "\(Self.expected); \(found)")
        }
        var rest = text
        while let last = rest.last, last == " " || last == "\t" || last == "\r" { rest = rest.dropLast() }
        guard rest.first == "[", let close = rest.firstIndex(of: "]") else { throw fail("no '[time]' at the start") }
        let stamp = rest[rest.index(after: rest.startIndex)..<close].drop { $0 == " " }
        let parts = stamp.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            throw fail("'[\(stamp)]' is not a time")
        }
        rest = rest[rest.index(after: close)...].drop { $0 == " " }
        isRequest = rest.hasPrefix("-> ")
        if isRequest { rest = rest.dropFirst(3).drop { $0 == " " } }
        if rest.first == "{", let end = rest.firstIndex(of: "}") { rest = rest[rest.index(after: end)...].drop { $0 == " " } }
        if rest.hasPrefix("discarded ") {
            isDiscarded = true
            rest = rest.dropFirst("discarded ".count)
        }
        guard let open = rest.firstIndex(of: "("), rest.last == ")" else { throw fail("found '\(rest)'") }
        let head = rest[..<open]
        guard let dot = head.lastIndex(of: "."), let at = head.firstIndex(of: "@"), at < dot else {
            throw fail("'\(head)' is not interface@id.message")
        }
        let id = head[head.index(after: at)..<dot]
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }), at > head.startIndex else {
            throw fail("'\(head)' is not interface@id.message")
        }
        interface = String(head[..<at])
        target = String(head[..<dot])
        name = String(head[head.index(after: dot)...])
        let inner = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
        var arguments: [String] = [], current = "", quoted = false
        for c in inner {
            if c == "\"" { quoted.toggle() }
            if c == ",", !quoted {
                arguments.append(current.trimmingBlanks)
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.trimmingBlanks.isEmpty || !arguments.isEmpty { arguments.append(current.trimmingBlanks) }
        self.arguments = arguments
    }
}

/// A seat message's arguments read by their protocol types, each mismatch a clear error.
struct WaylandLogArguments {
    let values: [String]
    let fail: (String) -> WaylandLogError

    init(_ line: WaylandLogLine, _ fail: @escaping (String) -> WaylandLogError) {
        values = line.arguments
        self.fail = fail
    }

    /// The message has `count` arguments (named in `names`).
    func expect(_ names: String, _ count: Int) throws(WaylandLogError) {
        guard values.count == count else {
            throw fail("expected \(count) argument\(count == 1 ? "" : "s") (\(names)), got \(values.count): (\(values.joined(separator: ", ")))")
        }
    }

    func uint(_ i: Int) throws(WaylandLogError) -> UInt32 {
        guard let v = UInt32(values[i]) else { throw fail("argument \(i + 1): expected an unsigned 32-bit integer, got '\(values[i])'") }
        return v
    }

    func int(_ i: Int) throws(WaylandLogError) -> Int32 {
        guard let v = Int32(values[i]) else { throw fail("argument \(i + 1): expected a signed 32-bit integer, got '\(values[i])'") }
        return v
    }

    /// A `wl_fixed` as libwayland prints it (`-12.50000000`): within its 24.8 range.
    func fixed(_ i: Int) throws(WaylandLogError) -> Double {
        let text = values[i]
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard digits.contains("."), digits.allSatisfy({ $0 == "." || ($0.isASCII && $0.isNumber) }), let v = Double(text),
              abs(v) < 8_388_608 else {
            throw fail("argument \(i + 1): expected a fixed-point number such as 12.50000000, got '\(text)'")
        }
        return v
    }

    func axis(_ i: Int) throws(WaylandLogError) -> WaylandSeatEvent.Axis {
        guard let axis = WaylandSeatEvent.Axis(rawValue: try uint(i)) else {
            throw fail("argument \(i + 1): expected an axis, 0 (vertical) or 1 (horizontal), got '\(values[i])'")
        }
        return axis
    }
}

extension String {
    /// Without the blanks around it.
    var trimmingBlanks: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
