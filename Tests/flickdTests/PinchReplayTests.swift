import FlickInput
import Foundation
import Testing

/// Issue 21, part 2, through the real binary: `flickd replay --json` of a generated recording
/// in which two fingers move 300 × 200 px while zooming 1 → 3. After every report, the content
/// point that began under their centroid is still under it (within 0.5 px), read from the
/// `offset` and `zoomScale` of the JSON lines.
@Suite struct PinchReplayTests {
    /// The path: the centroid from (250, 140) to (550, 340), the fingers 50 → 150 px from it,
    /// 40 reports 8 ms apart from 0.1 s.
    static let start = 0.1, steps = 40, rate = 0.008

    /// The centroid of the fingers at report `i`, as the panel reports them (whole units).
    static func centroid(_ i: Int) -> (x: Double, y: Double) {
        let f = Double(i) / Double(steps)
        let c = (250 + 300 * f, 140 + 200 * f), r = 50 + 100 * f
        return (((c.0 - r).rounded() + (c.0 + r).rounded()) / 2, (c.1.rounded() + c.1.rounded()) / 2)
    }

    @Test func theContentUnderTheFingersFollowsThemThroughAMovingPinch() throws {
        var script = TouchScript(description: Recordings.panel, rate: Self.rate)
        script.idle(0)
        script.pinch(from: (250, 140), to: (550, 340), radius: 50, to: 150, seconds: Double(Self.steps) * Self.rate, t: Self.start)
        // An empty config: the built-in defaults (zoom 1 to 4, the test pattern of 3200 × 1920).
        let lines = try ReplayJSON.run(script.text)
        // The view after each report: the last line stamped with its time.
        var views: [Int: (offset: [Double], scale: Double)] = [:]
        for line in lines {
            guard let t = line["t"] as? Double, let offset = line["offset"] as? [Double], let scale = line["zoomScale"] as? Double,
                  line["type"] as? String != "didEndZooming" else { continue }
            let i = Int(((t - Self.start) / Self.rate).rounded())
            guard i >= 1, i <= Self.steps, abs(t - (Self.start + Double(i) * Self.rate)) < 1e-6 else { continue }
            views[i] = (offset, scale)
        }
        #expect(views.count == Self.steps, "a report without a didScroll or didZoom: \(views.keys.sorted())")
        // The replay starts at rest at offset (0, 0), zoom 1: the content point under the first
        // centroid is the centroid.
        let anchor = Self.centroid(0)
        var worst = 0.0
        for (i, view) in views {
            let c = Self.centroid(i)
            let content = ((view.offset[0] + c.x) / view.scale, (view.offset[1] + c.y) / view.scale)
            worst = max(worst, hypot(content.0 - anchor.x, content.1 - anchor.y) * view.scale)
        }
        #expect(worst <= 0.5, "the content slipped \(worst) px from under the fingers")
        let last = try #require(views[Self.steps])
        #expect(abs(last.scale - 3) < 1e-9)
        // The exact sequence, runs of didScroll/didZoom folded: the pinch begins a drag and a
        // zoom, ends the zoom with one finger's lift, and the still fingers lift without momentum.
        let folded = ReplayJSON.folded(lines)
        #expect(folded == ["willBeginDragging", "willBeginZooming", "didZoom", "didScroll", "didEndZooming", "gesture:pinch",
                           "willEndDragging", "didEndDragging(false)", "gesture:drag"], "\(folded)")
    }

    /// Issue 36, part 1: the issue's own path, on a 1920 × 1080 panel reporting a hundred units a
    /// pixel (so the fingers are where the path says to a hundredth of a pixel): the fingers
    /// 100 → 250 px apart while their centroid goes (1100, 700) → (800, 500) in 0.5 s. Every
    /// `didZoom` and `didScroll` of the pinch keeps the content point that began under the
    /// centroid under that report's centroid, and every frame shown keeps it under the centroid
    /// of the fingers the frame shows (resampled or not: a frame's scale says how far along the
    /// path they are, as the spread grows with the centroid's travel), within 0.5 px, at 60 and
    /// 120 Hz reports, resampling on and off. Before the fix each `didZoom` showed the content
    /// scaled about the centroid a report earlier: 6.0 px behind at 120 Hz, 12.0 at 60.
    @Test(arguments: [60.0, 120], [true, false])
    func theContentStaysUnderAMovingCentroidOnEveryMessageAndFrame(reportRate: Double, resample: Bool) throws {
        let units = 100.0, start = 0.1, seconds = 0.5
        let c0 = (1100.0, 700.0), c1 = (800.0, 500.0), r0 = 50.0, r1 = 125.0
        let panel = DeviceDescription.slotTouchscreen(name: "flickd fine panel", width: Int32(1919 * units) + 1,
                                                      height: Int32(1079 * units) + 1, slots: 10, resolution: Int32(10 * units))
        var script = TouchScript(description: panel, rate: 1 / reportRate)
        script.idle(0)
        let lift = script.pinch(from: (c0.0 * units, c0.1 * units), to: (c1.0 * units, c1.1 * units), radius: r0 * units,
                                to: r1 * units, seconds: seconds, t: start)
        let steps = Int((seconds * reportRate).rounded())
        let lines = try ReplayJSON.run(script.text, config: "[input]\nresample = \(resample)\n", frames: true,
                                       arguments: ["--display", "headless:1920x1080"])
        // The centroid a fraction `f` along the path, and the content point that began under it
        // (the replay starts at rest at offset (0, 0), zoom 1).
        func centroid(_ f: Double) -> (x: Double, y: Double) { (c0.0 + (c1.0 - c0.0) * f, c0.1 + (c1.1 - c0.1) * f) }
        func slip(_ line: [String: Any], under c: (x: Double, y: Double)) -> Double? {
            guard let offset = line["offset"] as? [Double], let scale = line["zoomScale"] as? Double else { return nil }
            return hypot(c0.0 * scale - offset[0] - c.x, c0.1 * scale - offset[1] - c.y)
        }
        var messages = 0, frames = 0, worstMessage = 0.0, worstFrame = 0.0
        var zooming = false
        for line in lines {
            guard let type = line["type"] as? String, let t = line["t"] as? Double else { continue }
            switch type {
            case "willBeginZooming": zooming = true
            case "didEndZooming": zooming = false
            case "didZoom" where zooming, "didScroll" where zooming:
                // A message of report i keeps the content under that report's centroid.
                let i = ((t - start) * reportRate).rounded()
                #expect(abs(t - (start + i / reportRate)) < 1e-6, "\(type) at \(t) is no report's")
                let s = try #require(slip(line, under: centroid(i / Double(steps))))
                worstMessage = max(worstMessage, s)
                messages += 1
            case "frame" where t > start && t <= lift:
                // The frame's scale is the spread's growth: how far along the path its fingers are.
                let scale = try #require(line["zoomScale"] as? Double)
                let s = try #require(slip(line, under: centroid((scale - 1) * r0 / (r1 - r0))))
                worstFrame = max(worstFrame, s)
                frames += 1
            default: break
            }
        }
        #expect(messages >= 2 * steps, "\(messages) didZoom/didScroll for \(steps) reports")
        #expect(frames >= Int(seconds * 60) - 1, "\(frames) frames shown while pinching")
        #expect(worstMessage <= 0.5, "a message showed the content \(worstMessage) px from under the centroid")
        #expect(worstFrame <= 0.5, "a frame showed the content \(worstFrame) px from under the centroid")
        let last = try #require(lines.last { $0["type"] as? String == "didEndZooming" })
        #expect(abs((last["zoomScale"] as? Double ?? 0) - r1 / r0) < 1e-6)
    }
}
