import Testing
@testable import FlickCore

/// Issue 21, parts 1 and 5 in the model: the programmatic animation's curve and duration
/// (`ScrollPhysics.animationCurve`, `animationSpeed`), and zooms about a point (the double
/// tap's), on the virtual clock.
@Suite struct AnimationTimingTests {
    @Test func theCurvesAtKnownPoints() {
        #expect(AnimationCurve.easeInOut.progress(0.25) == 0.0625)
        #expect(AnimationCurve.easeInOut.progress(0.5) == 0.5)
        #expect(AnimationCurve.easeInOut.progress(0.75) == 0.9375)
        #expect(AnimationCurve.linear.progress(0.3) == 0.3)
        #expect(AnimationCurve.easeOut.progress(0.5) == 0.875)
        for curve in AnimationCurve.allCases {
            #expect(curve.progress(0) == 0 && curve.progress(1) == 1, "\(curve)")
            // Outside the animation's time it holds its ends.
            #expect(curve.progress(-0.5) == 0 && curve.progress(1.5) == 1, "\(curve)")
            let samples = (0...100).map { curve.progress(Double($0) / 100) }
            #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 < $1 }, "\(curve) is not increasing")
        }
    }

    @Test func aSpeedMakesTheDurationFollowTheDistanceWithinItsLimits() throws {
        var physics = ScrollPhysics()
        #expect(physics.scrollAnimationDuration(distance: 10) == 0.3 && physics.scrollAnimationDuration(distance: 5000) == 0.3)
        physics.animationSpeed = 1000
        #expect(physics.scrollAnimationDuration(distance: 500) == 0.5)
        #expect(physics.scrollAnimationDuration(distance: 20) == 0.1)
        #expect(physics.scrollAnimationDuration(distance: 10_000) == 2)
        try physics.validate()
        physics.animationSpeed = -1
        #expect(throws: ScrollViewError.self) { try physics.validate() }
        physics.animationSpeed = .infinity
        #expect(throws: ScrollViewError.self) { try physics.validate() }
    }

    /// A view whose programmatic scrolls run linearly at 1000 px/s.
    static func constantRate() throws -> ScrollHarness {
        var h = ScrollHarness(bounds: Size(width: 400, height: 300), content: Size(width: 1600, height: 3000))
        var physics = ScrollPhysics()
        physics.animationCurve = .linear
        physics.animationSpeed = 1000
        try h.view.setPhysics(physics)
        try h.view.setZoomScaleLimits(minimum: 1, maximum: 4)
        return h
    }

    @Test func aConstantRateScrollIsExactAtKnownTimes() throws {
        var h = try Self.constantRate()
        let start = h.now
        try h.view.setContentOffset(Point(x: 0, y: 500), animated: true, at: start)
        for ms in [100.0, 250, 499] {
            h.view.advance(to: start + .seconds(double: ms / 1000))
            #expect(abs(h.view.contentOffset.y - ms) < 1e-9, "at \(ms) ms: \(h.view.contentOffset)")
            #expect(h.view.isScrollAnimating)
        }
        h.view.advance(to: start + .milliseconds(500))
        #expect(h.view.contentOffset == Point(x: 0, y: 500) && !h.view.isAnimating)
        #expect(ScrollHarness.names(h.take()) == ["didScroll", "didEndScrollingAnimation"])
        // A longer way takes longer at the same speed; scroll to top is a scroll too.
        h.now = start + .milliseconds(500)
        let back = h.now
        _ = h.view.scrollToTop(at: back)
        h.view.advance(to: back + .milliseconds(300))
        #expect(abs(h.view.contentOffset.y - 200) < 1e-9)
        h.view.advance(to: back + .milliseconds(500))
        #expect(h.view.contentOffset.y == 0 && ScrollHarness.names(h.take()) == ["didScroll", "didScrollToTop"])
    }

    @Test func aZoomKeepsTheFixedDurationWhateverTheSpeed() throws {
        var h = try Self.constantRate()
        let start = h.now
        try h.view.setZoomScale(2, animated: true, at: start)
        h.view.advance(to: start + .milliseconds(299))
        #expect(h.view.isZooming && h.view.zoomScale < 2)
        h.view.advance(to: start + .milliseconds(300))
        #expect(!h.view.isAnimating && h.view.zoomScale == 2)
    }

