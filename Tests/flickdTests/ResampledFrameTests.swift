import FlickInput
import Foundation
import Testing

/// `flickd replay --json`'s frame lines and touch resampling (issue 20, part 4), through the real
/// binary on generated recordings: an 800×480 panel whose units are pixels, reporting at 125 Hz,
/// shown on a 60 Hz headless display. The finger's true place at any time is known exactly
/// (the script wrote it), so the content's lag behind it is measured, not timed.
@Suite struct ResampledFrameTests {
    struct Line {
        var type: String
        var t: Double
        var y: Double
    }

    /// `flickd replay --json` of `script` with the config `toml`: its frame and didScroll lines.
    static func replay(_ script: TouchScript, config toml: String) throws -> [Line] {
        let dir = FileManager.default.temporaryDirectory
        let file = dir.appendingPathComponent("flickd-resample-\(UUID()).evemu").path
        let config = dir.appendingPathComponent("flickd-resample-\(UUID()).toml").path
        try script.text.write(toFile: file, atomically: true, encoding: .utf8)
        try toml.write(toFile: config, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: file)
            try? FileManager.default.removeItem(atPath: config)
        }
        let run = try runBuilt("flickd", ["replay", file, "--json", "--config", config])
        #expect(run.status == 0, "\(run.err)")
        return run.out.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let type = object["type"] as? String, type == "frame" || type == "didScroll",
                  let t = object["t"] as? Double, let offset = object["offset"] as? [Double] else { return nil }
            return Line(type: type, t: t, y: offset[1])
        }
    }

    static let panel = DeviceDescription.slotTouchscreen(width: 800, height: 480, slots: 2, resolution: 4)

    /// A finger moving up from y = 440 at 1000 px/s for 0.3 s, then slowing to rest over 150 ms
    /// (a smooth stop), held 0.2 s and lifted; the true y at any time.
    static func dragThatStops() -> (TouchScript, truth: (Double) -> Double) {
        func y(_ t: Double) -> Double {
            let s = t - 0.1
            if s <= 0 { return 440 }
            if s <= 0.3 { return 440 - 1000 * s }
            // Velocity falling from 1000 to 0 as a raised cosine over 0.15 s: 75 px more.
            let u = min(s - 0.3, 0.15)
            let travel = 1000 * (u / 2 + 0.15 / (2 * Double.pi) * sin(Double.pi * u / 0.15))
            return 140 - travel
        }
        var s = TouchScript(description: panel)
        s.idle(0)
        s.down(0, 400, 440, 0.1); s.report(0.1)
        var t = 0.1
        while t < 0.75 {
            t += 0.008
            s.move(0, 400, y(t), t); s.report(t)
        }
        s.up(0, 0.76); s.report(0.76)
        s.idle(3)
        return (s, y)
    }

    /// The content's distance from where the finger had it at each frame shown while dragging,
    /// from the replay's own lines: during a drag the content offset plus the finger's y is a
    /// constant (read off any didScroll at a report, where the finger's y is known exactly).
    static func lags(_ lines: [Line], truth: (Double) -> Double, until end: Double) -> [Double] {
        let scrolls = lines.filter { $0.type == "didScroll" && $0.t < end }
        guard let grab = scrolls.dropFirst().first.map({ $0.y + truth($0.t) }) else { return [] }
        let start = scrolls[0].t
        return lines.filter { $0.type == "frame" && $0.t > start + 0.02 && $0.t < end }.map { abs($0.y - (grab - truth($0.t))) }
    }

    @Test func framesAreOnTheEventsClockInOrder() throws {
        let (script, _) = Self.dragThatStops()
        let lines = try Self.replay(script, config: "")
        let frames = lines.filter { $0.type == "frame" }
        #expect(frames.count > 30)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.t < $1.t })
        // The first frame is at start; the touches' events fall among the frames.
        #expect(frames.first?.t == 0)
        #expect(lines.contains { $0.type == "didScroll" && $0.t > frames[1].t && $0.t < frames.last!.t })
    }

    @Test func resamplingHalvesTheLagAndOvershootsTheStopByUnder2px() throws {
        let (script, truth) = Self.dragThatStops()
        let off = try Self.replay(script, config: "[input]\nresample = false\n")
        let on = try Self.replay(script, config: "")
        // While the finger moves at 1000 px/s (before it starts to slow at 0.4 s).
        let lagOff = Self.lags(off, truth: truth, until: 0.4), lagOn = Self.lags(on, truth: truth, until: 0.4)
        #expect(lagOff.count > 10 && lagOn.count == lagOff.count)
        let meanOff = lagOff.reduce(0, +) / Double(lagOff.count), meanOn = lagOn.reduce(0, +) / Double(lagOn.count)
        #expect(meanOff > 15, "without resampling a 60 Hz frame trails 1000 px/s by over a frame: \(lagOff)")
        #expect(meanOn < meanOff / 2, "off \(lagOff), on \(lagOn)")
        // Where the finger comes to rest, the content must not have run past it by over 2 px.
        let rest = try #require(on.last(where: { $0.type == "didScroll" })).y
        let furthest = try #require(on.filter { $0.type == "frame" }.map(\.y).max())
        #expect(furthest - rest <= 2, "rest \(rest), furthest shown \(furthest)")
    }

    @Test func withoutResamplingEveryFrameShowsAReportedOffset() throws {
        let (script, _) = Self.dragThatStops()
        let lines = try Self.replay(script, config: "[input]\nresample = false\n")
        let reported = Set(lines.filter { $0.type == "didScroll" }.map(\.y)).union([0])
        let frames = lines.filter { $0.type == "frame" }
        #expect(frames.allSatisfy { reported.contains($0.y) }, "\(frames.map(\.y))")
    }
}
