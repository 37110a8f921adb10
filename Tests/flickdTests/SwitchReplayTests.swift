import FlickInput
import Testing

/// Issue 21, part 4, through the real binary: `flickd replay --json` of generated recordings
/// with each UIScrollView switch off in the config, and a flick into an edge that cannot
/// bounce; exact sequences.
@Suite struct SwitchReplayTests {
    /// A recording of one gesture, 0.1 s after an idle report.
    static func recording(_ gesture: (inout TouchScript) -> Void) -> String {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        gesture(&s)
        return s.text
    }

    /// A slow drag up by 200 px from (400, 400): 1 s, then a lift one report later.
    static let dragUp = recording { $0.drag(from: (400, 400), to: (400, 200), seconds: 1, t: 0.1) }

    @Test func withBouncesOffAFlickIntoTheTopDoesNotDecelerate() throws {
        // Down at 1500 px/s at the top: nothing to scroll that way, nothing to bounce.
        let flick = Self.recording { $0.drag(from: (400, 160), to: (400, 400), seconds: 0.16, t: 0.1) }
        let lines = try ReplayJSON.run(flick, config: "[scroll]\nbounces = false\n")
        #expect(ReplayJSON.folded(lines) == ["willBeginDragging", "willEndDragging", "didEndDragging(false)", "gesture:drag"])
        // The same flick with bounces on rubber-bands and springs back: it decelerates.
        let bouncing = ReplayJSON.folded(try ReplayJSON.run(flick))
        #expect(bouncing.contains("didEndDragging(true)") && bouncing.contains("willBeginDecelerating"), "\(bouncing)")
    }

    @Test func withScrollingOffADragIsTheContentsTouch() throws {
        let lines = try ReplayJSON.run(Self.dragUp, config: "[scroll]\nscroll_enabled = false\n")
        #expect(ReplayJSON.folded(lines) == ["contentTouchDown", "contentTouchUp"])
        // (Between them, `state` lines: the finger tracks.)
        let down = try #require(lines.first { $0["type"] as? String == "contentTouchDown" })
        let up = try #require(lines.last { $0["type"] as? String == "contentTouchUp" })
        #expect(down["x"] as? Double == 400 && down["y"] as? Double == 400)
        #expect(up["x"] as? Double == 400 && up["y"] as? Double == 200)
    }

    @Test func withScrollsToTopOffATapInTheStripIsATap() throws {
        let tap = Self.recording { $0.tap(at: 300, 10, t: 0.1) }
        let strip = "[kiosk]\nscroll_to_top_strip_px = 40\n"
        // On (the default), the strip's tap scrolls to the top and the content never hears it.
        let on = ReplayJSON.folded(try ReplayJSON.run(tap, config: strip))
        #expect(!on.contains("tap") && !on.contains("contentTouchDown"), "\(on)")
        let off = ReplayJSON.folded(try ReplayJSON.run(tap, config: strip + "[scroll]\nscrolls_to_top = false\n"))
        #expect(off == ["contentTouchDown", "contentTouchUp", "tap", "gesture:tap"])
    }

    @Test func withoutDelaysContentTouchesTheContentHearsAtOnceAndTheDragCancels() throws {
        let lines = try ReplayJSON.run(Self.dragUp, config: "[gestures]\ndelays_content_touches = false\n")
        #expect(ReplayJSON.folded(lines) == ["contentTouchDown", "contentTouchCancel", "willBeginDragging", "didScroll",
                                             "willEndDragging", "didEndDragging(true)", "willBeginDecelerating", "gesture:flick",
                                             "didScroll", "didEndDecelerating"])
        #expect(lines.first?["t"] as? Double == 0.1)
    }

    @Test func withoutDelaysAndWithoutCancellingTheContentKeepsTheDrag() throws {
        let config = "[gestures]\ndelays_content_touches = false\ncan_cancel_content_touches = false\n"
        #expect(ReplayJSON.folded(try ReplayJSON.run(Self.dragUp, config: config)) == ["contentTouchDown", "contentTouchUp"])
    }
}
