import FlickCore
import FoundationEssentials

/// An evemu-record file: the device description (`N: I: P: B: A: L:` header) and the events
/// (`E: sec.usec type code value`).
///
/// Two layouts occur and both load: one file holding both (`*.event`, often with a `*.prop`
/// beside it repeating the header), and a description `NAME.desc` with event files
/// `NAME.WHAT.events` holding only `E:` lines.
public struct EvemuRecording: Sendable {
    /// The device as recorded.
    public var description: DeviceDescription
    /// The events, in file order.
    public var events: [InputEvent]
    /// Lines skipped with a reason (unknown header lines).
    public var warnings: [String]
    /// The file the events came from.
    public var path: String

    /// Loads a recording; for an events-only file, finds its description beside it
    /// (`NAME.desc` for `NAME.WHAT.events` or `NAME.events`, `NAME.prop` for `NAME.event`).
    /// - Throws: `EvemuError` naming the file, the line and what was expected.
    public static func load(path: String) throws(EvemuError) -> EvemuRecording {
        let text = try read(path)
        var parsed = try EvemuParser.parse(text, path: path)
        if parsed.description == nil {
            guard let descPath = descriptionPath(for: path) else {
                throw EvemuError(path: path, line: 0, message: "expected an evemu header (N:, I:, B:, A: lines) in the file "
                                 + "or in a NAME.desc / NAME.prop beside it; found neither")
            }
            let header = try EvemuParser.parse(try read(descPath), path: descPath)
            guard let description = header.description else {
                throw EvemuError(path: descPath, line: 0, message: "expected an evemu header (an N: line); found none")
            }
            parsed.description = description
            parsed.warnings += header.warnings
        }
        return EvemuRecording(description: parsed.description!, events: parsed.events, warnings: parsed.warnings, path: path)
    }

    /// Parses text already read (tests, fuzzing); it must hold the header.
    /// - Throws: `EvemuError` for a malformed line, or for a missing header.
    public static func parse(_ text: String, path: String) throws(EvemuError) -> EvemuRecording {
        let parsed = try EvemuParser.parse(text, path: path)
        guard let description = parsed.description else {
            throw EvemuError(path: path, line: 0, message: "expected an evemu header (an N: line); found none")
        }
        return EvemuRecording(description: description, events: parsed.events, warnings: parsed.warnings, path: path)
    }

    /// The description file for an events-only file, if one exists.
    static func descriptionPath(for path: String) -> String? {
        var candidates: [String] = []
        if path.hasSuffix(".event") { candidates.append(String(path.dropLast(".event".count)) + ".prop") }
        if path.hasSuffix(".events") {
            // "NAME.WHAT.events" → NAME.WHAT.desc, then NAME.desc (names may hold dots).
            var stem = String(path.dropLast(".events".count))
            while true {
                candidates.append(stem + ".desc")
                guard let dot = stem.lastIndex(of: "."), !stem[dot...].contains("/") else { break }
                stem = String(stem[..<dot])
            }
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    private static func read(_ path: String) throws(EvemuError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw EvemuError(path: path, line: 0, message: exists ? "cannot be read (permissions?)" : "no such file", kind: .noInput)
        }
        return String(decoding: data, as: UTF8.self)
    }
}
