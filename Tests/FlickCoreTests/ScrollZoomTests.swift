import Testing
@testable import FlickCore

@Suite struct ScrollZoomTests {
    func zoomable() throws -> ScrollHarness {
        var h = ScrollHarness(bounds: Size(width: 800, height: 600), content: Size(width: 1600, height: 1200))
        try h.view.setZoomScaleLimits(minimum: 0.5, maximum: 4)
        return h
    }

    /// The content point under view point `v`.
    func contentPoint(_ view: ScrollView, under v: Point) -> Point {
        Point(x: (v.x + view.contentOffset.x) / view.zoomScale, y: (v.y + view.contentOffset.y) / view.zoomScale)
    }

    @Test func focusPointStaysUnderTheFingers() throws {
        var h = try zoomable()
        try h.view.setContentOffset(Point(x: 300, y: 200), animated: false, at: h.now)
        let focus = Point(x: 420, y: 260)
        let anchor = contentPoint(h.view, under: focus)
        h.down()
        h.view.beginZooming(focus: focus, at: h.now)
        for factor in [1.1, 1.2, 1.3, 0.9, 0.8, 1.5, 1.01] {
            h.advance(ms: 16)
            h.view.pinch(by: factor, focus: focus, at: h.now)
            let now = contentPoint(h.view, under: focus)
            #expect(now.distance(to: anchor) * h.view.zoomScale <= 0.5)
        }
    }

    @Test func contentSizeScalesWithZoom() throws {
        var h = try zoomable()
        try h.view.setZoomScale(2, animated: false, at: h.now)
        #expect(h.view.contentSize == Size(width: 3200, height: 2400))
        #expect(h.view.maximumOffset(.horizontal) == 2400)
        try h.view.setZoomScale(0.5, animated: false, at: h.now)
        #expect(h.view.contentSize == Size(width: 800, height: 600))
    }

    @Test func offsetsStayValidAfterZoomingOut() throws {
        var h = try zoomable()
        try h.view.setZoomScale(3, animated: false, at: h.now)
        try h.view.setContentOffset(Point(x: 4000, y: 3000), animated: false, at: h.now)
        h.down()
        let focus = Point(x: 700, y: 500)
        h.view.beginZooming(focus: focus, at: h.now)
        for _ in 0..<30 { h.advance(ms: 16); h.view.pinch(by: 0.85, focus: focus, at: h.now) }
        h.view.endZooming(at: h.now)
        h.up()
        h.runToRest()
        #expect(h.view.zoomScale == 0.5)
        #expect(h.view.clampedOffset(h.view.contentOffset) == h.view.contentOffset)
        #expect(h.view.contentOffset == .zero)
        #expect(grammarViolation(h.take()) == nil)
    }

    @Test func zoomToRectCentresIt() throws {
        var h = try zoomable()
        try h.view.zoom(to: Rect(x: 600, y: 400, width: 200, height: 150), animated: true, at: h.now)
        #expect(h.view.isScrollAnimating && h.view.isZooming)
        h.runToRest()
        #expect(h.view.zoomScale == 4)
        #expect(h.view.contentOffset == Point(x: 700 * 4 - 400, y: 475 * 4 - 300))
        let events = ScrollHarness.folded(h.take())
        #expect(events.first == .willBeginZooming)
        #expect(events.suffix(2) == [.didEndZooming(atScale: 4), .didEndScrollingAnimation])
        #expect(grammarViolation(events) == nil)
    }

    @Test func setZoomScaleClampsToTheLimits() throws {
        var h = try zoomable()
        try h.view.setZoomScale(10, animated: false, at: h.now)
        #expect(h.view.zoomScale == 4)
        try h.view.setZoomScale(0.01, animated: false, at: h.now)
        #expect(h.view.zoomScale == 0.5)
    }

    @Test func liftingOneFingerAfterAPinchDoesNotJump() throws {
        var h = try zoomable()
        h.down()
        let focus = Point(x: 400, y: 300)
        h.view.beginZooming(focus: focus, at: h.now)
        for _ in 0..<5 { h.advance(ms: 16); h.view.pinch(by: 1.1, focus: focus, at: h.now) }
        h.view.endZooming(at: h.now)
        let before = h.view.contentOffset
        h.move(dx: -1)
        #expect(h.view.contentOffset.distance(to: before) <= 1.000001)
        #expect(h.view.isDragging && !h.view.isZooming)
    }
}
