import FlickCore
import Foundation
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
                throw ConfigError(path: path, line: lines.line(of: section), key: section, message: message)
            }
            for key in values.keys.sorted() {
                let name = "\(section).\(key)"
                guard let reader = ConfigSchema.keys[name], let value = values[key] else {
                    let known = ConfigSchema.keys.keys.filter { $0.hasPrefix(section + ".") }.sorted()
                        .map { String($0.dropFirst(section.count + 1)) }.joined(separator: ", ")
                    throw ConfigError(path: path, line: lines.line(of: name), key: name,
                                      message: "unknown key; [\(section)] takes \(known)")
                }
                do {
                    try reader(value, &configuration)
                } catch let problem as ValueProblem {
                    throw ConfigError(path: path, line: lines.line(of: name), key: name, message: problem.message)
                } catch {
                    throw ConfigError(path: path, line: lines.line(of: name), key: name, message: "\(error)")
                }
            }
        }
        try checkCombinations(configuration, path: path, lines: lines)
        return configuration
    }

    /// Rules across keys, reported at the later key's line.
    private static func checkCombinations(_ c: Configuration, path: String, lines: KeyLines) throws(ConfigError) {
        if c.minimumZoomScale > c.maximumZoomScale {
            throw ConfigError(path: path, line: lines.line(of: "zoom.minimum_scale"), key: "zoom.minimum_scale",
                              message: "expected at most zoom.maximum_scale (\(c.maximumZoomScale)), got \(c.minimumZoomScale)")
        }
        do {
            try c.physics.validate()
        } catch {
            if case let .invalidTunable(name, _, _) = error {
                let key = name.hasPrefix("indicator_") ? "indicators." + name.dropFirst("indicator_".count) : "scroll.\(name)"
                throw ConfigError(path: path, line: lines.line(of: key), key: key, message: error.description)
            }
            throw ConfigError(path: path, line: 0, key: "scroll", message: error.description)
        }
    }
}

/// Where each `section.key` (and each `[section]`) is written, since TOMLKit does not say.
/// Plain `key = value` lines under `[section]` headers: the shape of flickd's file.
struct KeyLines {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var section = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                section = String(line.dropFirst().prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                if lines[section] == nil { lines[section] = index + 1 }
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                let name = section.isEmpty ? key : "\(section).\(key)"
                if lines[name] == nil { lines[name] = index + 1 }
            }
        }
    }

    /// The line of a key or section, 0 if not found.
    func line(of name: String) -> Int { lines[name] ?? 0 }
}