    /// The content under `focus` on every frame of an animated zoom about it, in screen px from
    /// `focus`; the worst.
    static func worstSlip(_ h: inout ScrollHarness, about focus: Point) -> Double {
        let v = h.view
        let c = Point(x: (v.contentOffset.x + focus.x) / v.zoomScale, y: (v.contentOffset.y + focus.y) / v.zoomScale)
        var worst = 0.0
        while h.view.isAnimating {
            h.advance(ms: 1000.0 / 60)
            h.view.advance(to: h.now)
            let s = h.view.zoomScale, o = h.view.contentOffset
            worst = max(worst, Point(x: c.x * s - o.x, y: c.y * s - o.y).distance(to: focus))
        }
        return worst
    }

    @Test func anAnchoredZoomKeepsTheContentUnderThePointOnEveryFrame() throws {
        var h = try Self.constantRate()
        try h.view.setContentOffset(Point(x: 300, y: 700), animated: false, at: h.now)
        _ = h.take()
        let focus = Point(x: 90, y: 250)
        try h.view.setZoomScale(3, anchoredAt: focus, animated: true, at: h.now)
        #expect(Self.worstSlip(&h, about: focus) < 1e-9)
        #expect(h.view.zoomScale == 3)
        #expect(Self.folded(h.take()) == ["willBeginZooming", "didZoom", "didScroll", "didEndZooming", "didEndScrollingAnimation"])
        // And back out about another point.
        let other = Point(x: 350, y: 40)
        try h.view.setZoomScale(1.5, anchoredAt: other, animated: true, at: h.now)
        #expect(Self.worstSlip(&h, about: other) < 1e-9)
        // setZoomScale(_:animated:) is about the viewport's centre, on every frame too.
        try h.view.setZoomScale(2.5, animated: true, at: h.now)
        #expect(Self.worstSlip(&h, about: Point(x: 200, y: 150)) < 1e-9)
    }

    @Test func aClampedAnchoredZoomStaysInsideTheBoundsOnEveryFrame() throws {
        var h = try Self.constantRate()
        try h.view.setZoomScale(2, anchoredAt: .zero, animated: false, at: h.now)
        try h.view.setContentOffset(Point(x: 100, y: 50), animated: false, at: h.now)
        // Out to 1 about (380, 280): keeping it would need the offset (-140, -115); the end is
        // clamped to (0, 0), and the zoom is about the point start and end share, (100, 50).
        try h.view.setZoomScale(1, anchoredAt: Point(x: 380, y: 280), animated: true, at: h.now)
        var frames = 0
        while h.view.isAnimating {
            h.advance(ms: 1000.0 / 60)
            h.view.advance(to: h.now)
            frames += 1
            #expect(Self.inBounds(h.view), "\(h.view.contentOffset)")
            let c = Point(x: 100, y: 50), s = h.view.zoomScale, o = h.view.contentOffset
            #expect(Point(x: c.x * s - o.x, y: c.y * s - o.y).distance(to: Point(x: 100, y: 50)) < 1e-9)
        }
        #expect(frames >= 17 && h.view.zoomScale == 1 && h.view.contentOffset == .zero)
    }

    @Test func anAnchorNeedingNoClampIsKeptThroughAnAnimationThatIsStopped() throws {
        var h = try Self.constantRate()
        let focus = Point(x: 300, y: 100)
        let start = h.now
        try h.view.setZoomScale(2, anchoredAt: focus, animated: true, at: start)
        h.view.advance(to: start + .milliseconds(100))
        _ = h.take()
        // A touch stops it where it is, with its end messages, the point still under the finger.
        h.advance(ms: 150)
        h.down()
        let s = h.view.zoomScale, o = h.view.contentOffset
        #expect(s > 1 && s < 2)
        #expect(Point(x: focus.x * s - o.x, y: focus.y * s - o.y).distance(to: focus) < 1e-9)
        #expect(Self.folded(h.take()) == ["didZoom", "didScroll", "didEndZooming", "didEndScrollingAnimation"])
        #expect(!h.view.isAnimating)
    }

    /// The names with each run of `didZoom`/`didScroll` (a zoom alternates them) as its first two.
    static func folded(_ events: [ScrollEvent]) -> [String] {
        var names: [String] = []
        for name in events.map(\.name) {
            let moving = ["didZoom", "didScroll"]
            if moving.contains(name), names.last == name || (names.count >= 2 && names.suffix(2).allSatisfy(moving.contains)) {
                continue
            }
            names.append(name)
        }
        return names
    }

    /// Whether the view's offset lies within its bounds at its scale (to a nanopixel).
    static func inBounds(_ v: ScrollView) -> Bool {
        let b = v.offsetBounds, o = v.contentOffset
        return o.x >= b.minX - 1e-9 && o.x <= b.maxX + 1e-9 && o.y >= b.minY - 1e-9 && o.y <= b.maxY + 1e-9
    }
}
