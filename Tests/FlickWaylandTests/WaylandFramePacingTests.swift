import FlickCore
import Testing
@testable import FlickWayland

/// One test per edge of `FramePacing`'s table: a frame is shown once the compositor has both
/// called back and said when it showed it.
@Suite struct WaylandFramePacingTests {
    static let now = Instant(nanoseconds: 5_000_000_000)
    static let vblank = Instant(nanoseconds: 4_990_000_000)

    @Test func theCallbackThenTheFeedbackShowTheFrameAtTheFeedbacksTime() {
        var pacing = FramePacing()
        #expect(pacing.handle(.committed(withFeedback: true), now: Self.now) == nil)
        #expect(pacing.handle(.frameDone, now: Self.now) == nil)
        #expect(pacing.state == .inFlight(done: true, feedback: .pending))
        let shown = pacing.handle(.presented(at: Self.vblank, refresh: .nanoseconds(16_666_667)), now: Self.now)
        #expect(shown == FramePacing.Shown(at: Self.vblank, refresh: .nanoseconds(16_666_667)))
        #expect(pacing.state == .idle && !pacing.isInFlight)
    }

    @Test func theFeedbackThenTheCallbackShowTheFrameAtTheFeedbacksTime() {
        var pacing = FramePacing()
        _ = pacing.handle(.committed(withFeedback: true), now: Self.now)
        #expect(pacing.handle(.presented(at: Self.vblank, refresh: nil), now: Self.now) == nil)
        #expect(pacing.isInFlight)
        #expect(pacing.handle(.frameDone, now: Self.now) == FramePacing.Shown(at: Self.vblank, refresh: nil))
        #expect(!pacing.isInFlight)
    }

    @Test func withoutPresentationTimesTheCallbackShowsTheFrameWhenRead() {
        var pacing = FramePacing()
        _ = pacing.handle(.committed(withFeedback: false), now: Self.now)
        #expect(pacing.state == .inFlight(done: false, feedback: .none))
        #expect(pacing.handle(.frameDone, now: Self.now) == FramePacing.Shown(at: Self.now, refresh: nil))
    }

    @Test func aDiscardedFrameIsShownWhenTheCallbackComesAndNotBefore() {
        var pacing = FramePacing()
        _ = pacing.handle(.committed(withFeedback: true), now: Self.now)
        // A window not shown: discarded, and no callback; nothing completes, nothing is timed.
        #expect(pacing.handle(.discarded, now: Self.now) == nil)
        #expect(pacing.state == .inFlight(done: false, feedback: .discarded))
        let later = Self.now + .seconds(30)
        #expect(pacing.handle(.frameDone, now: later) == FramePacing.Shown(at: later, refresh: nil))
    }

    @Test func aDiscardedFrameAfterItsCallbackIsShownAtOnce() {
        var pacing = FramePacing()
        _ = pacing.handle(.committed(withFeedback: true), now: Self.now)
        _ = pacing.handle(.frameDone, now: Self.now)
        #expect(pacing.handle(.discarded, now: Self.now) == FramePacing.Shown(at: Self.now, refresh: nil))
    }

    @Test func aForgottenFrameIgnoresItsLateEvents() {
        var pacing = FramePacing()
        _ = pacing.handle(.committed(withFeedback: true), now: Self.now)
        #expect(pacing.handle(.forgotten, now: Self.now) == nil)
        #expect(pacing.state == .idle)
        #expect(pacing.handle(.frameDone, now: Self.now) == nil)
        #expect(pacing.handle(.presented(at: Self.vblank, refresh: nil), now: Self.now) == nil)
        #expect(pacing.handle(.discarded, now: Self.now) == nil)
        #expect(pacing.state == .idle)
    }
}
