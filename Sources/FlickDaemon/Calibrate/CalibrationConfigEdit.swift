import FlickCore
import FlickInput
import FlickSystem
import FoundationEssentials
import Glibc

/// `flickd calibrate --write`: sets `calibration = [...]` under `[input]` in the config file
/// and changes nothing else — every other line and comment stays as the user wrote it. The
/// new text is loaded with `ConfigLoader` before it replaces the file (atomically), so a write
/// that would leave a bad config is refused and the file stays as it was.
public enum CalibrationConfigEdit {
    /// The text with the `[input]` section's `calibration` key set to `line`'s: the key's line
    /// (and any continuation lines of a multi-line array) replaced, else the key added after
    /// the section's last key, else an `[input]` section added at the end.
    public static func setting(_ line: String, in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let hadFinalNewline = text.hasSuffix("\n")
        if hadFinalNewline || text.isEmpty { lines.removeLast() }
        guard let header = lines.firstIndex(where: { isHeader($0, "input") }) else {
            let gap = lines.last.map { $0.trimmingBlanks().isEmpty } ?? true ? [] : [""]
            return (lines + gap + ["[input]", line]).joined(separator: "\n") + "\n"
        }
        // A value cannot start on the line after its `=`, and continuation lines of a flat
        // array start with a number or `]`: a line starting with `[` is the next header.
        let end = lines[(header + 1)...].firstIndex { $0.trimmingBlanks().hasPrefix("[") } ?? lines.count
        if let key = lines[(header + 1)..<end].firstIndex(where: { isKey($0, "calibration") }) {
            var last = key
            var depth = bracketDepth(lines[key])
            while depth > 0 && last + 1 < end {
                last += 1
                depth += bracketDepth(lines[last])
            }
            lines.replaceSubrange(key...last, with: [line])
        } else {
            let lastKey = lines[(header + 1)..<end].lastIndex { l in
                let t = l.trimmingBlanks()
                return !t.isEmpty && !t.hasPrefix("#")
            } ?? header
            lines.insert(line, at: lastKey + 1)
        }
        return lines.joined(separator: "\n") + (hadFinalNewline || lines.isEmpty ? "\n" : "")
    }

    /// Writes the fit into the config file at `path`.
    /// - Throws: `ConfigError` when the file cannot be read or the edited text does not load
    ///   with the matrix in it (nothing is written then); `SystemError` when writing fails.
    public static func write(_ fit: CalibrationFit, to path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, line: 0, key: "input.calibration",
                              message: FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "no such file")
        }
        let edited = setting(fit.tomlLine, in: String(decoding: data, as: UTF8.self))
        let loaded = try ConfigLoader.parse(edited, path: path + " (as calibrate would write it)")
        let written = fit.numbers.compactMap(Double.init)
        guard loaded.touchMapping.calibration == written else {
            throw ConfigError(path: path, line: 0, key: "input.calibration",
                              message: "the edited file would not set the matrix (is the key written some other way?); nothing written")
        }
        // The file keeps its permissions and owner (AtomicFile).
        try AtomicFile.write(Data(edited.utf8), to: path)
    }

    /// Whether a line is the header `[name]` (a comment may follow).
    static func isHeader(_ line: String, _ name: String) -> Bool {
        let t = line.trimmingBlanks()
        guard t.hasPrefix("[" + name + "]") else { return false }
        let rest = t.dropFirst(name.count + 2).trimmingBlanks()
        return rest.isEmpty || rest.hasPrefix("#")
    }

    /// Whether a line sets `key` (`key = …`, spaces allowed around the `=`).
    static func isKey(_ line: String, _ key: String) -> Bool {
        let t = line.trimmingBlanks()
        guard t.hasPrefix(key) else { return false }
        return t.dropFirst(key.count).trimmingBlanks().hasPrefix("=")
    }

    /// Opening minus closing brackets outside strings and comments.
    static func bracketDepth(_ line: String) -> Int {
        var depth = 0
        var quote: Character?
        for c in line {
            if let q = quote {
                if c == q { quote = nil }
                continue
            }
            switch c {
            case "\"", "'": quote = c
            case "#": return depth
            case "[": depth += 1
            case "]": depth -= 1
            default: break
            }
        }
        return depth
    }
}
