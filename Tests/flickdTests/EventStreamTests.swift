import FlickControl
import FlickCore
import FlickInput
import Foundation
import Testing

/// Issue 21, part 7, through the real binary: `flickd replay --json` of generated recordings.
/// Every event carries the state when it happened, time never goes back, no `didScroll`
/// repeats, a zoom bounce is the deceleration after the lift, and a `state` event comes with
/// every change of a flag; the stamped delegate grammar accepts every stream.
@Suite struct EventStreamTests {
    /// A slow drag up by 200 px from (400, 400) over 1 s: the content-touch delay passes first.
    static let slowDrag = Recordings.script { $0.drag(from: (400, 400), to: (400, 200), seconds: 1, t: 0.1) }
    /// A flick up, then a tap at 0.4003 s, while the content decelerates: between the frame
    /// stepped to the vblank at 0.4 s and the one at 0.4167 s.
    static let flickAndCatch = Recordings.script { s in
        s.drag(from: (400, 400), to: (400, 200), seconds: 0.1, t: 0.1)
        s.tap(at: 300, 300, t: 0.4003)
    }
    /// Two fingers spreading from 100 to 600 px apart about (400, 240) in 0.3 s: zoom ×6, past
    /// the default maximum of 4, then both lift.
    static let pinchPastTheLimit = Recordings.script { $0.pinch(centre: (400, 240), from: 50, to: 300, seconds: 0.3, t: 0.1) }

    /// A line as `type flags (x, y) ×scale` (flags as `tracking+dragging…`, two decimals).
    static func summary(_ line: [String: Any]) -> String {
        var name = line["type"] as? String ?? "?"
        if name == "gesture" { name += ":" + (line["gesture"] as? String ?? "?") }
        if name == "didEndDragging" { name += "(\(line["willDecelerate"] as? Bool ?? false))" }
        let flags = ScrollFlags.named.filter { line[$0.name] as? Bool == true }.map(\.name)
        let offset = (line["offset"] as? [Double] ?? []).map { String(format: "%.2f", $0) }.joined(separator: ", ")
        let scale = String(format: "%.3f", line["zoomScale"] as? Double ?? .nan)
        return "\(name) \(flags.isEmpty ? "-" : flags.joined(separator: "+")) (\(offset)) ×\(scale)"
    }

    static func times(_ lines: [[String: Any]]) -> [Double] { lines.map { $0["t"] as? Double ?? .nan } }

