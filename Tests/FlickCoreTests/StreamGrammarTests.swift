@testable import FlickCore
import Testing

/// The stamped delegate grammar (issue 21, part 7): one hand-made bad stream per rule, which it
/// must reject, and streams of the real scroll view, which it must accept.
@Suite struct StreamGrammarTests {
    static func t(_ ms: Double) -> Instant { Instant(nanoseconds: Int64(ms * 1_000_000)) }
    static func state(_ y: Double, _ flags: ScrollFlags, scale: Double = 1) -> ScrollState {
        ScrollState(contentOffset: Point(x: 0, y: y), zoomScale: scale, flags: flags)
    }
    static let drag: ScrollFlags = [.tracking, .dragging, .scrolling]

    /// A drag that began at 0 ms: its `state` and `willBeginDragging`.
    static func dragging() -> DelegateGrammar {
        var g = DelegateGrammar()
        #expect(g.acceptState(state(0, [.tracking]), at: t(0)) == nil)
        #expect(g.acceptState(state(0, drag), at: t(10)) == nil)
        #expect(g.accept(.willBeginDragging, at: t(10), state: state(0, drag)) == nil)
        return g
    }

    @Test func timeGoingBackIsRejected() {
        var g = Self.dragging()
        #expect(g.accept(.didScroll, at: Self.t(20), state: Self.state(5, Self.drag)) == nil)
        #expect(g.acceptOther(at: Self.t(20)) == nil)
        #expect(g.acceptOther(at: Self.t(19)) == "5: event at 0.019 s, before the one before (0.02 s): time went back")
    }

    @Test func aDuplicateDidScrollIsRejected() {
        var g = Self.dragging()
        #expect(g.accept(.didScroll, at: Self.t(20), state: Self.state(5, Self.drag)) == nil)
        #expect(g.accept(.didScroll, at: Self.t(20), state: Self.state(5, Self.drag)) == "4: duplicate didScroll at (0, 5) × 1")
        // The same offset at another scale is a move.
        var h = Self.dragging()
        #expect(h.accept(.didScroll, at: Self.t(20), state: Self.state(5, Self.drag)) == nil)
        #expect(h.accept(.didScroll, at: Self.t(30), state: Self.state(5, Self.drag, scale: 1.5)) == nil)
    }

