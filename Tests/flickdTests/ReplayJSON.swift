import FlickInput
import Foundation
import Testing

/// `flickd replay --json` of a generated recording with a config of the test's: the lines as
/// JSON objects, and the same folded into names for exact sequences.
enum ReplayJSON {
    /// Replays `recording` (evemu text) with `config` (TOML; empty: the built-in defaults): the
    /// event lines, without the `frame` lines (what was shown when) unless `frames`.
    static func run(_ recording: String, config: String = "", frames: Bool = false) throws -> [[String: Any]] {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try recording.write(toFile: dir + "/input.evemu", atomically: true, encoding: .utf8)
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["replay", dir + "/input.evemu", "--json", "--config", dir + "/flickd.toml"])
        guard run.status == 0 else { throw TestFailure("flickd replay exited \(run.status): \(run.err)") }
        return try run.out.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }.filter { frames || $0["type"] as? String != "frame" }
    }

    /// The lines as names: `gesture:NAME` for gestures, `didEndDragging(BOOL)`, and each run of
    /// `didScroll`/`didZoom` (a pinch alternates them) as its first two.
    static func folded(_ lines: [[String: Any]]) -> [String] {
        var folded: [String] = []
        for line in lines {
            guard var name = line["type"] as? String else { continue }
            if name == "gesture" { name += ":" + (line["gesture"] as? String ?? "?") }
            if name == "didEndDragging" { name += "(\(line["willDecelerate"] as? Bool ?? false))" }
            if name == "didScroll" || name == "didZoom" {
                if folded.last == name { continue }
                if folded.count >= 2, folded.suffix(2).allSatisfy({ $0 == "didScroll" || $0 == "didZoom" }) { continue }
            }
            folded.append(name)
        }
        return folded
    }
}
