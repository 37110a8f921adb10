import FlickTestSupport
import Testing
@testable import FlickCore

/// One check per edge of the diagram in docs/tap-drag-classifier.md.
@Suite struct TapDragClassifierTests {
    typealias C = TapDragClassifier
    let o = Point(x: 100, y: 100)
    let near = Point(x: 105, y: 100)  // within the 18 px slop
    let far = Point(x: 100, y: 130)   // 30 px: 12 px beyond it
    let t0 = Instant.seconds(10)

    func classifier(delay: Duration = .milliseconds(150), canCancel: Bool = true, delays: Bool = true) -> C {
        var config = GestureConfiguration()
        config.contentTouchDelay = delay
        config.canCancelContentTouches = canCancel
        config.delaysContentTouches = delays
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

    @Test func withoutDelaysContentTouchesTheDownIsDeliveredAtOnceAndCancelledByADrag() {
        var c = classifier(delays: false)
        #expect(run(&c, [.down(o, stopsMotion: false)]) == [.contentDown(o)])
        #expect(c.state == .delivered(origin: o, since: t0) && c.deadline == t0 + .milliseconds(500))
        #expect(run(&c, [.move(far)]) == [.contentCancel, .beginDrag(excess: Vector(dx: 0, dy: 12))])
        c = classifier(canCancel: false, delays: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .move(far)]) == [.contentMove(far)] && c.state == .owned(origin: o))
        #expect(run(&c, [.lift(far)]) == [.contentUp(far)])
    }

    @Test func withScrollingOffAMovingTouchIsTheContents() {
        // Held back: the content gets its down where the finger landed once it crosses the slop.
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: []), .move(near)]) == [])
        #expect(run(&c, [.move(far)]) == [.contentDown(o), .contentMove(far)])
        #expect(c.state == .owned(origin: o) && c.deadline == nil)
        #expect(run(&c, [.move(o), .lift(near)]) == [.contentUp(near)])
        // Delivered: kept, even though the content's touches can be cancelled.
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: []), .timer, .move(far)]) == [.contentMove(far)])
        #expect(c.state == .owned(origin: o))
        // Still: an ordinary tap; and a second finger still pinches.
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: []), .lift(near)]) == [.quickTap(origin: o, lift: near)])
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: []), .secondFinger]) == [] && c.state == .dragging)
    }

    /// Issue 21, part 6: a touch that moves along no axis the view scrolls is the content's, and
    /// the content hears every move of a touch it has.
    @Test func aTouchMovingWhereNothingScrollsIsTheContentsAndItHearsEveryMove() {
        let sideways = Point(x: 130, y: 110)  // 30 px right, 10 down: mostly horizontal
        // Held back: content that only scrolls vertically does not take a sideways drag.
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: .vertical), .move(sideways)]) == [.contentDown(o), .contentMove(sideways)])
        #expect(c.state == .owned(origin: o))
        #expect(run(&c, [.move(far)]) == [.contentMove(far)])
        #expect(run(&c, [.lift(far)]) == [.contentUp(far)] && c.state == .idle)
        // …but takes a mostly vertical one, and a horizontal scroller a sideways one.
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: .vertical), .move(far)]) == [.beginDrag(excess: Vector(dx: 0, dy: 12))])
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: .horizontal), .move(sideways)]).count == 1 && c.state == .dragging)
        // Delivered: moves within the slop reach the content, past it the touch stays the content's.
        c = classifier(delays: false)
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: []), .move(near)]) == [.contentMove(near)])
        #expect(run(&c, [.move(far)]) == [.contentMove(far)] && c.state == .owned(origin: o))
        #expect(run(&c, [.move(near)]) == [.contentMove(near)])
        #expect(run(&c, [.cancel]) == [.contentCancel] && c.state == .idle)
        // A long press keeps hearing the finger move, and keeps a touch that moves where nothing scrolls.
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false, scrolls: .horizontal), .timer, .timer, .move(near)]) == [.contentMove(near)])
        #expect(c.state == .longPressed(origin: o))
        #expect(run(&c, [.move(far)]) == [.contentMove(far)] && c.state == .owned(origin: o))
        // At exactly 45° either scrolling axis takes it.
        #expect(C.Axes.vertical.scroll(Vector(dx: 5, dy: -5)) && C.Axes.horizontal.scroll(Vector(dx: -5, dy: 5)))
        #expect(!C.Axes([]).scroll(Vector(dx: 0, dy: 30)) && C.Axes.both.scroll(Vector(dx: 1, dy: 0)))
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
        #expect(run(&c, start + [.move(near)]) == [.contentMove(near)])
        #expect(c.state == .delivered(origin: o, since: t0))
        #expect(run(&c, [.move(far)]) == [.contentCancel, .beginDrag(excess: Vector(dx: 0, dy: 12))])
        #expect(c.state == .dragging)

        c = classifier(canCancel: false)
        #expect(run(&c, start + [.move(far)]) == [.contentMove(far)])
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
        let start: [C.Event] = [.down(o, stopsMotion: false), .timer, .timer]
        var c = classifier()
        #expect(run(&c, start + [.move(near), .secondFinger]) == [])
        #expect(c.state == .longPressed(origin: o))
        #expect(run(&c, [.lift(near)]) == [.contentUp(near)])
        c = classifier()
        #expect(run(&c, start + [.cancel]) == [.contentCancel])
        c = classifier(canCancel: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .move(far), .move(o), .secondFinger]) == [])
        #expect(c.state == .owned(origin: o))
        #expect(run(&c, [.lift(o)]) == [.contentUp(o)])
        c = classifier(canCancel: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .move(far), .cancel]) == [.contentCancel])
    }

    /// A finger held past the long press, then moved, scrolls (UIKit's canCancelContentTouches,
    /// Google Maps, QScroller): the content hears the long press, then a cancel, and the drag
    /// starts from where the finger crossed the slop however it drifted while held.
    @Test func aHeldFingerThatMovesScrolls() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .timer]) == [.longPress(o)])
        #expect(run(&c, [.move(near)]) == [.contentMove(near)] && c.state == .longPressed(origin: o))
        // Past the 18 px slop from where it landed, 12 px beyond it: only those 12 px move the content.
        #expect(run(&c, [.move(far)]) == [.contentCancel, .beginDrag(excess: Vector(dx: 0, dy: 12))])
        #expect(c.state == .dragging && c.deadline == nil)
        #expect(run(&c, [.move(o), .lift(o)]) == [] && c.state == .idle)
        // Diagonally the excess keeps the finger's direction.
        c = classifier(delays: false)
        let diagonal = run(&c, [.down(o, stopsMotion: false), .timer, .move(Point(x: 124, y: 132))])
        guard diagonal.count == 2, diagonal[0] == .contentCancel, case let .beginDrag(excess) = diagonal[1] else {
            Issue.record("\(diagonal)")
            return
        }
        // 40 px from the down, 22 beyond the slop.
        #expect(abs(excess.dx - 24 * 0.55) < 1e-9 && abs(excess.dy - 32 * 0.55) < 1e-9)
        // Without canCancel the held touch stays the content's, as before it was held.
        c = classifier(canCancel: false)
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .timer, .move(far)]) == [.contentMove(far)])
        #expect(c.state == .owned(origin: o))
        #expect(run(&c, [.move(Point(x: 100, y: 400)), .lift(o)]) == [.contentUp(o)] && c.state == .idle)
    }

    /// A claim keeps a touch the content has (delivered, long pressed, kept) to its end; anywhere
    /// else it changes nothing and is no bug: it crossed a socket while the finger moved on.
    @Test func aClaimKeepsTheContentsTouchAndIsRefusedElsewhere() {
        var c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .claim]) == [])
        #expect(c.state == .owned(origin: o) && c.claimed && c.deadline == nil)
        #expect(run(&c, [.move(far)]) == [.contentMove(far)])
        #expect(run(&c, [.secondFinger, .claim, .move(near)]) == [.contentMove(near)] && c.state == .owned(origin: o))
        #expect(run(&c, [.lift(near)]) == [.contentUp(near)] && !c.claimed)
        // After the long press.
        c = classifier()
        #expect(run(&c, [.down(o, stopsMotion: false), .timer, .timer, .claim]) == [] && c.claimed)
        #expect(run(&c, [.move(far)]) == [.contentMove(far)] && c.state == .owned(origin: o))
        // Refused: no touch, held back, stopping motion, scrolling; the state stays.
        for (script, state) in [([C.Event](), C.State.idle), ([.down(o, stopsMotion: false)], .pending(origin: o, since: t0)),
                                ([.down(o, stopsMotion: true)], .catching(origin: o)),
                                ([.down(o, stopsMotion: false), .timer, .move(far)], .dragging)] {
            c = classifier()
            _ = run(&c, script)
            let deadline = c.deadline
            let r = c.handle(.claim, at: t0 + .seconds(1))
            #expect(!r.invalid && r.actions.isEmpty && c.state == state && !c.claimed && c.deadline == deadline, "\(script)")
        }
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

