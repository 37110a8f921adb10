import FlickCore
import FlickInput
import Testing

/// Issue 21, part 4, through the real binary: `flickd replay --json` of generated recordings
/// with each UIScrollView switch off in the config, and a flick into an edge that cannot
/// bounce; exact sequences.
@Suite struct SwitchReplayTests {
    /// A slow drag up by 200 px from (400, 400): 1 s, then a lift one report later.
    static let dragUp = Recordings.script { $0.drag(from: (400, 400), to: (400, 200), seconds: 1, t: 0.1) }

    /// `dragUp`'s reports from the `first`th on (125 of them, 8 ms and 1.6 px apart, recorded in
    /// whole device units) as the content hears them: `contentTouchMove` at (400, y), content
    /// coordinates at zoom 1, offset 0.
    static func dragUpMoves(from first: Int) -> [String] {
        (first...125).map { "contentTouchMove 400 \((400 - 1.6 * Double($0)).rounded().brief)" }
    }

    /// The content touches of `lines` as "type x y".
    static func contentTouches(_ lines: [[String: Any]]) -> [String] {
        lines.compactMap { line in
            guard let type = line["type"] as? String, type.hasPrefix("contentTouch") else { return nil }
            guard let x = line["x"] as? Double, let y = line["y"] as? Double else { return type }
            return "\(type) \(x.brief) \(y.brief)"
        }
    }

    @Test func withBouncesOffAFlickIntoTheTopDoesNotDecelerate() throws {
        // Down at 1500 px/s at the top: nothing to scroll that way, nothing to bounce.
        let flick = Recordings.script { $0.drag(from: (400, 160), to: (400, 400), seconds: 0.16, t: 0.1) }
        let lines = try ReplayJSON.run(flick, config: "[scroll]\nbounces = false\n")
        #expect(ReplayJSON.folded(lines) == ["willBeginDragging", "willEndDragging", "didEndDragging(false)", "gesture:drag"])
        // The same flick with bounces on rubber-bands and springs back: it decelerates.
        let bouncing = ReplayJSON.folded(try ReplayJSON.run(flick))
        #expect(bouncing.contains("didEndDragging(true)") && bouncing.contains("willBeginDecelerating"), "\(bouncing)")
    }

    @Test func withScrollingOffADragIsTheContentsTouch() throws {
        let lines = try ReplayJSON.run(Self.dragUp, config: "[scroll]\nscroll_enabled = false\n")
        // The delay runs out at 150 ms, before the 20th report crosses the 30 px slop: the
        // content has its down where the finger landed, then every move (issue 21, part 6), and
        // an up where it lifted.
        #expect(Self.contentTouches(lines) == ["contentTouchDown 400 400"] + Self.dragUpMoves(from: 19) + ["contentTouchUp 400 200"])
        #expect(ReplayJSON.folded(lines).allSatisfy { $0.hasPrefix("contentTouch") })
        #expect(Set(lines.compactMap { $0["contact"] as? Int }).count == 1)
    }

    @Test func withScrollsToTopOffATapInTheStripIsATap() throws {
        let tap = Recordings.script { $0.tap(at: 300, 10, t: 0.1) }
        let strip = "[kiosk]\nscroll_to_top_strip_px = 40\n"
        // On (the default), the strip's tap scrolls to the top and the content never hears it.
        let on = ReplayJSON.folded(try ReplayJSON.run(tap, config: strip))
        #expect(!on.contains("tap") && !on.contains("contentTouchDown"), "\(on)")
        let off = ReplayJSON.folded(try ReplayJSON.run(tap, config: strip + "[scroll]\nscrolls_to_top = false\n"))
        #expect(off == ["contentTouchDown", "contentTouchUp", "tap", "gesture:tap"])
    }

    @Test func withoutDelaysContentTouchesTheContentHearsAtOnceAndTheDragCancels() throws {
        let lines = try ReplayJSON.run(Self.dragUp, config: "[gestures]\ndelays_content_touches = false\n")
        // The content hears the 19 moves within the slop (y 370 is 30 px away: not beyond it),
        // then loses the touch to the drag.
        let moves = Array(repeating: "contentTouchMove", count: 19)
        #expect(Self.contentTouches(lines) == ["contentTouchDown 400 400"] + Array(Self.dragUpMoves(from: 1).prefix(19)) + ["contentTouchCancel"])
        #expect(ReplayJSON.folded(lines) == ["contentTouchDown"] + moves + ["contentTouchCancel", "willBeginDragging", "didScroll",
                                             "willEndDragging", "didEndDragging(true)", "willBeginDecelerating", "gesture:flick",
                                             "didScroll", "didEndDecelerating"])
        #expect(lines.first?["t"] as? Double == 0.1)
    }

    @Test func withoutDelaysAndWithoutCancellingTheContentKeepsTheDrag() throws {
        let config = "[gestures]\ndelays_content_touches = false\ncan_cancel_content_touches = false\n"
        let lines = try ReplayJSON.run(Self.dragUp, config: config)
        #expect(Self.contentTouches(lines) == ["contentTouchDown 400 400"] + Self.dragUpMoves(from: 1) + ["contentTouchUp 400 200"])
        #expect(ReplayJSON.folded(lines).allSatisfy { $0.hasPrefix("contentTouch") })
    }
}
