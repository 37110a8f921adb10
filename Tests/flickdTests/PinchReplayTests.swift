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
}
