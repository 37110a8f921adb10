import FlickTestSupport
import Testing
@testable import FlickCore

/// The tables `### scroll` and `### zoom` in docs/scroll-phase.md are the scroll view's two
/// machines: every edge taken through a real `ScrollView` with tracing on, nothing taken that
/// they lack, and the diagrams drawing the same edges.
@Suite struct ScrollTableTests {
    let t0 = Instant.seconds(10)

    /// A scroll view over tall content (or content that fits), zoom 1…3, tracing.
    func view(fits: Bool = false) -> ScrollView {
        var v = try! ScrollView(boundsSize: Size(width: 400, height: 300),
                                contentSize: fits ? Size(width: 400, height: 300) : Size(width: 400, height: 3000))
        try! v.setZoomScaleLimits(minimum: 1, maximum: 3)
        v.tracing = true
        return v
    }

    func ms(_ n: Int64) -> Instant { t0 + .milliseconds(n) }

    /// The transitions a script made, in order.
    func run(_ v: inout ScrollView, _ script: (inout ScrollView) -> Void) -> [Transition] {
        script(&v)
        return v.takeReports().compactMap { if case let .transition(t) = $0 { t } else { nil } }
    }

    /// A flick that decelerates (`v` after it decelerates until about `ms(400)` or later).
    func flick(_ v: inout ScrollView) {
        v.touchDown(at: ms(0))
        v.drag(by: Vector(dx: 0, dy: -40), at: ms(10))
        v.release(velocity: Vector(dx: 0, dy: -2000), at: ms(20))
    }

    /// A pinch past the maximum while dragging; the fingers stay down.
    func pinchPastTheMaximum(_ v: inout ScrollView) {
        v.touchDown(at: ms(0))
        v.beginZooming(focus: Point(x: 200, y: 150), at: ms(10))
        v.pinch(by: 5, focus: Point(x: 200, y: 150), at: ms(20))
    }

    @Test func everyEdgeOfBothTablesAndNothingElse() throws {
        var seen: [Transition] = []
        func script(fits: Bool = false, _ body: (inout ScrollView) -> Void) {
            var v = view(fits: fits)
            seen += run(&v, body)
        }
        // scroll
        script { v in v.touchDown(at: ms(0)); v.release(velocity: .zero, at: ms(10)) }
        script { v in v.touchDown(at: ms(0)); v.drag(by: Vector(dx: 0, dy: -20), at: ms(10)); v.release(velocity: .zero, at: ms(20)) }
        script { v in
            try? v.setContentOffset(Point(x: 0, y: -80), animated: false, at: ms(0))
            v.touchDown(at: ms(10)); v.release(velocity: .zero, at: ms(20))          // tracking → decelerating: bounce back
            v.advance(to: ms(5000))                                                    // decelerating → idle on tick
        }
        script { v in flick(&v); v.touchDown(at: ms(100)); v.release(velocity: .zero, at: ms(110)) }   // → tracking
        script { v in
            // A tap's lift out of bounds: idle until the tap has acted, then settle bounces back.
            try? v.setContentOffset(Point(x: 0, y: -80), animated: false, at: ms(0))
            v.touchDown(at: ms(10)); v.liftForTap(at: ms(20)); v.settle(at: ms(20))
        }
        script { v in flick(&v); try? v.setContentOffset(.zero, animated: true, at: ms(100)); v.advance(to: ms(1000)) }
        script { v in flick(&v); v.stopScrollingAndZooming(at: ms(100)) }
        script { v in try? v.setContentOffset(Point(x: 0, y: 500), animated: true, at: ms(0)); v.touchDown(at: ms(100)) }
        script { v in try? v.setContentOffset(Point(x: 0, y: 500), animated: true, at: ms(0)); v.stopScrollingAndZooming(at: ms(100)) }
        // zoom, and scroll's edges into animating on a release while zooming
        script { v in pinchPastTheMaximum(&v); v.endZooming(at: ms(30)); v.release(velocity: .zero, at: ms(40)) }
        script { v in pinchPastTheMaximum(&v); v.release(velocity: .zero, at: ms(30)); v.advance(to: ms(2000)) }
        script { v in
            pinchPastTheMaximum(&v)
            v.endZooming(at: ms(30))
            v.beginZooming(focus: Point(x: 200, y: 150), at: ms(40))                   // awaitingBounce → pinching
            v.pinch(by: 0.2, focus: Point(x: 200, y: 150), at: ms(50))
            v.endZooming(at: ms(60))                                                   // within the limits: → idle
            v.release(velocity: .zero, at: ms(70))
        }
        script(fits: true) { v in
            // Nothing can scroll: the pinch's drag leaves it tracking, so the lift is tracking's.
            pinchPastTheMaximum(&v); v.endZooming(at: ms(30)); v.release(velocity: .zero, at: ms(40))
        }
        script { v in
            // A touch catches the zoom bounce; the lift resumes it; a stop ends a caught one.
            pinchPastTheMaximum(&v); v.release(velocity: .zero, at: ms(30))
            v.touchDown(at: ms(60)); v.release(velocity: .zero, at: ms(70))
            v.stopScrollingAndZooming(at: ms(80))
        }
        // Bugs: logged, the state stays.
        script { v in v.drag(by: Vector(dx: 0, dy: 5), at: ms(0)); v.release(velocity: .zero, at: ms(10)) }
        script { v in pinchPastTheMaximum(&v); v.beginZooming(focus: Point(x: 1, y: 1), at: ms(30)) }
        for (machine, name) in [(Transition.Machine.scroll, "scroll"), (.zoom, "zoom")] {
            let table = try StateTable.load(machine, from: "scroll-phase.md")
            #expect(table.machine == name)
            let problems = table.disagreements(with: seen)
            #expect(problems.isEmpty, "\(problems)")
        }
        let scroll = try StateTable.load(.scroll, from: "scroll-phase.md"), zoom = try StateTable.load(.zoom, from: "scroll-phase.md")
        let diagram = try StateTable.diagramEdges(inDocsFile: "scroll-phase.md", states: scroll.states + zoom.states)
        let tables = scroll.edges.union(zoom.edges).filter { $0.from != $0.to }
        #expect(diagram == tables, "\(diagram.symmetricDifference(tables))")
    }
}
