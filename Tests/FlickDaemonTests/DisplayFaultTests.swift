import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickSystem
import Glibc
import Testing

/// Driver faults on the headless backend and the virtual clock (issue 35): a flip refused, a flip
/// event that never comes, DRM master lost and given back. Each is recovered from without a
/// restart, frames flow again, and the loop is never woken in a spin meanwhile.
@Suite struct DisplayFaultTests {
    /// A headless panel with a driver's faults injected into its commits and flip events.
    final class FaultyOutput: ForwardingOutput {
        /// The next commits are refused with these errnos, one each.
        var refusals: [Int32] = []
        /// Commits are refused as by a process that is not DRM master until then.
        var masterLostUntil: Instant?
        /// The next flip events are lost.
        var flipsToLose = 0
        var commits = 0
        var commitTimes: [Instant] = []
        var refused = 0
        var forgotten = 0

        override func commit(_ layers: FrameLayers, now: Instant) throws {
            if let until = masterLostUntil, now < until {
                refused += 1
                throw DRMError.notMaster(card: "fault", step: .atomicCommit,
                                         cause: SystemError(call: "drmModeAtomicCommit", context: "fault", errno: EACCES))
            }
            if !refusals.isEmpty {
                refused += 1
                throw DRMError.call(card: "fault", step: .atomicCommit,
                                    cause: SystemError(call: "drmModeAtomicCommit", context: "fault", errno: refusals.removeFirst()))
            }
            commits += 1
            commitTimes.append(now)
            try inner.commit(layers, now: now)
        }

        override func dispatch(now: Instant) throws -> [OutputEvent] {
            let events = try inner.dispatch(now: now)
            guard flipsToLose > 0, !events.isEmpty else { return events }
            flipsToLose -= 1
            return []
        }

        override func forgetPendingFlip() { forgotten += 1 }
    }