    @Test func motionAfterRestWasAnnouncedIsRejected() {
        // The zoom bounce as it was: the lift announced rest, then the bounce moved the view.
        var g = Self.dragging()
        let zooming = Self.drag.union(.zooming)
        #expect(g.acceptState(Self.state(0, zooming), at: Self.t(10)) == nil)
        #expect(g.accept(.willBeginZooming, at: Self.t(10), state: Self.state(0, zooming)) == nil)
        #expect(g.accept(.didZoom, at: Self.t(20), state: Self.state(50, zooming, scale: 5)) == nil)
        #expect(g.accept(.didScroll, at: Self.t(20), state: Self.state(50, zooming, scale: 5)) == nil)
        #expect(g.accept(.willEndDragging(velocity: .zero, targetContentOffset: Point(x: 0, y: 40)), at: Self.t(30),
                         state: Self.state(50, zooming, scale: 5)) == nil)
        #expect(g.accept(.didEndDragging(willDecelerate: false), at: Self.t(30), state: Self.state(50, zooming, scale: 5)) == nil)
        let bouncing: ScrollFlags = [.zooming, .zoomBouncing, .scrolling]
        #expect(g.acceptState(Self.state(50, bouncing, scale: 5), at: Self.t(30)) == nil)
        #expect(g.accept(.didZoom, at: Self.t(46), state: Self.state(45, bouncing, scale: 4.5))
                == "10: didZoom of a motion of the view's own after didEndDragging(willDecelerate: false) announced rest, with no willBeginDecelerating")
    }

    @Test func aFlagChangeWithoutAStateEventIsRejected() {
        var g = DelegateGrammar()
        #expect(g.acceptState(Self.state(0, [.tracking]), at: Self.t(0)) == nil)
        #expect(g.accept(.willBeginDragging, at: Self.t(10), state: Self.state(0, Self.drag))
                == "1: willBeginDragging with flags tracking+dragging+scrolling but the last state event said tracking")
    }

    @Test func aStateEventThatChangesNothingIsRejected() {
        var g = DelegateGrammar()
        #expect(g.acceptState(Self.state(0, [.tracking]), at: Self.t(0)) == nil)
        #expect(g.acceptState(Self.state(0, [.tracking]), at: Self.t(5)) == "1: state event with no change (tracking)")
    }

    @Test func flagsThatContradictTheMessagesAreRejected() {
        var g = DelegateGrammar()
        #expect(g.acceptState(Self.state(0, [.tracking, .scrolling]), at: Self.t(0)) == nil)
        #expect(g.accept(.willBeginDragging, at: Self.t(10), state: Self.state(0, [.tracking, .scrolling]))
                == "1: willBeginDragging while not dragging")
        var h = Self.dragging()
        #expect(h.accept(.didScroll, at: Self.t(20), state: Self.state(5, Self.drag)) == nil)
        #expect(h.accept(.willEndDragging(velocity: Vector(dx: 0, dy: 900), targetContentOffset: Point(x: 0, y: 300)),
                         at: Self.t(30), state: Self.state(5, Self.drag)) == nil)
        #expect(h.accept(.didEndDragging(willDecelerate: true), at: Self.t(30), state: Self.state(5, Self.drag)) == nil)
        #expect(h.acceptState(Self.state(5, [.scrolling]), at: Self.t(30)) == nil)
        #expect(h.accept(.willBeginDecelerating, at: Self.t(30), state: Self.state(5, [.scrolling]))
                == "7: willBeginDecelerating while not decelerating")
        var k = DelegateGrammar()
        #expect(k.acceptState(Self.state(0, [.decelerating, .scrolling]), at: Self.t(0)) == nil)
        #expect(k.accept(.willBeginDecelerating, at: Self.t(0), state: Self.state(0, [.decelerating, .scrolling])) == nil)
        #expect(k.accept(.didScroll, at: Self.t(16), state: Self.state(3, [.decelerating, .scrolling])) == nil)
        #expect(k.accept(.didEndDecelerating, at: Self.t(16), state: Self.state(3, [.decelerating, .scrolling]))
                == "3: didEndDecelerating while still decelerating")
    }

    @Test func instantStopsStayAllowedWhenAsked() {
        func stream(_ g: inout DelegateGrammar) -> [String?] {
            let moving: ScrollFlags = [.decelerating, .scrolling]
            return [g.acceptState(Self.state(0, moving), at: Self.t(0)),
                    g.accept(.willBeginDecelerating, at: Self.t(0), state: Self.state(0, moving)),
                    g.acceptState(Self.state(0, []), at: Self.t(0)),
                    g.accept(.didEndDecelerating, at: Self.t(0), state: Self.state(0, []))]
        }
        var strict = DelegateGrammar(), lenient = DelegateGrammar(allowingInstantStops: true)
        #expect(stream(&strict) == [nil, nil, nil, "3: didEndDecelerating with no didScroll since willBeginDecelerating"])
        #expect(stream(&lenient) == [nil, nil, nil, nil])
    }

    /// The scroll view's own reports, fed to the stamped grammar.
    static func violations(_ view: inout ScrollView, _ grammar: inout DelegateGrammar) -> [String] {
        view.takeReports().compactMap { report in
            switch report {
            case let .event(e, t, state): grammar.accept(e, at: t, state: state)
            case let .state(state, t): grammar.acceptState(state, at: t)
            case .transition, .diagnostic: nil
            }
        }
    }

    @Test func theScrollViewsZoomBounceIsAccepted() throws {
        var v = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 3200, height: 1920))
        try v.setZoomScaleLimits(minimum: 1, maximum: 4)
        var g = DelegateGrammar()
        let focus = Point(x: 400, y: 240)
        v.touchDown(at: Self.t(0))
        v.beginZooming(focus: focus, at: Self.t(0))
        for i in 1...30 { v.pinch(by: 1.07, focus: focus, at: Self.t(Double(i) * 8)) }
        v.endZooming(at: Self.t(250))
        v.release(velocity: .zero, at: Self.t(250))
        #expect(v.isDecelerating && v.isZoomBouncing)
        var frame = 250.0
        while v.isAnimating {
            frame += 16
            v.advance(to: Self.t(frame))
        }
        #expect(Self.violations(&v, &g) == [])
        #expect(g.isClosed && v.zoomScale == 4)
        // A programmatic zoom animation: one didZoom and one didScroll per frame, no duplicate.
        try v.setZoomScale(2, animated: true, at: Self.t(frame + 100))
        while v.isAnimating {
            frame += 16
            v.advance(to: Self.t(frame + 100))
        }
        #expect(Self.violations(&v, &g) == [])
    }
}
