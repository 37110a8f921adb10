@testable import FlickDaemon
import Foundation
import Testing

/// Issue 34, part 5: a reload names every key it changed, old → new, and which of them wait for
/// the next start; the one list of those keys agrees with config/flickd.toml's comments.
@Suite struct ConfigChangesTests {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/flickd.toml").path

    /// Each key of the shipped file with the comment lines just above it (a key right under
    /// another shares that one's).
    static func commentBlocks() throws -> [String: String] {
        var section = "", block: [String] = [], blocks: [String: String] = [:], lastBlock = ""
        for line in try String(contentsOfFile: shipped, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                block.append(String(line))
            } else if line.hasPrefix("[") {
                section = String(line.dropFirst().dropLast())
                block = []
            } else if let equals = line.firstIndex(of: "=") {
                if !block.isEmpty { lastBlock = block.joined(separator: "\n") }
                blocks[section + "." + line[..<equals].trimmingCharacters(in: .whitespaces)] = lastBlock
                block = []
            } else {
                block = []
            }
        }
        return blocks
    }

    @Test func theShippedCommentsSayWhichKeysWaitAndNoOthers() throws {
        let blocks = try Self.commentBlocks()
        #expect(Set(blocks.keys) == Set(ConfigLoader.knownKeys))
        for (key, comment) in blocks {
            #expect(comment.contains("Applies at the next start, not at reload.") == ConfigChanges.restartOnly.contains(key),
                    "\(key): \(comment)")
            #expect(comment.contains("applies when content is next loaded") == ConfigChanges.atNextContent.contains(key),
                    "\(key): \(comment)")
        }
        #expect(ConfigChanges.restartOnly.isSubset(of: Set(ConfigLoader.knownKeys)))
        #expect(ConfigChanges.atNextContent.isSubset(of: Set(ConfigLoader.knownKeys)))
        #expect(ConfigChanges.restartOnly.isDisjoint(with: ConfigChanges.atNextContent))
    }

    @Test func changesAreEveryKeyWrittenDifferentlyInKeyOrder() {
        let old = ["scroll.bounces": "true", "display.rotation": "0", "log.level": "\"info\""]
        let new = ["scroll.bounces": "false", "log.level": "\"info\"", "control.socket": "\"/run/x.sock\""]
        let changes = ConfigChanges.between(old, new)
        #expect(changes.map(\.line) == [
            "control.socket: (default) → \"/run/x.sock\" (applies only at the next start)",
            "display.rotation: 0 → (default) (applies only at the next start)",
            "scroll.bounces: true → false",
        ])
        #expect(ConfigChanges.summary(changes) == "3 keys changed; restart flickd to apply control.socket, display.rotation")
        #expect(ConfigChanges.summary([]) == "no key changed")
        #expect(ConfigChanges.between(old, old).isEmpty)
    }

    @Test func valuesAreTheFilesKeysAsWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("config-changes-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("flickd.toml").path
        try "[scroll]\ncontent_inset = [1, 2.5, 0, 0]\nbounces = false\n[display]\nmode = \"1920x1080\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(ConfigChanges.values(path: file) == ["scroll.content_inset": "[1, 2.5, 0, 0]", "scroll.bounces": "false",
                                                     "display.mode": "\"1920x1080\""])
        #expect(ConfigChanges.values(path: dir.appendingPathComponent("absent.toml").path).isEmpty)
    }
}
