@testable import FlickCore
import Testing

/// What the journal learns beyond single messages (bounce, page change) and the scroll-to-top
/// strip.
@Suite struct KioskGestureTests {
    /// A drag of `dy` px over `ms` milliseconds in 8 ms steps, from (400, 240).
    static func drag(_ h: inout GestureHarness, dy: Double, dx: Double = 0, ms: Double, from: (Double, Double) = (400, 240)) {
        h.down(1, from.0, from.1); h.send()
        let steps = Int(ms / 8)
        for i in 1...steps {
            h.advance(ms: 8)
            h.move(1, from.0 + dx * Double(i) / Double(steps), from.1 + dy * Double(i) / Double(steps)); h.send()
        }
        h.advance(ms: 8)
        h.up(1); h.send()
    }

    @Test func pullingPastTheTopBouncesOnceWithTheDistance() {
        var h = GestureHarness()
        Self.drag(&h, dy: 200, ms: 400) // downwards at the top: rubber band
        h.settle()
        let bounces = GestureHarness.gestures(h.take()).compactMap { g -> (Edge, Double)? in
            if case let .bounce(edge, distance) = g { (edge, distance) } else { nil }
        }
        #expect(bounces.count == 1)
        #expect(bounces.first?.0 == .top && (bounces.first?.1 ?? 0) > 20 && (bounces.first?.1 ?? 0) < 200)
        #expect(h.view.contentOffset.y == 0)
    }

    @Test func aFlickInsideTheContentIsNoBounce() {
        var h = GestureHarness(scroll: { try $0.setContentOffset(Point(x: 0, y: 2000), animated: false, at: .zero) })
        Self.drag(&h, dy: -120, ms: 80)
        h.settle()
        let gestures = GestureHarness.gestures(h.take())
        #expect(gestures.contains { if case .flick = $0 { true } else { false } })
        #expect(!gestures.contains { if case .bounce = $0 { true } else { false } }, "\(gestures)")
    }

    @Test func pagingToTheNextPageIsAPageChange() {
        var h = GestureHarness(content: Size(width: 800 * 3, height: 480), scroll: { $0.isPagingEnabled = true })
        Self.drag(&h, dy: 0, dx: -300, ms: 160, from: (600, 240))
        h.settle()
        let gestures = GestureHarness.gestures(h.take())
        #expect(gestures.contains(.pageChange(from: 0, to: 1)), "\(gestures)")
        #expect(h.view.contentOffset.x == 800)
        // A drag that springs back to the same page is none.
        Self.drag(&h, dy: 0, dx: -100, ms: 800, from: (600, 240))
        h.settle()
        #expect(!GestureHarness.gestures(h.take()).contains { if case .pageChange = $0 { true } else { false } })
    }

    @Test func aTapInTheTopStripScrollsToTopAndNeverReachesTheContent() {
        var h = GestureHarness(configure: { $0.scrollToTopStripHeight = 20 },
                               scroll: { try $0.setContentOffset(Point(x: 0, y: 1500), animated: false, at: .zero) })
        h.down(1, 300, 10); h.send()
        h.wait(ms: 200) // past the content-touch delay: still nothing for the content
        h.up(1); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty)
        #expect(GestureHarness.gestures(out) == [.scrollToTop])
        #expect(GestureHarness.scroll(out).last == .didScrollToTop && h.view.contentOffset.y == 0)
    }

    @Test func belowTheStripOrWithoutAStripATapIsForTheContent() {
        var h = GestureHarness(configure: { $0.scrollToTopStripHeight = 20 },
                               scroll: { try $0.setContentOffset(Point(x: 0, y: 1500), animated: false, at: .zero) })
        h.down(1, 300, 30); h.send()
        h.advance(ms: 90); h.up(1); h.send()
        h.settle()
        #expect(GestureHarness.taps(h.take()) == 1 && h.view.contentOffset.y == 1500)

        var off = GestureHarness(scroll: { try $0.setContentOffset(Point(x: 0, y: 1500), animated: false, at: .zero) })
        off.down(1, 300, 10); off.send()
        off.advance(ms: 90); off.up(1); off.send()
        off.settle()
        #expect(GestureHarness.taps(off.take()) == 1 && off.view.contentOffset.y == 1500)
    }

    @Test func aDragFromTheStripStillScrolls() {
        var h = GestureHarness(configure: { $0.scrollToTopStripHeight = 20 },
                               scroll: { try $0.setContentOffset(Point(x: 0, y: 1500), animated: false, at: .zero) })
        Self.drag(&h, dy: 200, ms: 800, from: (300, 10))
        h.settle()
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty)
        #expect(!GestureHarness.gestures(out).contains(.scrollToTop))
        #expect(h.view.contentOffset.y < 1310 && h.view.contentOffset.y > 1000) // dragged 200 px, a little momentum
    }
}

/// Found by the gesture storm (seeds 2 and 3, an hour each): fingers jumping apart at the edge
/// of a zoomed-in view pushed the offset a whole screen past the content, and the zoom bounce
/// then showed background on its way back.
@Suite struct PinchAtTheEdgeTests {
    @Test func aWildPinchAtTheEdgeNeverShowsAScreenOfBackground() {
        var h = GestureHarness(content: Size(width: 2400, height: 6000), scroll: {
            try $0.setZoomScaleLimits(minimum: 0.5, maximum: 4)
            try $0.setZoomScale(4, animated: false, at: .zero)
            try $0.setContentOffset($0.clampedOffset(Point(x: 1e9, y: 1e9)), animated: false, at: .zero)
        })
        func worst(_ v: ScrollView) -> Double {
            let c = v.clampedOffset(v.contentOffset)
            return max(abs(v.contentOffset.x - c.x) / v.boundsSize.width, abs(v.contentOffset.y - c.y) / v.boundsSize.height)
        }
        var peak = 0.0
        h.down(1, 780, 460); h.down(2, 760, 440); h.send()
        for (a, b) in [((700.0, 400.0), (790.0, 470.0)), ((100, 50), (795, 475)), ((0, 0), (799, 479))] {
            h.advance(ms: 8)
            h.move(1, a.0, a.1); h.move(2, b.0, b.1); h.send()
            peak = max(peak, worst(h.view))
        }
        h.advance(ms: 8); h.up(1); h.up(2); h.send()
        for _ in 0..<60 { h.wait(ms: 16); peak = max(peak, worst(h.view)) }
        #expect(h.view.zoomScale == 4)
        #expect(peak < 0.7, "the content went \(peak) screens past its edge")
    }
}
