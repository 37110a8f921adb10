import Testing
@testable import FlickCore

/// One check per edge of the diagram in docs/tap-drag-classifier.md.
@Suite struct TapDragClassifierTests {
    typealias C = TapDragClassifier
    let o = Point(x: 100, y: 100)
    let near = Point(x: 105, y: 100)  // within the 18 px slop
    let far = Point(x: 100, y: 130)   // 30 px: 12 px beyond it
    let t0 = Instant.seconds(10)

    func classifier(delay: Duration = .milliseconds(150), canCancel: Bool = true) -> C {
        var config = GestureConfiguration()
        config.contentTouchDelay = delay
        config.canCancelContentTouches = canCancel
        return C(configuration: config)
    }

    /// Drives `events` from idle and returns the final state, the last step's actions and the deadline.
    func run(_ c: inout C, _ events: [C.Event]) -> [C.Action] {
        var last: [C.Action] = []
        for (i, e) in events.enumerated() {
            let r = c.handle(e, at: t0 + .milliseconds(Int64(i) * 10))
            #expect(!r.invalid, "\(e) in \(c.state)")
            last = r.actions
        }
        return last
    }

    @Test func idleDownArmsTheDelay() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false)]) == [])
        #expect(c.state == .pending(origin: o, since: t0) && c.deadline == t0 + .milliseconds(150))
    }

    @Test func idleDownWithZeroDelayDeliversAtOnce() {
        var c = classifier(delay: .zero)
        #expect(run(&c, [.down(o, stopsMotion: false)]) == [.contentDown(o)])
        #expect(c.state == .delivered(origin: o, since: t0) && c.deadline == t0 + .milliseconds(500))
    }

    @Test func idleDownWhileMovingCatches() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: true)]) == [])
        #expect(c.state == .catching(origin: o) && c.deadline == nil)
    }

    @Test func pendingEdges() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .move(near)]) == [])
        #expect(c.state == .pending(origin: o, since: t0))
        #expect(run(&c, [.move(far)]) == [.beginDrag(excess: Vector(dx: 0, dy: 12))])
        #expect(c.state == .dragging && c.deadline == nil)

        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .timer]) == [.contentDown(o)])
        #expect(c.state == .delivered(origin: o, since: t0) && c.deadline == t0 + .milliseconds(500))

        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .lift(near)]) == [.quickTap(origin: o, lift: near)])
        #expect(c.state == .idle && c.deadline == nil)

        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .cancel]) == [])
        #expect(c.state == .idle && c.deadline == nil)

        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .secondFinger]) == [])
        #expect(c.state == .dragging && c.deadline == nil)
    }

    @Test func deliveredEdges() {
        let start: [C.Event] = [.down(o, stopsMotion: false), .timer]
        var c = classifier()
        #expect(run(&c, start + [.move(near)]) == [])
        #expect(c.state == .delivered(origin: o, since: t0))
        #expect(run(&c, [.move(far)]) == [.contentCancel, .beginDrag(excess: Vector(dx: 0, dy: 12))])
        #expect(c.state == .dragging)

        c = classifier(canCancel: false)
        #expect(run(&c, start + [.move(far)]) == [])
        #expect(c.state == .owned(origin: o) && c.deadline == nil)

        c = classifier()
        #expect(run(&c, start + [.timer]) == [.longPress(o)])
        #expect(c.state == .longPressed(origin: o) && c.deadline == nil)

        c = classifier()
        #expect(run(&c, start + [.lift(near)]) == [.contentUp(near), .tap(near)])
        #expect(c.state == .idle)

        c = classifier()
        #expect(run(&c, start + [.cancel]) == [.contentCancel])
        #expect(c.state == .idle)

        c = classifier()
        #expect(run(&c, start + [.secondFinger]) == [.contentCancel])
        #expect(c.state == .dragging)

        c = classifier(canCancel: false)
        #expect(run(&c, start + [.secondFinger]) == [])
        #expect(c.state == .owned(origin: o))
    }

    @Test func longPressedAndOwnedEdges() {
        for (start, state) in [([C.Event.down(o, stopsMotion: false), .timer, .timer], C.State.longPressed(origin: o))] {
            var c = classifier()
            #expect(run(&c, start + [.move(far), .secondFinger]) == [])
            #expect(c.state == state)
            #expect(run(&c, [.lift(far)]) == [.contentUp(far)])
            c = classifier()
            #expect(run(&c, start + [.cancel]) == [.contentCancel])
        }
        var c = classifier(canCancel: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .move(far), .move(o), .secondFinger]) == [])
        #expect(c.state == .owned(origin: o))
        #expect(run(&c, [.lift(o)]) == [.contentUp(o)])
        c = classifier(canCancel: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .move(far), .cancel]) == [.contentCancel])
    }

    @Test func catchingAndDraggingEdges() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: true), .move(near)]) == [])
        #expect(run(&c, [.move(far)]) == [.beginDrag(excess: Vector(dx: 0, dy: 12))])
        #expect(run(&c, [.move(o), .secondFinger]) == [])
        #expect(c.state == .dragging)
        #expect(run(&c, [.lift(o)]) == [] && c.state == .idle)
        for end in [C.Event.lift(o), .cancel, .secondFinger] {
            c = classifier()
            #expect(run(&c, [.down(o, stopsMotion: true), end]) == [])
            #expect(c.state == (end == .secondFinger ? .dragging : .idle))
        }
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .move(far), .cancel]) == [] && c.state == .idle)
    }

    @Test func impossiblePairsAreReportedAndChangeNothing() {
        var c = classifier()
        #expect(c.handle(.lift(o), at: t0).invalid && c.state == .idle)
        #expect(c.handle(.timer, at: t0).invalid)
        _ = c.handle(.down(o, stopsMotion: false), at: t0)
        let r = c.handle(.down(o, stopsMotion: false), at: t0)
        #expect(r.invalid && r.actions.isEmpty && c.state == .pending(origin: o, since: t0))
    }
}
