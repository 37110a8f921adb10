import FlickTestSupport
import Testing
@testable import FlickCore

/// The table `### pointer` in docs/pointer.md is the pointer's machine: every edge
/// taken through the real recogniser with tracing on, nothing taken that it lacks, and its
/// diagram drawing the same edges.
@Suite struct PointerTableTests {
    let t0 = Instant.seconds(100)
    func at(_ ms: Int64) -> Instant { t0 + .milliseconds(ms) }

    /// Inputs (and touch frames) through a tracing recogniser; the pointer machine's steps.
    func run(_ inputs: [Either]) -> [Transition] {
        var view = try! ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 2000, height: 6000))
        try! view.setZoomScaleLimits(minimum: 1, maximum: 4)
        var recognizer = GestureRecognizer(scrollView: view)
        recognizer.tracing = true
        var outputs: [GestureOutput] = []
        for input in inputs {
            switch input {
            case let .pointer(p): outputs += recognizer.handle(p)
            case let .frame(f): outputs += recognizer.handle(f)
            }
        }
        return outputs.compactMap { if case let .transition(t) = $0.kind, t.machine == .pointer { t } else { nil } }
    }

    enum Either {
        case pointer(PointerInput)
        case frame(TouchFrame)
    }

    let scrolling: [Either] = [.pointer(.scroll(delta: Vector(dx: 0, dy: 10), at: .seconds(100))),
                               .pointer(.scroll(delta: Vector(dx: 0, dy: 10), at: .seconds(100) + .milliseconds(8)))]
    let pinching: [Either] = [.pointer(.pinchBegin(focus: Point(x: 300, y: 200), at: .seconds(100))),
                              .pointer(.pinch(scale: 1.5, focus: Point(x: 300, y: 200), at: .seconds(100) + .milliseconds(10)))]
    var touch: Either {
        .frame(TouchFrame(time: at(30), contacts: [Contact(id: ContactID(1), position: Point(x: 10, y: 10))], began: [ContactID(1)]))
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        var seen: [Transition] = []
        seen += run(scrolling + [.pointer(.scrollEnd(at: at(20)))])
        seen += run(scrolling + [.pointer(.cancel(at: at(20)))])
        seen += run(scrolling + [touch])
        seen += run(pinching + [.pointer(.pinchEnd(cancelled: false, at: at(20)))])
        seen += run(pinching + [.pointer(.cancel(at: at(20)))])
        seen += run(pinching + [touch])
        // What a state does not expect leaves it alone.
        seen += run([.pointer(.wheel(steps: Vector(dx: 0, dy: 1), at: at(0))), .pointer(.scrollEnd(at: at(1))), .pointer(.pinchEnd(cancelled: true, at: at(2)))])
        seen += run(scrolling + [.pointer(.wheel(steps: Vector(dx: 0, dy: 1), at: at(20))), .pointer(.pinchBegin(focus: .zero, at: at(21)))])
        seen += run(pinching + [.pointer(.scroll(delta: Vector(dx: 1, dy: 1), at: at(20))), .pointer(.scrollEnd(at: at(21)))])
        let table = try StateTable.load(.pointer, from: "pointer.md")
        let problems = table.disagreements(with: seen)
        #expect(problems.isEmpty, "\(problems)")
        let diagram = try StateTable.diagramEdges(inDocsFile: "pointer.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }

    @Test func aFingerOwnsTheViewAgainstThePointer() {
        // A finger down first: the touchpad's scroll and pinch do not begin.
        let steps = run([touch, .pointer(.scroll(delta: Vector(dx: 0, dy: 10), at: at(40))),
                         .pointer(.pinchBegin(focus: .zero, at: at(41)))])
        #expect(steps.isEmpty, "\(steps)")
    }
}

/// What the pointer's gestures do to the view beyond their steps.
@Suite struct PointerGestureTests {
    @Test func aTouchpadPinchPastTheLimitBouncesBackAsAPinchDoes() throws {
        var view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 2000, height: 6000))
        try view.setZoomScaleLimits(minimum: 1, maximum: 4)
        var recognizer = GestureRecognizer(scrollView: view)
        let t0 = Instant.seconds(10), focus = Point(x: 300, y: 200)
        var outputs = recognizer.handle(.pinchBegin(focus: focus, at: t0))
        for (i, scale) in [2.0, 4.0, 6.0].enumerated() {
            outputs += recognizer.handle(.pinch(scale: scale, focus: focus, at: t0 + .milliseconds(10 * Int64(i + 1))))
        }
        // Past the maximum the rubber band gives less than asked, but more than the limit.
        #expect(recognizer.scrollView.zoomScale > 4)
        outputs += recognizer.handle(.pinchEnd(cancelled: false, at: t0 + .milliseconds(40)))
        #expect(recognizer.scrollView.isZoomBouncing)
        outputs += recognizer.advance(to: t0 + .seconds(2))
        #expect(recognizer.scrollView.zoomScale == 4)
        let events = outputs.compactMap { if case let .scroll(e) = $0.kind { e } else { nil } }
        #expect(events.contains(.willBeginDecelerating))
        #expect(events.last == .didEndDecelerating || events.contains(.didEndZooming(atScale: 4)), "\(events)")
    }

    @Test func aWheelTurnDuringAFingersDragDoesNothing() throws {
        let view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 2000, height: 6000))
        var recognizer = GestureRecognizer(scrollView: view)
        let t0 = Instant.seconds(10), finger = ContactID(1)
        _ = recognizer.handle(TouchFrame(time: t0, contacts: [Contact(id: finger, position: Point(x: 100, y: 300))], began: [finger]))
        let before = recognizer.scrollView.contentOffset
        _ = recognizer.handle(.wheel(steps: Vector(dx: 0, dy: 3), at: t0 + .milliseconds(10)))
        _ = recognizer.advance(to: t0 + .seconds(1))
        #expect(recognizer.scrollView.contentOffset == before)
    }
}
