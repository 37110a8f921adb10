import FlickCore
import FlickTestSupport
import Testing
@testable import FlickDisplay

/// The table `### frame` in docs/frame-presenter.md is the presenter's machine: every edge taken
/// through a real presenter on a headless output, nothing taken that it lacks, and its diagram
/// drawing the same edges.
@Suite struct FramePresenterTableTests {
    /// A model that moves from `start` on, and shows nothing new before.
    final class Model: FramePresenterDelegate {
        var start = Instant.seconds(1)
        var end = Instant.seconds(1.2)
        var transitions: [Transition] = []
        func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState {
            let s = min(max((t - start).inSeconds, 0), (end - start).inSeconds)
            return RenderState(boundsSize: Size(width: 40, height: 30), contentOffset: Point(x: 0, y: 100 * s),
                               contentSize: Size(width: 40, height: 400))
        }
        func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant? { t < end ? t : nil }
        /// Latches while a finger would be down: from 2 s, with a finger held still at 3 s.
        var latchedFrom = Instant.seconds(2)
        func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool { t >= latchedFrom }
        func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant) {}
        func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note) {
            if case let .transition(t) = note { transitions.append(t) }
        }
    }

    /// A headless panel that loses flip events and refuses commits when told to.
    final class FaultyOutput: ForwardingOutput {
        var flipsToLose = 0
        var commitsToRefuse = 0
        override func commit(_ layers: FrameLayers, now: Instant) throws {
            guard commitsToRefuse == 0 else {
                commitsToRefuse -= 1
                throw OutputError.unsupported
            }
            try inner.commit(layers, now: now)
        }
        override func dispatch(now: Instant) throws -> [OutputEvent] {
            let events = try inner.dispatch(now: now)
            guard flipsToLose > 0, !events.isEmpty else { return events }
            flipsToLose -= 1
            return []
        }
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        let output = FaultyOutput(try #require(HeadlessOutput(size: PixelSize(width: 40, height: 30))))
        let content = Content(image: try #require(TestPattern.make(PixelSize(width: 40, height: 400))))
        let presenter = FramePresenter(composer: FrameComposer(output: output, compositor: Compositor(), content: content),
                                       background: .black, at: .zero)
        let model = Model()
        presenter.delegate = model
        presenter.tracing = true
        presenter.frameLead = .milliseconds(4)
        presenter.setNeedsDisplay(at: .zero)                        // idle → needsDisplay → inFlight
        presenter.setNeedsDisplay(at: .milliseconds(1))             // inFlight: stays
        // Presented with nothing new: → idle; the model wakes it at 1 s, when it starts moving.
        while let next = presenter.nextDeadline { presenter.dispatch(now: max(next, presenter.now)) }
        // A finger moves the model from 2 s (every frame latched), input arrives while a frame
        // waits, and the finger stops: the last latched frame shows nothing new.
        model.start = .seconds(2)
        presenter.setNeedsDisplay(at: .seconds(2.005))              // idle → needsDisplay → latching
        model.end = .seconds(2.1)
        presenter.setNeedsDisplay(at: .seconds(2.006))              // latching: stays
        while let next = presenter.nextDeadline { presenter.dispatch(now: max(next, presenter.now)) }
        // A wake-up the model asked for, latched: the model moves again from 3 s.
        model.start = .seconds(3)
        model.end = .seconds(3.05)
        presenter.setNeedsDisplay(at: .seconds(2.9))
        while let next = presenter.nextDeadline { presenter.dispatch(now: max(next, presenter.now)) }
        // Flips that never report while the model moves from 4 s: the first frame is committed
        // anew four periods later (→ inFlight); the second's new frame is refused (→ idle).
        model.start = .seconds(4)
        model.end = .seconds(4.3)
        model.latchedFrom = .seconds(100)
        output.flipsToLose = 1
        presenter.setNeedsDisplay(at: .seconds(4))
        while let next = presenter.nextDeadline, output.flipsToLose > 0 { presenter.dispatch(now: max(next, presenter.now)) }
        while let next = presenter.nextDeadline, presenter.now < .seconds(4.1) { presenter.dispatch(now: max(next, presenter.now)) }
        output.flipsToLose = 1
        output.commitsToRefuse = 1
        while let next = presenter.nextDeadline { presenter.dispatch(now: max(next, presenter.now)) }
        let table = try StateTable.load(.frame, from: "frame-presenter.md")
        let problems = table.disagreements(with: model.transitions)
        #expect(problems.isEmpty, "\(problems)")
        #expect(model.transitions.contains { $0.event == "wake" && $0.to == "inFlight" })
        let diagram = try StateTable.diagramEdges(inDocsFile: "frame-presenter.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }
}
