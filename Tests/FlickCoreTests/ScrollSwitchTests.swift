import Testing
@testable import FlickCore

/// Issue 21, part 4: UIScrollView's switches flickd lacked, as UIKit behaves with each off, and
/// a flick into an edge that cannot bounce.
@Suite struct ScrollSwitchTests {
    /// A drag of 100 px up from (400, 400), 10 ms a report, after `holdMs` of holding still.
    static func drag(_ h: inout GestureHarness, holdMs: Double = 0) {
        h.down(1, 400, 400); h.send()
        if holdMs > 0 { h.wait(ms: holdMs) }
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 400 - 10 * Double(i)); h.send() }
        h.advance(ms: 10); h.up(1); h.send()
        h.settle()
    }

    /// The content's moves of `drag`: to y 390, 380, … 300 from `first` on.
    static func moves(from first: Int = 1) -> [ContentTouch] {
        (first...10).map { .move(Point(x: 400, y: 400 - 10 * Double($0))) }
    }

    // MARK: isScrollEnabled

    @Test func withScrollingOffADragIsTheContentsTouchAndNothingScrolls() {
        var h = GestureHarness(scroll: { $0.isScrollEnabled = false })
        Self.drag(&h)
        let out = h.take()
        // Held back until it crossed the slop (12 px at 4 px/mm, at y 380), then the content's to
        // the end: every move from there, and an up.
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400))] + Self.moves(from: 2) + [.up(Point(x: 400, y: 300))])
        #expect(GestureHarness.scroll(out).isEmpty && GestureHarness.gestures(out).isEmpty)
        #expect(h.view.contentOffset == .zero)
        // Held past the delay: the content already has it and keeps it (no cancel).
        Self.drag(&h, holdMs: 200)
        let held = h.take()
        #expect(GestureHarness.content(held) == [.down(Point(x: 400, y: 400))] + Self.moves() + [.up(Point(x: 400, y: 300))])
        #expect(GestureHarness.scroll(held).isEmpty && h.view.contentOffset == .zero)
    }

    @Test func withScrollingOffTapsAndLongPressesStillReachTheContent() {
        var h = GestureHarness(scroll: { $0.isScrollEnabled = false })
        h.down(1, 300, 200); h.send(); h.advance(ms: 80); h.up(1); h.send()
        h.wait(ms: 400)
        #expect(GestureHarness.taps(h.take()) == 1)
        h.down(1, 300, 200); h.send(); h.wait(ms: 600); h.up(1); h.send()
        #expect(GestureHarness.content(h.take()) == [.down(Point(x: 300, y: 200)), .longPress(Point(x: 300, y: 200)),
                                                       .up(Point(x: 300, y: 200))])
    }

    @Test func scrollingTurnedBackOnScrollsTheNextTouch() {
        var h = GestureHarness(scroll: { $0.isScrollEnabled = false })
        _ = h.recognizer.update(at: h.now) { $0.isScrollEnabled = true }
        Self.drag(&h)
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty && h.view.contentOffset.y > 80)
    }

    // MARK: scrollsToTop

    @Test func withScrollsToTopOffTheTopStripIsContentLikeTheRest() {
        var h = GestureHarness(configure: { $0.scrollToTopStripHeight = 20 }, scroll: {
            try $0.setContentOffset(Point(x: 0, y: 1500), animated: false, at: .zero)
            $0.scrollsToTop = false
        })
        h.down(1, 300, 10); h.send(); h.advance(ms: 90); h.up(1); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.content(out) == [.down(Point(x: 300, y: 1510)), .up(Point(x: 300, y: 1510)),
                                                 .tap(Point(x: 300, y: 1510))])
        #expect(GestureHarness.gestures(out) == [.tap(Point(x: 300, y: 1510))])
        #expect(!GestureHarness.scroll(out).contains(.didScrollToTop) && h.view.contentOffset.y == 1500)
    }

    // MARK: delaysContentTouches

    @Test func withoutDelaysContentTouchesTheContentHearsAtOnceAndADragCancelsIt() {
        var h = GestureHarness(configure: { $0.delaysContentTouches = false })
        h.down(1, 400, 400); h.send()
        #expect(GestureHarness.content(h.take()) == [.down(Point(x: 400, y: 400))])
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 400 - 10 * Double(i)); h.send() }
        h.advance(ms: 10); h.up(1); h.send()
        h.settle()
        let out = h.take()
        // It hears the move within the slop, then loses the touch to the drag.
        #expect(GestureHarness.content(out) == [.move(Point(x: 400, y: 390)), .cancel])
        #expect(GestureHarness.scroll(out).first == .willBeginDragging && h.view.contentOffset.y > 80)
    }

    @Test func withoutDelaysAndWithoutCancellingTheContentKeepsAMovingTouch() {
        var h = GestureHarness(configure: { $0.delaysContentTouches = false; $0.canCancelContentTouches = false })
        Self.drag(&h)
        let out = h.take()
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400))] + Self.moves() + [.up(Point(x: 400, y: 300))])
        #expect(GestureHarness.scroll(out).isEmpty && h.view.contentOffset == .zero)
    }

    @Test func tunablesChangedMidTouchApplyFromTheNextTouch() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        var g = h.recognizer.configuration
        g.delaysContentTouches = false
        h.recognizer.setConfiguration(g)
        h.advance(ms: 80); h.up(1); h.send()
        h.wait(ms: 400)
        _ = h.take()
        // The next touch goes to the content at once.
        h.down(1, 200, 200); h.send()
        #expect(GestureHarness.content(h.take()) == [.down(Point(x: 200, y: 200))])
    }

    // MARK: bounces = false

    /// A flick into the top edge of a view that does not bounce: the content cannot move, so
    /// the lift does not decelerate (UIKit: `didEndDragging(willDecelerate: false)`).
    @Test func aFlickIntoAnEdgeThatCannotBounceDoesNotDecelerate() {
        var h = ScrollHarness(configure: { $0.bounces = false })
        h.down()
        h.move(dy: 60, steps: 3, ms: 50)
        h.up(vy: 1500)
        #expect(h.take() == [.willBeginDragging, .willEndDragging(velocity: Vector(dx: 0, dy: -1500), targetContentOffset: .zero),
                             .didEndDragging(willDecelerate: false)])
        #expect(!h.view.isDecelerating && !h.view.isAnimating && h.view.contentOffset == .zero)
        // And at the bottom edge.
        h.view.contentOffset = Point(x: 0, y: h.view.maximumOffset(.vertical))
        h.down()
        h.move(dy: -60, steps: 3, ms: 50)
        h.up(vy: -1500)
        let bottom = Point(x: 0, y: 2700)
        #expect(h.take() == [.willBeginDragging, .willEndDragging(velocity: Vector(dx: 0, dy: 1500), targetContentOffset: bottom),
                             .didEndDragging(willDecelerate: false)])
        #expect(!h.view.isDecelerating && h.view.contentOffset == bottom)
    }

    /// Short of the edge, the same flick still decelerates into it and stops there.
    @Test func aFlickThatReachesAnEdgeThatCannotBounceDeceleratesToIt() {
        var h = ScrollHarness(configure: { $0.bounces = false })
        h.view.contentOffset = Point(x: 0, y: 100)
        h.down()
        h.move(dy: 30, steps: 3, ms: 50)
        h.up(vy: 1500)
        h.runToRest()
        #expect(ScrollHarness.folded(h.take()) == [
            .willBeginDragging, .didScroll, .willEndDragging(velocity: Vector(dx: 0, dy: -1500), targetContentOffset: .zero),
            .didEndDragging(willDecelerate: true), .willBeginDecelerating, .didScroll, .didEndDecelerating,
        ])
        #expect(h.view.contentOffset == .zero)
    }

    // MARK: The grammar

    @Test func aDecelerationThatNeverMovesBreaksTheGrammar() {
        let still: [ScrollEvent] = [.willBeginDragging, .willEndDragging(velocity: Vector(dx: 0, dy: -1500), targetContentOffset: .zero),
                                    .didEndDragging(willDecelerate: true), .willBeginDecelerating, .didEndDecelerating]
        #expect(grammarViolation(still) == "4: didEndDecelerating with no didScroll since willBeginDecelerating")
        let moving = Array(still.prefix(4)) + [.didScroll, .didEndDecelerating]
        #expect(grammarViolation(moving) == nil)
        // A touch stamped with the lift's own time stops it before it moved: streams that repeat
        // timestamps (the storms) allow that.
        #expect(grammarViolation(still, allowingInstantStops: true) == nil)
        // A didScroll before the deceleration does not count for it.
        let early: [ScrollEvent] = [.willBeginDragging, .didScroll, .willEndDragging(velocity: .zero, targetContentOffset: .zero),
                                    .didEndDragging(willDecelerate: true), .willBeginDecelerating, .didEndDecelerating]
        #expect(grammarViolation(early) != nil)
    }
}
