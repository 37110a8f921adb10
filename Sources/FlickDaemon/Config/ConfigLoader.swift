import FlickCore
import FoundationEssentials

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
        // A NUL is refused plainly at its line (it once ended the file silently, when the text
        // went to toml++ as a C string); and toml++ aborts on some inputs instead of reporting
        // them, so TOMLScan refuses those first. Both found by fuzzing.
        if let nul = text.unicodeScalars.firstIndex(of: "\0") {
            let line = text.unicodeScalars[..<nul].lazy.filter { $0 == "\n" }.count + 1
            throw ConfigError(path: path, line: line, key: "", message: "TOML syntax: a NUL character; expected text")
        }
        if let abort = TOMLScan.firstAbort(in: text) {
            throw ConfigError(path: path, line: abort.line, key: "", message: "TOML syntax: " + abort.message)
        }
        let table: [TOMLEntry]
        do {
            table = try TOMLValue.parse(text)
        } catch {
            throw ConfigError(path: path, line: error.line, key: "", message: "TOML syntax: \(error.message)")
        }
        let lines = KeyLines(table)
        var configuration = Configuration()
        let sections = Set(ConfigSchema.keys.keys.map { String($0.prefix { $0 != "." }) })
        for top in table.sorted(by: { $0.key < $1.key }) {
            let section = top.key
            guard sections.contains(section), let values = top.value.table else {
                let message = sections.contains(section)
                    ? "expected a table [\(section)]"
                    : "unknown section; expected one of " + sections.sorted().map { "[\($0)]" }.joined(separator: ", ")
                throw ConfigError(path: path, line: lines.nearestLine(of: section), key: spelled(section), message: message)
            }
            for entry in values.sorted(by: { $0.key < $1.key }) {
                let key = entry.key
                let name = "\(section).\(key)"
                guard let reader = ConfigSchema.keys[name] else {
                    let known = ConfigSchema.keys.keys.filter { $0.hasPrefix(section + ".") }.sorted()
                        .map { String($0.dropFirst(section.count + 1)) }.joined(separator: ", ")
                    throw ConfigError(path: path, line: lines.nearestLine(of: name), key: "\(section).\(spelled(key))",
                                      message: "unknown key; [\(section)] takes \(known)")
                }
                do {
                    try reader(entry.value, &configuration)
                } catch let problem as ValueProblem {
                    var error = ConfigError(path: path, line: lines.nearestLine(of: name), key: name, message: "")
                    (error.reason, error.expected, error.found) = (problem.reason, problem.expected, problem.found)
                    throw error
                } catch {
                    throw ConfigError(path: path, line: lines.nearestLine(of: name), key: name, message: "\(error)")
                }
            }
        }
        try checkCombinations(configuration, path: path, lines: lines)
        try checkPowerTimings(configuration.power, path: path, lines: lines)
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
        if let minimum = c.minimumZoomScale?.number, minimum > c.maximumZoomScale {
            throw ConfigError(path: path, line: lines.nearestLine(of: "zoom.minimum_scale"), key: "zoom.minimum_scale",
                              message: "expected at most zoom.maximum_scale (\(c.maximumZoomScale.brief)), got \(minimum.brief)")
        }
        do {
            try c.physics.validate()
        } catch {
            if case let .invalidTunable(name, value, expected) = error {
                var key = name.hasPrefix("indicator_") ? "indicators." + name.dropFirst("indicator_".count) : "scroll.\(name)"
                var (expected, found) = (expected, value)
                // The spring's frequency is a rule of two keys: name the one written later, with
                // its own value, and the other key's value in what was expected.
                if key == "scroll.spring_stiffness", lines.line(of: "scroll.spring_mass") > lines.line(of: key) {
                    key = "scroll.spring_mass"
                    expected = "with spring_stiffness \(c.physics.springStiffness.brief), a frequency √(stiffness/mass) from 0.1 to 10000 per second"
                    found = c.physics.springMass
                }
                throw ConfigError(path: path, line: lines.nearestLine(of: key), key: key, expected: expected, found: found.brief)
            }
            throw ConfigError(path: path, line: 0, key: "scroll", message: error.description)
        }
    }

    /// The panel dims before it goes off: a dim timer at or past the off timer would never dim
    /// (it is off first), which is a mistake worth refusing, not a setting. Reported at the key
    /// written later, as other rules across keys are.
    private static func checkPowerTimings(_ p: PowerConfiguration, path: String, lines: KeyLines) throws(ConfigError) {
        guard p.dimAfterSeconds > 0, p.offAfterSeconds > 0, p.dimAfterSeconds >= p.offAfterSeconds else { return }
        let dimLater = lines.line(of: "power.dim_after_s") > lines.line(of: "power.off_after_s")
        var error = dimLater
            ? ConfigError(path: path, line: lines.nearestLine(of: "power.dim_after_s"), key: "power.dim_after_s",
                          expected: "seconds less than power.off_after_s (\(p.offAfterSeconds.brief)), or 0 (never dims)",
                          found: p.dimAfterSeconds.brief)
            : ConfigError(path: path, line: lines.nearestLine(of: "power.off_after_s"), key: "power.off_after_s",
                          expected: "seconds more than power.dim_after_s (\(p.dimAfterSeconds.brief)), or 0 (never off by idle)",
                          found: p.offAfterSeconds.brief)
        error.reason = "the panel dims before it goes off"
        throw error
    }
}
