import Testing
@testable import FlickCore

/// Taps on content held out of bounds. A touch counts as a tap when what it lands on moves
/// slower than the eye follows (`imperceptibleSpeed`), and a bounce back that starts from a
/// still pull starts slow, far out: the touch holds the content there, and after the lift
/// either the tap's own animation takes it back (a double tap's zoom) or a bounce back does.
/// Found by the month soak (RELIABILITY.md): a double tap whose lift found the content out of
/// bounds began a bounce that the double tap's zoom ended at the same instant, before it moved
/// ("didEndDecelerating with no didScroll since willBeginDecelerating").
@Suite struct TapOnBounceTests {
    /// Content pulled about 10 px past its top, held still and let go, and a tap 100 ms into
    /// its bounce back: there the bounce moves slower than the eye follows (a tap, not a stop)
    /// but is still too far out for its tail (`AxisMotion.stopped`), so the touch holds the
    /// content out of bounds. The outputs are kept from the start (for the grammar).
    static func tappedOnABounce() -> GestureHarness {
        var h = GestureHarness(content: Size(width: 1600, height: 6000), scroll: { try $0.setZoomScaleLimits(minimum: 1, maximum: 5) })
        h.down(1, 400, 100); h.send()
        var y = 100.0
        while h.view.contentOffset.y > -10, y < 300 { h.advance(ms: 16); y += 3; h.move(1, 400, y); h.send() }
        h.wait(ms: 150)
        h.up(1); h.send()
        #expect(h.view.isDecelerating && h.view.contentOffset.y < -9, "no bounce: \(h.view.contentOffset)")
        h.wait(ms: 100)
        tap(&h)
        #expect(GestureHarness.taps(h.outputs) == 1, "the first touch was not a tap")
        #expect(h.view.contentOffset.y < -6, "the touch did not hold the content out of bounds")
        return h
    }

    static func tap(_ h: inout GestureHarness, x: Double = 400, y: Double = 240) {
        h.down(1, x, y); h.send(); h.advance(ms: 60); h.up(1); h.send()
    }

    /// The strict grammar over every scroll message of `outputs`.
    static func violation(_ outputs: [GestureOutput]) -> String? {
        var grammar = DelegateGrammar()
        for event in GestureHarness.scroll(outputs) { if let problem = grammar.accept(event) { return problem } }
        return nil
    }

    @Test func aDoubleTapOnContentOutOfBoundsZoomsWithoutAnInstantBounce() {
        var h = Self.tappedOnABounce()
        // The lift found the content out of bounds: it bounces back.
        #expect(h.view.isDecelerating)
        // The second tap, 50 ms into that bounce (a tap too), completes the double tap: its
        // zoom takes the content back, and no bounce begins at its lift.
        h.wait(ms: 50)
        let before = h.outputs.count
        Self.tap(&h, x: 402, y: 241)
        let lift = Array(h.outputs[before...])
        #expect(GestureHarness.gestures(lift).contains { if case .doubleTap(_, zoomedTo: 2) = $0 { true } else { false } })
        #expect(!GestureHarness.scroll(lift).contains(.willBeginDecelerating), "\(GestureHarness.scroll(lift))")
        #expect(h.view.isAnimating && !h.view.isDecelerating)
        h.settle()
        #expect(Self.violation(h.take()) == nil)
        #expect(h.view.zoomScale == 2)
        #expect(h.view.contentOffset.y >= 0, "left out of bounds at \(h.view.contentOffset)")
    }

    /// A single tap: its content tap first, then the bounce back, to the edge.
    @Test func aTapOnContentOutOfBoundsBouncesBackAfterItsTap() {
        var h = Self.tappedOnABounce()
        let kinds = h.outputs.compactMap { output -> String? in
            switch output.kind {
            case .content(.tap): "tap"
            case .scroll(.willBeginDecelerating): "bounce"
            default: nil
            }
        }
        #expect(kinds == ["bounce", "tap", "bounce"])
        h.settle()
        #expect(Self.violation(h.take()) == nil)
        #expect(h.view.contentOffset == Point(x: 0, y: 0))
    }

    /// A double tap whose action is the content's: nothing animates, so the lift bounces back.
    @Test func aContentDoubleTapOnContentOutOfBoundsStillBouncesBack() {
        var h = Self.tappedOnABounce()
        h.recognizer.setConfiguration({ var c = h.recognizer.configuration; c.doubleTapAction = .content; return c }())
        h.wait(ms: 50)
        Self.tap(&h, x: 402, y: 241)
        #expect(GestureHarness.content(h.outputs).contains { if case .doubleTap = $0 { true } else { false } })
        #expect(h.view.isDecelerating)
        h.settle()
        #expect(Self.violation(h.take()) == nil)
        #expect(h.view.contentOffset == Point(x: 0, y: 0) && h.view.zoomScale == 1)
    }

    /// A tap in the scroll-to-top strip on content held out of bounds: the scroll to the top
    /// takes it back, with no bounce begun at the lift.
    @Test func aTapInTheTopStripOnContentOutOfBoundsScrollsToTheTopWithoutAnInstantBounce() {
        var h = Self.tappedOnABounce()
        h.recognizer.setConfiguration({ var c = h.recognizer.configuration; c.scrollToTopStripHeight = 40; return c }())
        h.wait(ms: 50)
        let before = h.outputs.count
        Self.tap(&h, x: 100, y: 10)
        let lift = Array(h.outputs[before...])
        #expect(!GestureHarness.scroll(lift).contains(.willBeginDecelerating), "\(GestureHarness.scroll(lift))")
        #expect(h.view.isScrollAnimating)
        h.settle()
        let out = h.take()
        #expect(Self.violation(out) == nil)
        #expect(GestureHarness.scroll(out).last == .didScrollToTop)
        #expect(h.view.contentOffset == Point(x: 0, y: 0))
    }
}
