import RealModule
import Testing
@testable import FlickCore

/// The delegate sequences of UIScrollView (README, "The scroll model in brief"), one test each, with the state flags at each step.
@Suite struct ScrollSequenceTests {
    @Test func touchAndLiftWithoutMovingSendsNothing() {
        var h = ScrollHarness()
        #expect(!h.view.isTracking)
        h.down()
        #expect(h.view.isTracking && !h.view.isDragging && !h.view.isScrolling)
        h.advance(ms: 80)
        h.up()
        #expect(h.take() == [])
        #expect(!h.view.isTracking && !h.view.isDragging && !h.view.isDecelerating)
        #expect(h.view.contentOffset == .zero)
    }

    @Test func dragStopLiftEndsWithoutDeceleration() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: -120, steps: 6, ms: 100)
        #expect(h.view.isTracking && h.view.isDragging && h.view.isScrolling)
        #expect(h.view.contentOffset.y == 120)
        h.advance(ms: 200) // the finger rests: the tracker reports no velocity
        h.up()
        #expect(h.take() == [.willBeginDragging] + Array(repeating: .didScroll, count: 6)
            + [.willEndDragging(velocity: .zero, targetContentOffset: Point(x: 0, y: 120)),
               .didEndDragging(willDecelerate: false)])
        #expect(!h.view.isTracking && !h.view.isDragging && !h.view.isDecelerating && !h.view.isScrolling)
        #expect(!h.view.isAnimating)
    }

    @Test func flickDeceleratesToRest() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: -60, steps: 3, ms: 50)
        h.up(vy: -1500)
        let rest = 60 + 1500 / (1000 * -Double.log(0.998) )
        #expect(ScrollHarness.folded(h.take()) == [
            .willBeginDragging, .didScroll,
            .willEndDragging(velocity: Vector(dx: 0, dy: 1500), targetContentOffset: Point(x: 0, y: rest)),
            .didEndDragging(willDecelerate: true), .willBeginDecelerating,
        ])
        #expect(h.view.isDecelerating && h.view.isScrolling && !h.view.isTracking && !h.view.isDragging)
        h.runToRest()
        #expect(ScrollHarness.folded(h.take()) == [.didScroll, .didEndDecelerating])
        #expect(!h.view.isDecelerating && !h.view.isScrolling)
        #expect(abs(h.view.contentOffset.y - rest) < 1)
    }

    @Test func dragPastEdgeAndLiftStillBouncesBack() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: 100, steps: 4, ms: 64) // pull down at the top: rubber band
        #expect(h.view.contentOffset.y < 0)
        h.advance(ms: 100)
        h.up()
        #expect(ScrollHarness.folded(h.take()) == [
            .willBeginDragging, .didScroll,
            .willEndDragging(velocity: .zero, targetContentOffset: .zero),
            .didEndDragging(willDecelerate: true), .willBeginDecelerating,
        ])
        #expect(h.view.isDecelerating && h.view.isScrolling)
        h.runToRest()
        #expect(ScrollHarness.folded(h.take()) == [.didScroll, .didEndDecelerating])
        #expect(h.view.contentOffset == .zero)
    }

    @Test func touchDuringDecelerationStopsInPlace() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: -60, steps: 3, ms: 50)
        h.up(vy: -2000)
        _ = h.take()
        for _ in 0..<10 { h.advance(ms: 16); h.view.advance(to: h.now) }
        let before = h.view.contentOffset
        _ = h.take()
        h.down() // same instant as the last frame: the content must not move
        #expect(h.take() == [.didEndDecelerating])
        #expect(h.view.contentOffset == before)
        #expect(h.view.isTracking && !h.view.isDecelerating && !h.view.isAnimating)
        h.advance(ms: 500)
        h.view.advance(to: h.now)
        h.up()
        #expect(h.take() == [])
        #expect(h.view.contentOffset == before)
    }

    @Test func animatedSetContentOffset() throws {
        var h = ScrollHarness()
        try h.view.setContentOffset(Point(x: 0, y: 500), animated: true, at: h.now)
        #expect(h.view.isScrollAnimating && h.view.isScrolling)
        let frames = h.runToRest()
        #expect(frames >= 17 && frames <= 20) // 0.3 s at 60 Hz
        let events = h.take()
        #expect(events.last == .didEndScrollingAnimation)
        #expect(events.dropLast().allSatisfy { $0 == .didScroll } && events.count > 10)
        #expect(h.view.contentOffset == Point(x: 0, y: 500))
        #expect(!h.view.isScrolling && !h.view.isScrollAnimating)
    }

    @Test func hardSetContentOffsetIsOneDidScrollAndNotScrolling() throws {
        var h = ScrollHarness()
        try h.view.setContentOffset(Point(x: 0, y: 500), animated: false, at: h.now)
        #expect(!h.view.isScrolling && !h.view.isAnimating)
        #expect(h.take() == [.didScroll])
        #expect(h.view.contentOffset == Point(x: 0, y: 500))
    }

    @Test func scrollRectToVisible() throws {
        var h = ScrollHarness()
        // Already visible: nothing at all.
        try h.view.scrollRectToVisible(Rect(x: 10, y: 10, width: 50, height: 50), animated: true, at: h.now)
        #expect(!h.view.isAnimating)
        #expect(h.take() == [])
        // Below the viewport: the least scroll that shows its bottom edge.
        try h.view.scrollRectToVisible(Rect(x: 0, y: 1000, width: 50, height: 100), animated: false, at: h.now)
        #expect(h.take() == [.didScroll])
        #expect(h.view.contentOffset == Point(x: 0, y: 800))
        // Above it, animated: its top edge comes to the top.
        try h.view.scrollRectToVisible(Rect(x: 0, y: 200, width: 50, height: 100), animated: true, at: h.now)
        #expect(h.view.isScrollAnimating)
        h.runToRest()
        #expect(ScrollHarness.folded(h.take()) == [.didScroll, .didEndScrollingAnimation])
        #expect(h.view.contentOffset == Point(x: 0, y: 200))
        // Past the end: clamped to the last valid offset.
        try h.view.scrollRectToVisible(Rect(x: 0, y: 2990, width: 10, height: 10), animated: false, at: h.now)
        #expect(h.view.contentOffset == Point(x: 0, y: 2700))
    }

    @Test func scrollToTop() throws {
        var h = ScrollHarness()
        try h.view.setContentOffset(Point(x: 0, y: 1200), animated: false, at: h.now)
        _ = h.take()
        let honoured = h.view.scrollToTop(at: h.now)
        #expect(honoured)
        #expect(h.view.isScrollAnimating)
        h.runToRest()
        #expect(ScrollHarness.folded(h.take()) == [.didScroll, .didScrollToTop])
        #expect(h.view.contentOffset == .zero)
        h.view.scrollsToTop = false
        try h.view.setContentOffset(Point(x: 0, y: 1200), animated: false, at: h.now)
        let refused = !h.view.scrollToTop(at: h.now)
        #expect(refused && !h.view.isAnimating)
    }

    /// Without animation it jumps, stopping the momentum under way, and still ends with
    /// didScrollToTop; the switch refuses it too.
    @Test func scrollToTopWithoutAnimationJumps() throws {
        var h = ScrollHarness()
        try h.view.setContentOffset(Point(x: 30, y: 1200), animated: false, at: h.now)
        try h.view.setContentOffset(Point(x: 30, y: 2000), animated: true, at: h.now)
        _ = h.take()
        let honoured = h.view.scrollToTop(animated: false, at: h.now)
        #expect(honoured)
        #expect(!h.view.isAnimating && h.view.contentOffset == Point(x: 30, y: 0))
        #expect(ScrollHarness.folded(h.take()) == [.didEndScrollingAnimation, .didScroll, .didScrollToTop])
        h.runToRest()
        #expect(h.take().isEmpty && h.view.contentOffset == Point(x: 30, y: 0))
        h.view.scrollsToTop = false
        try h.view.setContentOffset(Point(x: 0, y: 1200), animated: false, at: h.now)
        _ = h.take()
        let refused = !h.view.scrollToTop(animated: false, at: h.now)
        #expect(refused && h.view.contentOffset.y == 1200 && h.take().isEmpty)
    }

    @Test func pinchEndsInDidEndZooming() throws {
        var h = ScrollHarness(content: Size(width: 800, height: 600))
        try h.view.setZoomScaleLimits(minimum: 0.5, maximum: 3)
        h.down()
        let focus = Point(x: 200, y: 150)
        h.view.beginZooming(focus: focus, at: h.now)
        #expect(h.view.isZooming && h.view.isDragging && h.view.isScrolling)
        for _ in 0..<10 {
            h.advance(ms: 16)
            h.view.pinch(by: 1.05, focus: focus, at: h.now)
        }
        h.view.endZooming(at: h.now)
        #expect(!h.view.isZooming)
        h.advance(ms: 100)
        h.up()
        let scale = h.view.zoomScale
        #expect(abs(scale - Double.pow(1.05, 10)) < 1e-9)
        let names = ScrollHarness.folded(h.take())
        #expect(Array(names.prefix(2)) == [.willBeginDragging, .willBeginZooming])
        #expect(names.contains(.didZoom) && names.contains(.didScroll))
        #expect(names.suffix(3) == [.didEndZooming(atScale: scale),
                                    .willEndDragging(velocity: .zero, targetContentOffset: h.view.contentOffset),
                                    .didEndDragging(willDecelerate: false)])
        #expect(grammarViolation(names) == nil)
    }

    @Test(arguments: [true, false])
    func pinchPastMaximum(bouncesZoom: Bool) throws {
        var h = ScrollHarness(content: Size(width: 800, height: 600))
        try h.view.setZoomScaleLimits(minimum: 0.5, maximum: 2)
        h.view.bouncesZoom = bouncesZoom
        h.down()
        let focus = Point(x: 200, y: 150)
        h.view.beginZooming(focus: focus, at: h.now)
        var peak = 1.0
        for _ in 0..<20 {
            h.advance(ms: 16)
            h.view.pinch(by: 1.1, focus: focus, at: h.now)
            peak = max(peak, h.view.zoomScale)
        }
        h.view.endZooming(at: h.now)
        h.up()
        if bouncesZoom {
            #expect(peak > 2 && peak < 4) // rubber-banded past the maximum, never beyond 2×
            #expect(h.view.isZooming && h.view.isZoomBouncing && h.view.isScrolling)
            let duringBounce = h.take()
            #expect(!duringBounce.contains { if case .didEndZooming = $0 { true } else { false } })
            h.runToRest()
            // The bounce is the lift's deceleration (issue 21, part 7): it ends with the zoom.
            #expect(h.take().suffix(2) == [.didEndZooming(atScale: 2), .didEndDecelerating])
        } else {
            #expect(peak == 2)
            #expect(!h.view.isZoomBouncing && !h.view.isZooming)
            let events = h.take()
            #expect(events.contains(.didEndZooming(atScale: 2)))
        }
        #expect(h.view.zoomScale == 2)
        #expect(!h.view.isZooming && !h.view.isZoomBouncing && !h.view.isScrolling)
        #expect(h.view.clampedOffset(h.view.contentOffset) == h.view.contentOffset)
    }
}
