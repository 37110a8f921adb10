import FlickControl
import FlickCore
import FlickInput
import Foundation
import Testing

/// `flickd replay --json` of a generated recording with a config of the test's: the lines as
/// JSON objects, and the same folded into names for exact sequences.
enum ReplayJSON {
    /// Replays `recording` (evemu text) with `config` (TOML; empty: the built-in defaults) and
    /// the replay's further `arguments`: the event lines, without the `frame` lines (what was
    /// shown when) unless `frames`.
    static func run(_ recording: String, config: String = "", frames: Bool = false,
                    arguments: [String] = []) throws -> [[String: Any]] {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try recording.write(toFile: dir + "/input.evemu", atomically: true, encoding: .utf8)
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["replay", dir + "/input.evemu", "--json", "--config", dir + "/flickd.toml"] + arguments)
        guard run.status == 0 else { throw TestFailure("flickd replay exited \(run.status): \(run.err)") }
        return try run.out.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }.filter { frames || $0["type"] as? String != "frame" }
    }

    /// What is wrong with the stream by the stamped delegate grammar (`DelegateGrammar`): time
    /// going back, a duplicate `didScroll`, motion after rest was announced, a flag changed
    /// without a `state` event; empty when nothing is.
    static func grammarViolations(_ lines: [[String: Any]]) throws -> [String] {
        var grammar = DelegateGrammar()
        var wrong: [String] = []
        for line in lines {
            let data = try JSONSerialization.data(withJSONObject: line)
            let m = try JSONDecoder().decode(ControlMessage.self, from: data)
            let t = Instant(nanoseconds: Int64(((m.t ?? 0) * 1e9).rounded()))
            let problem: String?
            if m.type == "state" {
                problem = grammar.acceptState(try #require(m.scrollState), at: t)
            } else if let event = try scrollEvent(m) {
                problem = grammar.accept(event, at: t, state: try #require(m.scrollState, "\(line)"))
            } else {
                problem = grammar.acceptOther(at: t)
            }
            if let problem { wrong.append(problem) }
        }
        if !grammar.isClosed { wrong.append("the stream ends with a begin that has no end") }
        return wrong
    }

    /// The delegate message a line holds, if it holds one.
    static func scrollEvent(_ m: ControlMessage) throws -> ScrollEvent? {
        switch m.type {
        case "didScroll": .didScroll
        case "willBeginDragging": .willBeginDragging
        case "willEndDragging":
            .willEndDragging(velocity: Vector(dx: try #require(m.vx), dy: try #require(m.vy)),
                             targetContentOffset: try #require(m.targetOffset.map { Point(x: $0[0], y: $0[1]) }))
        case "didEndDragging": .didEndDragging(willDecelerate: try #require(m.willDecelerate as Bool?))
        case "willBeginDecelerating": .willBeginDecelerating
        case "didEndDecelerating": .didEndDecelerating
        case "willBeginZooming": .willBeginZooming
        case "didZoom": .didZoom
        case "didEndZooming": .didEndZooming(atScale: try #require(m.zoomScale))
        case "didEndScrollingAnimation": .didEndScrollingAnimation
        case "didScrollToTop": .didScrollToTop
        default: nil
        }
    }

    /// The lines as names: `gesture:NAME` for gestures, `didEndDragging(BOOL)`, and each run of
    /// `didScroll`/`didZoom` (a pinch alternates them) as its first two.
    static func folded(_ lines: [[String: Any]]) -> [String] {
        var folded: [String] = []
        for line in lines {
            // `state` lines have tests of their own (EventStreamTests).
            guard var name = line["type"] as? String, name != "state" else { continue }
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
