@testable import FlickDaemon
import Foundation
import Testing

/// flickd.toml(5) as `scripts/config-man.awk` makes it from config/flickd.toml: one item per key
/// the daemon reads, under its section, tagged with the file's value, so the page documents
/// exactly the keys there are.
@Suite struct ConfigManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The page made from `config`.
    static func page(from config: String) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/awk")
        process.arguments = ["-v", "date=January 1, 2026", "-f", root.appendingPathComponent("scripts/config-man.awk").path, config]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// `section.key` → the value its item shows.
    static func items(_ page: String) -> [String: String] {
        var section = "", items: [String: String] = [:]
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".Ss \"[") { section = String(line.dropFirst(6).dropLast(2)) }
            if line.hasPrefix(".It Cm "), let equals = line.range(of: " No = Li ") {
                let key = line[line.index(line.startIndex, offsetBy: 7)..<equals.lowerBound]
                items[section + "." + key] = String(line[equals.upperBound...])
            }
        }
        return items
    }

    @Test func thePageHasEveryKeyTheDaemonReadsAndNoOther() throws {
        let (status, text) = try Self.page(from: Self.root.appendingPathComponent("config/flickd.toml").path)
        #expect(status == 0, "\(text)")
        let items = Self.items(text)
        #expect(Set(items.keys) == Set(ConfigLoader.knownKeys))
        #expect(items["scroll.deceleration_rate"] == #""\(dqnormal\(dq""#)
        #expect(items["control.mode"] == #""0o660""#)
        #expect(text.contains("\n.Sh KEYS\n") && text.contains("\n.Sh SEE ALSO\n"))
    }

    @Test func aLineTheGeneratorDoesNotKnowFailsIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("config-man-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flickd.toml").path
        try "[scroll]\n# Why.\nbounces = true\n  indented = 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (status, text) = try Self.page(from: file)
        #expect(status != 0 && text.contains("flickd.toml:4: not a comment, section or key"), "\(text)")
    }
}