    final class Sink: PipelineSink {
        var presented: [Instant] = []
        var notices: [String] = []
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {}
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) { presented.append(vblank) }
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) { notices.append("\(notice)") }
    }

    let output: FaultyOutput
    let touches = ScriptedTouches()
    let sink = Sink()
    let pipeline: Pipeline
    let start = Instant.seconds(10)

    init() throws {
        output = FaultyOutput(try #require(HeadlessOutput(size: PixelSize(width: 640, height: 480))))
        pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: output, content: try Content.testPattern(PixelSize(width: 640, height: 20_000)),
                   input: .source(touches, pixelsPerMillimetre: nil), at: start)
        pipeline.sink = sink
        pipeline.start()
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(1))
    }

    /// A flick at `t`: frames for a second or more.
    func flick(at t: Instant) {
        touches.frames += dragFrames(from: t, at: 300, 400, by: 0, -25, steps: 8)[...]
    }

    @Test(arguments: [EBUSY, EINVAL, ENOSPC])
    func aRefusedFlipIsRetriedAndFramesFlowAgain(errno: Int32) throws {
        output.refusals = [errno, errno, errno]
        flick(at: start + .seconds(2))
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(20))
        #expect(!outcome.hitLimit && output.refused == 3)
        #expect(sink.notices.filter { $0.contains("frame not shown") }.count == 3)
        // The flick went on being drawn after the refusals, to its end.
        #expect(output.commits > 30 && pipeline.presenter.shown?.contentOffset == pipeline.scrollView.contentOffset)
    }

    @Test func aLostFlipEventIsGivenUpAfterFourPeriodsAndTheFrameCommittedAnew() throws {
        output.flipsToLose = 2
        flick(at: start + .seconds(2))
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(20))
        #expect(!outcome.hitLimit && output.forgotten == 2)
        #expect(sink.notices.filter { $0.contains("no flip event") }.count == 2)
        #expect(output.commits > 30 && pipeline.presenter.shown?.contentOffset == pipeline.scrollView.contentOffset)
        // Given up four refresh periods after the commit, not sooner and not later: two gaps of
        // four periods (66.7 ms) between commits during the flick, the others shorter.
        let gaps = zip(output.commitTimes.dropFirst(), output.commitTimes).map { ($0 - $1).inSeconds }.filter { $0 < 1 }
        #expect(gaps.filter { $0 > 0.066 }.count == 2 && gaps.allSatisfy { $0 < 0.067 }, "\(gaps)")
    }

    @Test func masterLostForTenSecondsIsRetriedSlowlyAndRecovered() throws {
        let lost = start + .seconds(2)
        output.masterLostUntil = lost + .seconds(10)
        flick(at: lost)
        let during = VirtualRunner.run(pipeline, limit: lost + .seconds(10))
        // The refusals back off to one a second: about 16 tries in 10 s, never the refresh rate.
        #expect(output.refused >= 8 && output.refused <= 20, "\(output.refused) refusals")
        #expect(during.timerWakeups <= 20, "\(during.timerWakeups) wake-ups in 10 s")
        #expect(output.commits == 1) // the first frame, before the fault
        let after = VirtualRunner.run(pipeline, limit: lost + .seconds(30))
        #expect(!after.hitLimit && output.commits >= 2)
        #expect(pipeline.presenter.shown?.contentOffset == pipeline.scrollView.contentOffset)
        #expect(pipeline.nextDeadline == nil)
    }
    /// A display whose next flips are reported late (100 ms, six refresh periods), and which,
    /// as DRM does, refuses a commit as busy while one is still in the kernel: after a flip given
    /// up as lost, that refusal is `OutputError.flipPending` (`DRMOutput.forgetPendingFlip`).
    final class LateOutput: ForwardingOutput {
        var lateLeft = 2
        var heldUntil: Instant?
        var held: [OutputEvent] = []
        var forgot = false
        var busy = 0
        override var isFlipPending: Bool { (heldUntil != nil && !forgot) || inner.isFlipPending }
        override var nextDeadline: Instant? { heldUntil ?? inner.nextDeadline }
        override func dispatch(now: Instant) throws -> [OutputEvent] {
            if let until = heldUntil {
                guard now >= until else { return [] }
                heldUntil = nil
                return held
            }
            let events = try inner.dispatch(now: now)
            guard lateLeft > 0, case let .presented(at)? = events.first else { return events }
            lateLeft -= 1
            heldUntil = at + .milliseconds(100)
            held = events
            return []
        }
        override func forgetPendingFlip() { forgot = true }
        override func commit(_ layers: FrameLayers, now: Instant) throws {
            if heldUntil != nil {
                busy += 1
                defer { forgot = false }
                if forgot { throw OutputError.flipPending }
                throw DRMError.call(card: "late", step: .atomicCommit,
                                    cause: SystemError(call: "drmModeAtomicCommit", context: "late", errno: EBUSY))
            }
            try inner.commit(layers, now: now)
        }
    }

    @Test func aFlipGivenUpAsLostThatWasOnlyLateIsWaitedForAndTheTimeoutLearnsThePace() throws {
        let late = LateOutput(try #require(HeadlessOutput(size: PixelSize(width: 640, height: 480))))
        let touches = ScriptedTouches()
        let sink = Sink()
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: late, content: try Content.testPattern(PixelSize(width: 640, height: 20_000)),
                   input: .source(touches, pixelsPerMillimetre: nil), at: start)
        pipeline.sink = sink
        pipeline.start()
        touches.frames += dragFrames(from: start + .seconds(1), at: 300, 400, by: 0, -25, steps: 8)[...]
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(20))
        #expect(!outcome.hitLimit && late.lateLeft == 0)
        // The first late flip was given up at four periods, and the busy CRTC said it was coming:
        // waited for, not refused; the timeout doubled, so the second (as late) was waited for.
        #expect(late.busy == 1, "\(sink.notices)")
        #expect(sink.notices.filter { $0.contains("no flip event") }.count == 1, "\(sink.notices)")
        #expect(!sink.notices.contains { $0.contains("frame not shown") }, "\(sink.notices)")
        #expect(abs(pipeline.presenter.flipTimeout.inMilliseconds - 133.33) < 0.1)
        #expect(pipeline.presenter.shown?.contentOffset == pipeline.scrollView.contentOffset)
    }
}
