/// Reads TOML text as toml++ splits it into statements, without parsing values, for any table
/// header whose name starts with a character no TOML key starts with (`[!]`, `[ *x]`, `[` then
/// the end of the line), an array element that starts with `}` (`a = [}`, `[1, }`), a date or
/// time value (`d = 2024-01-01 5` and other malformed ones abort toml++; flickd takes none), or
/// a value that starts with a non-ASCII whitespace character (`x = [\u{85}`), before toml++
/// sees the text.
///
/// toml++ 3 reaches each of these with an assertion, not an error: the
/// process aborts (or, built with `NDEBUG`, runs into undefined behaviour). A daemon reloading
/// a bad file must refuse it and keep running, so the loader refuses these first, as a syntax
/// error on their line. Found by fuzzing (RELIABILITY.md, "Fuzzing"; Fuzz/Regressions/config).
///
/// A header is a `[` first on a line outside any string, comment or multi-line array, as toml++
/// reads it; only the character after `[` or `[[` (and spaces or tabs) is checked.
enum TOMLScan {
    private enum InString { case none, basic, literal, multiBasic, multiLiteral }

    /// What toml++ would abort on first, at its 1-based line and said as a syntax error; nil
    /// when there is none.
    static func firstAbort(in text: String) -> (line: Int, message: String)? {
        let s = Array(text.unicodeScalars)
        // toml++ skips a byte-order mark at the start.
        var i = s.first == "\u{FEFF}" ? 1 : 0
        var line = 1, lineStart = true, string = InString.none
        // Open arrays and inline tables, innermost last; whether the next value starts an element.
        var open: [Unicode.Scalar] = [], expectElement = false
        // Whether the next token is a value (after `=`).
        var expectValue = false
        func at(_ j: Int) -> Unicode.Scalar? { j < s.count ? s[j] : nil }
        func run(of quote: Unicode.Scalar, from j: Int) -> Int {
            var n = 0
            while at(j + n) == quote { n += 1 }
            return n
        }
        while i < s.count {
            let c = s[i]
            if c == "\n" {
                line += 1
                if string == .basic || string == .literal { string = .none }
                lineStart = string == .none && open.isEmpty
                i += 1
                continue
            }
            switch string {
            case .basic, .multiBasic:
                if c == "\\" {
                    i += at(i + 1) == "\n" ? 1 : 2   // an escaped line break still counts as a line
                } else if c == "\"" {
                    let n = run(of: "\"", from: i)
                    if string == .basic { string = .none; i += 1 } else if n >= 3 { string = .none; i += min(n, 5) } else { i += n }
                } else {
                    i += 1
                }
                continue
            case .literal, .multiLiteral:
                if c == "'" {
                    let n = run(of: "'", from: i)
                    if string == .literal { string = .none; i += 1 } else if n >= 3 { string = .none; i += min(n, 5) } else { i += n }
                } else {
                    i += 1
                }
                continue
            case .none:
                break
            }
            // A CRLF is one line break, as toml++ reads it; the `\r` is not a token (fuzzing
            // found `s=[\r\n}` slipping past the element check).
            if c == " " || c == "\t" || (c == "\r" && at(i + 1) == "\n") {
                i += 1
                continue
            }
            if c == "#" {
                while i < s.count && s[i] != "\n" { i += 1 }
                continue
            }
            if lineStart && c == "[" {
                var j = i + 1
                while at(j) == " " || at(j) == "\t" { j += 1 }
                var checked = true
                if at(j) == "[" {
                    // `[[` opens an array of tables; `[ [` is an error toml++ reports itself.
                    checked = j == i + 1
                    j += 1
                    while at(j) == " " || at(j) == "\t" { j += 1 }
                }
                if checked, let first = at(j), !startsKey(first) {
                    return (line, "expected a table name (letters, digits, '_', '-' or a quoted name) after '['")
                }
                while i < s.count && s[i] != "\n" { i += 1 }   // the rest of the header line
                lineStart = false
                continue
            }
            lineStart = false
            if expectValue || expectElement {
                // toml++ skips only spaces and tabs before a value and asserts that what follows
                // is no whitespace: a non-ASCII one (U+0085, U+2028, …) aborted it (fuzzing).
                if c.value > 0x7F && c.properties.isWhitespace {
                    return (line, "expected a value, found the whitespace character U+\(hex4(c))")
                }
                if let message = dateOrTime(s, at: i) { return (line, message) }
            }
            expectValue = false
            if expectElement {
                // toml++ asserts that an element does not start with `}` (found by fuzzing).
                expectElement = false
                if c == "}" { return (line, "expected a value or ']' in the array, found '}'") }
            }
            switch c {
            case "\"": let n = run(of: "\"", from: i); string = n >= 3 ? .multiBasic : .basic; i += n >= 3 ? 3 : 1
            case "'": let n = run(of: "'", from: i); string = n >= 3 ? .multiLiteral : .literal; i += n >= 3 ? 3 : 1
            case "[", "{": open.append(c); expectElement = c == "["; i += 1
            case "]", "}": _ = open.popLast(); i += 1
            case ",": expectElement = open.last == "["; i += 1
            case "=": expectValue = true; i += 1
            default: i += 1
            }
        }
        return nil
    }

    /// A value that toml++ would parse as a date or a time: one starting with a digit whose
    /// token holds a `:`, or a `-` anywhere but right after an exponent's `e`. No valid number
    /// does either. toml++'s date and time parsers assert on their malformed input instead of
    /// reporting it (fuzzing found `d = 2024-01-01 5`, `2023-01-01t%-:+`, …, each aborting
    /// flickd), and flickd takes no dates or times, so such a value is refused before toml++
    /// sees it, valid or not: the whole date parser is out of reach.
    private static func dateOrTime(_ s: [Unicode.Scalar], at start: Int) -> String? {
        func ends(_ c: Unicode.Scalar) -> Bool { c.properties.isWhitespace || c == "]" || c == "}" || c == "," || c == "#" }
        guard start < s.count, ("0"..."9").contains(s[start]) else { return nil }
        var j = start, dateLike = false
        while j < s.count, !ends(s[j]) {
            if s[j] == ":" || (s[j] == "-" && s[j - 1] != "e" && s[j - 1] != "E") { dateLike = true }
            j += 1
        }
        guard dateLike else { return nil }
        return "flickd takes no dates or times; expected a number, string, boolean, array or table, found '\(String(String.UnicodeScalarView(s[start..<j])))'"
    }

    /// A scalar's code as at least four upper-case hex digits.
    private static func hex4(_ c: Unicode.Scalar) -> String {
        let digits = String(c.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Whether toml++ takes `c` as the start of a key, or handles it with an error of its own.
    private static func startsKey(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'", "]": true
        default: false
        }
    }
}
