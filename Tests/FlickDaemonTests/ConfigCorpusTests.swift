@testable import FlickDaemon
import Foundation
import Testing

/// The config fuzz corpus (Fuzz/Corpus/config: the shipped file, every key with a value it takes
/// and one it refuses, odd TOML shapes) and every input the fuzzer found (Fuzz/Regressions/config),
/// through the loader as start-up and reload use it: each file loads, or is refused with its line
/// and either its key or a TOML syntax message. Never a crash. (RELIABILITY.md, "Fuzzing".)
@Suite struct ConfigCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func files(_ folder: String) throws -> [String] {
        let dir = fuzz.appendingPathComponent(folder).path
        return try FileManager.default.contentsOfDirectory(atPath: dir).sorted().map { dir + "/" + $0 }
    }

    func refusal(_ path: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.load(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyFileLoadsOrNamesItsLineAndKey() throws {
        let files = try Self.files("Corpus/config") + Self.files("Regressions/config")
        #expect(files.count >= 100)
        for path in files {
            let name = URL(fileURLWithPath: path).lastPathComponent
            guard let error = refusal(path) else {
                #expect(!name.hasPrefix("invalid-"), "\(name) loads")
                continue
            }
            #expect(!name.hasPrefix("valid-") && name != "flickd.toml", "\(name): \(error)")
            #expect(error.path == path && error.line >= 1, "\(name): \(error)")
            #expect(!error.key.isEmpty || error.message.hasPrefix("TOML syntax: "), "\(name): \(error)")
            #expect(error.description.hasPrefix("\(path):\(error.line): "), "\(name): \(error)")
            if name.hasPrefix("invalid-") {
                #expect(error.key == name.dropFirst("invalid-".count).dropLast(".toml".count), "\(name): \(error)")
            }
        }
    }

    /// toml++ aborted the process on these headers; the loader refuses them first.
    @Test func headersTomlPlusPlusAbortsOnAreSyntaxErrors() {
        for (text, line) in [("[!]\n", 1), ("[log]\nlevel = \"info\"\n[ *x]\n", 3), ("[[\t%]]\n", 1), ("[\n", 1), ("[[ [a]]\n", 1),
                             ("\u{FEFF}[\u{8E}]\n", 1), ("a = 1\r\n[\r\n", 2)] {
            let e = configError(text)
            #expect(e?.line == line && e?.key == "" && e?.message.hasPrefix("TOML syntax: expected a table name") == true,
                    "\(text.debugDescription): \(String(describing: e))")
        }
        // Not headers: inside strings, comments and multi-line arrays; and headers toml++ reports itself.
        let fine = "[input]\nmatch_name = \"\"\"\n[!]\n\"\"\"\ngrab = true # [!]\n[content]\nload_directories = [\n\"/a\",\n]\n"
        #expect(configError(fine) == nil)
        #expect(configError("[ [a]]\n")?.message.contains("contiguous") == true)
        #expect(configError("[]\n")?.line == 1)
    }

    /// toml++ asserted on an array element starting with `}`; the loader refuses it first.
    @Test func anArrayElementStartingWithABraceIsASyntaxError() {
        for (text, line) in [("a = [}\n", 1), ("[scroll]\nx = [1, }\n", 2), ("a = [ # c\n}\n", 2), ("a = [[[\n\n  }\n", 3),
                             ("s=[\r\n \r\n}\r\n", 3), ("s=[1,\r\n}", 2)] {
            let e = configError(text)
            #expect(e?.line == line && e?.key == "" && e?.message.hasPrefix("TOML syntax: expected a value or ']'") == true,
                    "\(text.debugDescription): \(String(describing: e))")
        }
        // Braces that toml++ handles: inline tables, and strings holding braces.
        #expect(configError("[content]\nload_directories = [\"}\", '}']\n")?.message.hasPrefix("TOML syntax") != true)
        #expect(configError("a = [{}]\n")?.message.hasPrefix("TOML syntax: expected a value") != true)
    }

    /// toml++ asserts on malformed dates and times (found by fuzzing, twice); flickd takes none,
    /// so every date or time value is a syntax error naming its line.
    @Test func datesAndTimesAreSyntaxErrors() {
        let cases = [("[scroll]\nx = 2024-01-01 5\n", 2), ("a = [1, 0008-09-4l 0 ]\n", 1), ("\u{FEFF}#c\nband=0008-09-4l 0 =00\n", 2),
                     ("z = { d = 2_024-01-01 7,}\n", 1), ("d = 2024-01-01 5#x\n", 1), ("x = 2023-01-01t%-:+++]\n", 1),
                     ("[scroll]\nt = 07:32:00\n", 2), ("d = 1979-05-27T07:32:00Z\n", 1), ("d = 1979-05-27\n", 1), ("d = 1-e5", 1)]
        for (text, line) in cases {
            let e = configError(text)
            #expect(e?.line == line && e?.message.hasPrefix("TOML syntax: flickd takes no dates or times") == true,
                    "\(text.debugDescription): \(String(describing: e))")
        }
        // Numbers with exponents, negative numbers and strings holding dates are not dates.
        for text in ["[scroll]\ndeceleration_rate = 9.98e-1\n", "[zoom]\nminimum_scale = 5E-1\n", "[scroll]\nx = -1\n",
                     "s = \"2024-01-01 5\"\n", "a = [-1, +2, 1e-3]\n"] {
            #expect(configError(text)?.message.hasPrefix("TOML syntax: flickd takes no dates") != true, "\(text.debugDescription)")
        }
    }

    /// toml++ asserts on a value starting with a non-ASCII whitespace character (found by fuzzing).
    @Test func aValueStartingWithUnicodeWhitespaceIsASyntaxError() {
        let cases = [("x=[\u{85}[[[[[", 1, "0085"), ("# c\nx = \u{2028}1\n", 2, "2028"), ("x = [1,\n \u{2029}]\n", 2, "2029"),
                     ("z = { a = \u{A0}1 }\n", 1, "00A0")]
        for (text, line, code) in cases {
            let e = configError(text)
            #expect(e?.line == line && e?.message == "TOML syntax: expected a value, found the whitespace character U+\(code)",
                    "\(text.debugDescription): \(String(describing: e))")
        }
        // Line breaks inside arrays, CRLF included, are TOML's own.
        #expect(configError("[content]\r\nload_directories = [\r\n  \"/srv\",\r\n]\r\n")?.message.hasPrefix("TOML syntax") != true)
    }

    /// A NUL used to end the file silently where TOMLKit handed it to toml++ as a C string.
    @Test func aNulIsASyntaxErrorAtItsLine() {
        let e = configError("[log]\nlevel = \"info\"\0\n[zoom]\nmaximum_scale = -1\n")
        #expect(e?.line == 2 && e?.key == "" && e?.message.hasPrefix("TOML syntax: a NUL character") == true)
    }

    /// Keys the line finder missed: lines are found for TOML's other spellings of a name.
    @Test func keysWrittenOtherwiseStillHaveALine() {
        let cases: [(String, Int, String)] = [
            ("[[scroll]]\nbounces = true\n", 1, "scroll"),
            ("# zoom\nzoom = { minimum_scale = 0.5, maximum_scale = 0.25 }\n", 2, "zoom.minimum_scale"),
            ("[\"scroll\"]\n\"paging\" = 1\n", 2, "scroll.paging"),
            ("scroll . 'bouncy' = false\n", 1, "scroll.bouncy"),
            ("[kiosk]\r\n\r\nidle_reset_seconds = 90000\r\n", 3, "kiosk.idle_reset_seconds"),
            ("zoom.maximum_scale = 0.5\nzoom.minimum_scale = 1\n", 2, "zoom.minimum_scale"),
            ("\u{FEFF}[input]\ngrab = \"yes\"\n", 2, "input.grab"),
        ]
        for (text, line, key) in cases {
            let e = configError(text)
            #expect(e?.line == line && e?.key == key, "\(text.debugDescription): \(String(describing: e))")
        }
    }

    /// Unknown names are reported as TOML spells them, so an empty or dotted quoted name is still a
    /// key in the message (fuzzing found `''='='` refused with an empty key).
    @Test func unknownNamesAreSpelledAsTOMLWritesThem() {
        let cases: [(String, Int, String)] = [
            ("''='='", 1, "\"\""),
            ("[\"a.b\"]\nx = 1\n", 1, "\"a.b\""),
            ("[scroll]\n\"x y\" = 1\n", 2, "scroll.\"x y\""),
            ("[scroll]\n'q\"\\' = 1\n", 2, "scroll.\"q\\\"\\\\\""),
            ("[scroll]\nplain-key_2 = 1\n", 2, "scroll.plain-key_2"),
            ("# a\n'x=' = 'y'\n", 2, "\"x=\""),
            ("[scroll]\n\"a=b\" = 1\n", 2, "scroll.\"a=b\""),
            ("# a\n[\"s\\\\[[\"]\n", 2, "\"s\\\\[[\""),
            ("[scroll]\n\"\\u0041\\tb\" = 1\n", 2, "scroll.\"A\\u0009b\""),
            // A combining mark after a quote is not part of it: TOML reads code points.
            ("# a\n'\u{033F}$' = 1\n", 2, "\"\u{033F}$\""),
            ("[\"\u{0301}s\"]\n", 1, "\"\u{0301}s\""),
            ("[scroll]\n\"x\u{0301}.y\" = 1\n", 2, "scroll.\"x\u{0301}.y\""),
            // An escaped NUL is part of a name (TOMLKit, used before, ended names there).
            ("# a\n[\"s\\u0000t\"]\n", 2, "\"s\\u0000t\""),
            ("[scroll]\n\"k\\U00000000x\" = 1\n", 2, "scroll.\"k\\u0000x\""),
        ]
        for (text, line, key) in cases {
            let e = configError(text)
            #expect(e?.line == line && e?.key == key, "\(text.debugDescription): \(String(describing: e))")
        }
    }
}
