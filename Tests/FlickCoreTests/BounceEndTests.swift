import Testing
@testable import FlickCore

/// Issue 36, part 3: a bounce back ends exactly at the edge. A touch that lands in a bounce's
/// tail, creeping slower than the eye follows a pixel or two short of the edge, stops it at the
/// edge: `didEndDecelerating` reports the edge, and the touch's lift starts no second, tiny
/// bounce. A touch on a bounce still visibly under way holds it where it is, as before.
@Suite struct BounceEndTests {
    /// What the recogniser takes for motion nobody sees: a pixel a frame at 60 Hz.
    static let unseen = 60.0

    /// Content pulled 200 px past its top and let go still: the spring back, frame by frame at
    /// 60 Hz, until the first frame less than 2 px from the edge, while it still moves.
    static func bounceIntoItsTail() -> ScrollHarness {
        var h = ScrollHarness()
        h.down()
        h.move(dy: 200, steps: 10, ms: 160)
        h.advance(ms: 100)
        h.up()
        #expect(h.view.isDecelerating, "the pull did not bounce back")
        _ = h.take()
        while h.view.isDecelerating, h.view.contentOffset.y < -2 {
            h.advance(ms: 1000 / 60)
            h.view.advance(to: h.now)
        }
        _ = h.take()
        return h
    }

    @Test func aTouchInTheTailOfABounceStopsItAtTheEdge() {
        var h = Self.bounceIntoItsTail()
        let y = h.view.contentOffset.y
        #expect(h.view.isDecelerating && y < -1 && y > -2, "the bounce's tail was missed: y = \(y)")
        #expect(h.view.visibleSpeed(at: h.now) < Self.unseen)
        h.view.touchDown(at: h.now, unseenSpeed: Self.unseen)
        #expect(h.take() == [.didScroll, .didEndDecelerating])
        #expect(h.view.contentOffset == Point(x: 0, y: 0), "the bounce rested at \(h.view.contentOffset), short of the edge")
        // A tap: the lift finds the content in bounds, so nothing more moves.
        h.advance(ms: 90)
        h.up()
        #expect(h.take().isEmpty)
        #expect(!h.view.isAnimating && h.view.contentOffset == Point(x: 0, y: 0))
    }

    @Test func aBounceLeftAloneEndsExactlyAtTheEdge() {
        var h = Self.bounceIntoItsTail()
        h.runToRest()
        let events = h.take()
        #expect(events.last == .didEndDecelerating)
        #expect(h.view.contentOffset == Point(x: 0, y: 0))
    }

    /// A touch on a bounce further out, where it visibly moves, holds the content where it is
    /// (UIKit), and the lift bounces back from there.
    @Test func aTouchFurtherOutStillCatchesTheBounceWhereItIs() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: 200, steps: 10, ms: 160)
        h.advance(ms: 100)
        h.up()
        h.advance(ms: 100)
        h.view.advance(to: h.now)
        let caught = h.view.contentOffset.y
        _ = h.take()
        h.view.touchDown(at: h.now, unseenSpeed: Self.unseen)
        #expect(h.take() == [.didEndDecelerating])
        #expect(h.view.contentOffset.y == caught && caught < -1)
        h.advance(ms: 90)
        h.up()
        #expect(h.take().first == .willBeginDecelerating)
    }

    /// A touch that catches the tail (the recogniser saw it move, or a caller that says nothing
    /// of what is seen) stops it where it is.
    @Test func aTouchThatSaysNothingOfWhatIsSeenStopsTheTailWhereItIs() {
        var h = Self.bounceIntoItsTail()
        let y = h.view.contentOffset.y
        h.down()
        #expect(h.take() == [.didEndDecelerating])
        #expect(h.view.contentOffset.y == y)
    }
}
