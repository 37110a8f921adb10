import FlickDaemon
import Foundation

/// TOML text through `ConfigLoader.parse`: toml++ (`CTOMLParser`), the schema's readers and the
/// checks across keys, as `flickd check-config`, start-up and SIGHUP run them.
///
/// Checks (the contract `flickd` relies on to exit with "file:line: key: what was expected"):
/// a refused file names the key or says it is a TOML syntax error; a named key is located on a
/// line of the file.
enum ConfigTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            _ = try ConfigLoader.parse(text, path: "fuzz.toml")
        } catch {
            let lines = text.unicodeScalars.lazy.filter { $0 == "\n" }.count + 1
            fuzzCheck(error.path == "fuzz.toml" && !error.message.isEmpty, "an error without a file or message: \(error)")
            fuzzCheck(!error.key.isEmpty || error.message.hasPrefix("TOML syntax"), "neither a key nor a syntax error: \(error)")
            fuzzCheck((0...lines + 1).contains(error.line), "line \(error.line) of \(lines): \(error)")
            fuzzCheck(error.key.isEmpty || error.line >= 1, "key without a line: \(error)")
        }
    }

    /// Values tried for every key; a key's seeds are the first it takes and the first it refuses.
    private static let candidates = [
        "true", "100", "0.5", "\"normal\"", "[0, 0, 0, 0]", "[]", "\"auto\"", "\"#1a2b3c\"", "\"/srv/kiosk\"",
        "[\"/srv/kiosk\"]", "\"800x480@60\"", "\"horizontal\"", "\"info\"", "\"zoom-toggle\"", "0o660", "65536", "90",
        "[1.0, 0, 0, 0, 1, 0]", "\"card0\"", "\"headless\"", "\"view\"",
    ]

    /// The shipped config, then every key alone with a value it takes and one it refuses, then
    /// the TOML shapes the line finder must cope with.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var out: [(String, String)] = []
        let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("config/flickd.toml")
        if let text = try? String(contentsOf: shipped, encoding: .utf8) { out.append(("flickd.toml", text)) }
        for name in ConfigLoader.knownKeys {
            let section = name.prefix { $0 != "." }, key = name.dropFirst(section.count + 1)
            func file(_ value: String) -> String { "# \(name)\n[\(section)]\n\(key) = \(value)\n" }
            if let good = candidates.first(where: { (try? ConfigLoader.parse(file($0), path: "seed")) != nil }) {
                out.append(("valid-\(name).toml", file(good)))
            }
            if let bad = candidates.first(where: { (try? ConfigLoader.parse(file($0), path: "seed")) == nil }) {
                out.append(("invalid-\(name).toml", file(bad)))
            }
        }
        out += [
            ("dotted-keys.toml", "scroll.bounces = false\nzoom.maximum_scale = 3.0\n"),
            ("inline-table.toml", "zoom = { minimum_scale = 0.5, maximum_scale = 0.25 }\n"),
            ("quoted-keys.toml", "[\"scroll\"]\n\"paging\" = true\n'directional_lock' = 1\n"),
            ("array-of-tables.toml", "[[scroll]]\nbounces = true\n"),
            ("multiline-string.toml", "[input]\nmatch_name = \"\"\"\n[display]\nbackend = 1\n\"\"\"\ngrab = \"yes\"\n"),
            ("unterminated.toml", "[log]\nlevel = \"info\n"),
            ("duplicate.toml", "[log]\nlevel = \"info\"\nlevel = \"debug\"\n"),
            ("combination.toml", "[scroll]\nminimum_fling_velocity = 9000\nmaximum_fling_velocity = 8000\n"),
            ("special-floats.toml", "[scroll]\nspring_mass = nan\nspring_stiffness = +inf\n"),
            ("crlf.toml", "[kiosk]\r\nidle_reset_seconds = 90000\r\n"),
        ]
        return out.map { ($0.0, Array($0.1.utf8)) }
    }
}
