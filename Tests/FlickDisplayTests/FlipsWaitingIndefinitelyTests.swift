import FlickCore
import FlickTestSupport
import Testing
@testable import FlickDisplay

/// An output whose frames may wait without end for their presentation (a compositor's window
/// that is not shown gets no frame callback) is never taken as having lost a flip: nothing is
/// timed while its frame is in flight, and nothing is committed again.
@Suite struct FlipsWaitingIndefinitelyTests {
    /// A headless panel that never reports a flip, and says whether that may be normal.
    final class Silent: ForwardingOutput {
        let waits: Bool
        var commits = 0
        var forgotten = 0
        private var pending = false
        init(_ inner: any Output, waits: Bool) {
            self.waits = waits
            super.init(inner)
        }
        override var flipsCanWaitIndefinitely: Bool { waits }
        override var isFlipPending: Bool { pending }
        override var nextDeadline: Instant? { nil }
        override func commit(_ layers: FrameLayers, now: Instant) throws {
            guard !pending else { throw OutputError.flipPending }
            commits += 1
            pending = true
        }
        override func forgetPendingFlip() {
            forgotten += 1
            pending = false
        }
        override func dispatch(now: Instant) throws -> [OutputEvent] { [] }
    }

    final class Still: FramePresenterDelegate {
        func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState {
            RenderState(boundsSize: Size(width: 40, height: 30), contentOffset: Point(x: 0, y: 0), contentSize: Size(width: 40, height: 400))
        }
        func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant? { nil }
        func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool { false }
        func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant) {}
        func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note) {}
    }

    static func presenter(waits: Bool) throws -> (FramePresenter, Silent, Still) {
        let output = Silent(try #require(HeadlessOutput(size: PixelSize(width: 40, height: 30))), waits: waits)
        let presenter = FramePresenter(composer: FrameComposer(output: output, compositor: Compositor(), content: nil),
                                       background: Color(rgb: 0), at: .seconds(1))
        let delegate = Still()
        presenter.delegate = delegate
        presenter.setNeedsDisplay(at: .seconds(1))
        return (presenter, output, delegate)
    }

    @Test func aFrameThatMayWaitIsNeverTakenAsLost() throws {
        let (presenter, output, model) = try Self.presenter(waits: true)
        defer { withExtendedLifetime(model) {} }
        #expect(output.commits == 1 && presenter.state == .inFlight)
        // Nothing timed: the process sleeps until the compositor calls back.
        #expect(presenter.nextDeadline == nil)
        presenter.dispatch(now: .seconds(60))
        #expect(output.commits == 1 && output.forgotten == 0 && presenter.state == .inFlight)
        #expect(presenter.nextDeadline == nil)
    }

    @Test func aFrameThatMayNotWaitIsTakenAsLostAfterTheTimeout() throws {
        let (presenter, output, model) = try Self.presenter(waits: false)
        defer { withExtendedLifetime(model) {} }
        #expect(output.commits == 1)
        let lost = try #require(presenter.nextDeadline)
        #expect(lost == Instant.seconds(1) + presenter.flipTimeout)
        presenter.dispatch(now: lost)
        // Given up as lost, and the frame committed anew.
        #expect(output.forgotten == 1 && output.commits == 2)
    }
}