    @Test func everyEventCarriesTheStateWhenItHappened() throws {
        let lines = try ReplayJSON.run(Self.slowDrag)
        // willBeginDragging still has the offset the drag starts from, the didScroll after it the
        // moved one (before, both had the offset at the end of the report).
        #expect(lines.prefix(7).map(Self.summary) == [
            "state tracking (0.00, 0.00) ×1.000",
            "contentTouchDown tracking (0.00, 0.00) ×1.000",
            "contentTouchMove tracking (0.00, 0.00) ×1.000",
            "contentTouchCancel tracking (0.00, 0.00) ×1.000",
            "state tracking+dragging+scrolling (0.00, 0.00) ×1.000",
            "willBeginDragging tracking+dragging+scrolling (0.00, 0.00) ×1.000",
            "didScroll tracking+dragging+scrolling (0.00, 2.00) ×1.000",
        ])
        #expect(Self.times(Array(lines.prefix(7))) == [0.1, 0.25, 0.252, 0.26, 0.26, 0.26, 0.26])
        // The lift: the drag's messages while dragging, then the flags change, then the
        // deceleration begins.
        let lift = try #require(lines.firstIndex { $0["type"] as? String == "willEndDragging" })
        #expect(lines[lift..<lift + 5].map(Self.summary) == [
            "willEndDragging tracking+dragging+scrolling (0.00, 170.00) ×1.000",
            "didEndDragging(true) tracking+dragging+scrolling (0.00, 170.00) ×1.000",
            "state decelerating+scrolling (0.00, 170.00) ×1.000",
            "willBeginDecelerating decelerating+scrolling (0.00, 170.00) ×1.000",
            "gesture:flick decelerating+scrolling (0.00, 170.00) ×1.000",
        ])
        #expect(lines.suffix(3).map(Self.summary) == [
            "didScroll decelerating+scrolling (0.00, 250.28) ×1.000",
            "state - (0.00, 250.28) ×1.000",
            "didEndDecelerating - (0.00, 250.28) ×1.000",
        ])
        #expect(try ReplayJSON.grammarViolations(lines) == [])
    }

    @Test func timeNeverGoesBackWhenATouchWasReportedBeforeTheFrameShown() throws {
        let lines = try ReplayJSON.run(Self.flickAndCatch)
        let t = Self.times(lines)
        #expect(zip(t, t.dropFirst()).allSatisfy { $0 <= $1 }, "\(t)")
        // The frame for the vblank at 0.4167 s was stepped before the touch at 0.4003 s came:
        // the model handles the touch at 0.4167 s, and the stream says so.
        let end = Array(lines.suffix(6))
        #expect(end.map(Self.summary) == [
            "didScroll decelerating+scrolling (0.00, 440.82) ×1.000",
            "state - (0.00, 440.82) ×1.000",
            "didEndDecelerating - (0.00, 440.82) ×1.000",
            "state tracking (0.00, 440.82) ×1.000",
            "state - (0.00, 440.82) ×1.000",
            "gesture:stop - (0.00, 440.82) ×1.000",
        ])
        #expect(Self.times(end).map { ($0 * 10_000).rounded() / 10_000 } == [0.4167, 0.4167, 0.4167, 0.4167, 0.4903, 0.4903])
        #expect(try ReplayJSON.grammarViolations(lines) == [])
    }

    @Test func aZoomBounceDeceleratesAfterTheLiftAndRepeatsNoDidScroll() throws {
        let lines = try ReplayJSON.run(Self.pinchPastTheLimit)
        // UIKit: willDecelerate is true when the content "will continue moving": the bounce is
        // the deceleration after the lift, and ends with the zoom.
        #expect(ReplayJSON.folded(lines) == ["willBeginDragging", "willBeginZooming", "didZoom", "didScroll", "gesture:pinch",
                                             "willEndDragging", "didEndDragging(true)", "willBeginDecelerating", "gesture:drag",
                                             "didZoom", "didScroll", "didEndZooming", "didEndDecelerating"])
        // Each frame of the pinch and of the bounce: one didZoom and one didScroll, at the same
        // time with the same state; no didScroll repeats the one before.
        let scrolls = lines.filter { $0["type"] as? String == "didScroll" }
        let zooms = lines.filter { $0["type"] as? String == "didZoom" }
        #expect(scrolls.count == zooms.count)
        for (z, s) in zip(zooms, scrolls) {
            #expect(Self.summary(z).dropFirst("didZoom".count) == Self.summary(s).dropFirst("didScroll".count))
            #expect(z["t"] as? Double == s["t"] as? Double)
        }
        let states = lines.filter { $0["type"] as? String == "state" }.map(Self.summary)
        #expect(states == [
            "state tracking (0.00, 0.00) ×1.000",
            "state tracking+dragging+scrolling (0.00, 0.00) ×1.000",
            "state tracking+dragging+zooming+scrolling (0.00, 0.00) ×1.000",
            "state decelerating+zooming+zoomBouncing+scrolling (1545.10, 927.06) ×4.863",
            "state - (1200.00, 720.00) ×4.000",
        ])
        #expect(try ReplayJSON.grammarViolations(lines) == [])
    }

    @Test func theStampedGrammarAcceptsTheOtherReplays() throws {
        let recordings = [
            Recordings.script { $0.pinch(from: (250, 140), to: (550, 340), radius: 50, to: 150, seconds: 0.32, t: 0.1) },
            Recordings.script { $0.tap(at: 300, 10, t: 0.1) },
            Recordings.script { $0.drag(from: (400, 160), to: (400, 400), seconds: 0.16, t: 0.1) },
            Recordings.script { s in
                s.tap(at: 400, 240, t: 0.1)
                s.tap(at: 400, 240, t: 0.3)
            },
        ]
        for (i, recording) in recordings.enumerated() {
            for config in ["", "[kiosk]\nscroll_to_top_strip_px = 40\n", "[scroll]\nbounces = false\npaging = true\n"] {
                let lines = try ReplayJSON.run(recording, config: config)
                #expect(try ReplayJSON.grammarViolations(lines) == [], "recording \(i), config \(config)")
            }
        }
    }
}