/// The table in docs/tap-drag-classifier.md is the machine: every edge of it taken through the
/// real classifier, nothing taken that it lacks, and its diagram drawing the same edges.
@Suite struct TapDragClassifierTableTests {
    typealias C = TapDragClassifier
    let o = Point(x: 100, y: 100)
    let near = Point(x: 105, y: 100)
    let far = Point(x: 100, y: 130)

    /// Runs `events` from idle on a fresh classifier; returns the steps as the trace has them.
    func steps(_ events: [C.Event], delay: Duration = .milliseconds(150), canCancel: Bool = true,
               delays: Bool = true) -> [Transition] {
        var config = GestureConfiguration()
        config.contentTouchDelay = delay
        config.canCancelContentTouches = canCancel
        config.delaysContentTouches = delays
        var c = C(configuration: config)
        var seen: [Transition] = []
        var t = Instant.seconds(10)
        for e in events {
            t = t + .milliseconds(10)
            let before = c.state.name
            let r = c.handle(e, at: t)
            if r.invalid || c.state.name != before {
                seen.append(Transition(.tap, at: t, from: before, on: e.name, to: c.state.name, invalid: r.invalid))
            }
        }
        return seen
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        let down = C.Event.down(o, stopsMotion: false), stop = C.Event.down(o, stopsMotion: true)
        var seen: [Transition] = []
        for script: [C.Event] in [
            [down, .move(near), .move(far), .lift(far)], [down, .timer, .timer, .lift(o)], [down, .timer, .timer, .cancel],
            [down, .lift(o)], [down, .cancel], [down, .secondFinger, .cancel],
            [down, .timer, .move(near), .move(far), .cancel], [down, .timer, .lift(o)], [down, .timer, .cancel],
            [down, .timer, .secondFinger, .lift(o)],
            // Held past the long press, then moved: it scrolls. Claimed: the content's.
            [down, .timer, .timer, .move(near), .move(far), .lift(far)],
            [down, .timer, .claim, .claim, .lift(o)], [down, .timer, .timer, .claim, .move(far), .cancel],
            // Claims where the content does not have the touch: refused, the state stays.
            [.claim], [down, .claim, .move(far), .claim, .cancel], [stop, .claim, .lift(o)],
            [stop, .move(near), .move(far), .lift(far)], [stop, .secondFinger], [stop, .lift(o)], [stop, .cancel],
            // Bugs: the pair is logged and the state stays.
            [.lift(o)], [.timer], [down, down], [down, .move(far), .timer],
        ] {
            seen += steps(script)
        }
        seen += steps([down, .move(o)], delay: .zero)
        seen += steps([down, .move(o)], delays: false)
        // Scrolling off: a moving touch is the content's, held back or delivered.
        let still = C.Event.down(o, stopsMotion: false, scrolls: [])
        seen += steps([still, .move(far), .lift(far)]) + steps([still, .timer, .move(far), .cancel])
        seen += steps([still, .timer, .timer, .move(far), .lift(far)])
        for script: [C.Event] in [[down, .timer, .move(far), .lift(far)], [down, .timer, .secondFinger, .cancel],
                                  [down, .timer, .timer, .move(far), .lift(far)]] {
            seen += steps(script, canCancel: false)
        }
        let table = try StateTable.load(.tap, from: "tap-drag-classifier.md")
        let problems = table.disagreements(with: seen)
        #expect(problems.isEmpty, "\(problems)")
        let diagram = try StateTable.diagramEdges(inDocsFile: "tap-drag-classifier.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }

    @Test func aTableThatDisagreesIsCaught() throws {
        // The checker itself can fail: a table missing an edge, and an edge nobody takes.
        var markdown = try String(contentsOfFile: StateTable.docs + "/tap-drag-classifier.md", encoding: .utf8)
        markdown = markdown.replacingOccurrences(of: "| → delivered (contentDown, arm long press) |", with: "| → owned |")
        let broken = try StateTable(machine: "tap", markdown: markdown)
        let problems = broken.disagreements(with: steps([.down(o, stopsMotion: false), .timer]))
        #expect(problems.contains { $0.contains("pending → timer → delivered happened") })
        #expect(problems.contains { $0.contains("pending → timer → owned was never taken") })
    }
}
