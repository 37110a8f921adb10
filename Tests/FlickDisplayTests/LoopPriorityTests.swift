@testable import FlickDisplay
@testable import FlickSystem
import FlickTestSupport
import Glibc
import Synchronization
import Testing

/// The event loop's real-time priority (issue 36 part 7): asked on a thread of the test's own
/// (never a test-pool thread, which would stay real time), read back from the kernel.
@Suite struct LoopPriorityTests {
    /// What a thread saw: its scheduling after asking, the refusal if any, a thread it created,
    /// and its scheduling after going back to 0.
    struct Seen: Sendable {
        var raised: ThreadScheduling?
        var refusal: SystemError?
        var child: ThreadScheduling?
        var lowered: ThreadScheduling?
        var before: ThreadScheduling?
    }

    @Test func theLoopTakesSchedRRWhereAllowedAndWhatItCreatesStaysOrdinary() throws {
        let seen = Mutex(Seen())
        let ran = runOnOwnThread {
            let before = ThreadScheduling.callingThread()
            let refusal = LoopPriority.setCallingThread(to: 1)
            let raised = ThreadScheduling.callingThread()
            var child: ThreadScheduling?
            runOnOwnThread { let c = ThreadScheduling.callingThread(); seen.withLock { $0.child = c } }
            child = seen.withLock { $0.child }
            LoopPriority.setCallingThread(to: 0)
            let lowered = ThreadScheduling.callingThread()
            seen.withLock { $0 = Seen(raised: raised, refusal: refusal, child: child, lowered: lowered, before: before) }
        }
        #expect(ran, "pthread_create failed")
        let s = seen.withLock { $0 }
        let before = try #require(s.before)
        if let refusal = s.refusal {
            // Not root and no RLIMIT_RTPRIO: refused, and the thread runs on as it was.
            #expect(refusal.isPermissionError, "\(refusal)")
            #expect(s.raised == before)
        } else {
            #expect(s.raised == ThreadScheduling(policy: SCHED_RR, nice: before.nice, realtimePriority: 1))
            #expect(s.raised?.description == "SCHED_RR 1")
        }
        // Reset on fork: a thread the loop creates is never real time.
        #expect(s.child?.policy == SCHED_OTHER && s.child?.realtimePriority == 0, "\(String(describing: s.child))")
        #expect(s.lowered == ThreadScheduling(policy: SCHED_OTHER, nice: before.nice))
    }

    @Test func theOutcomeSaysWhatTheKernelAppliedAndWhyNotRealTime() {
        let refusal = SystemError(call: "sched_setscheduler", context: "the event loop: SCHED_RR 5", errno: EPERM)
        let running = ThreadScheduling.callingThread()
        let now = running.map { "\($0)" } ?? "unknown"
        #expect(LoopPriority.outcome(asked: 5, refusal: refusal, running: running)
            == "\(now): SCHED_RR 5 refused, sched_setscheduler failed: Operation not permitted (errno 1)")
        #expect(LoopPriority.outcome(asked: 0, refusal: nil, running: running) == "\(now) (display.realtime_priority = 0)")
        #expect(LoopPriority.outcome(asked: 1, refusal: nil, running: running) == now)
        #expect(LoopPriority.outcome(asked: 1, refusal: nil, running: nil) == "unknown")
    }

    @Test func aStatLineGivesTheRealTimePriority() {
        let rest = (3...52).map { field in field == 19 ? "0" : field == 40 ? "1" : field == 41 ? "2" : "0" }.joined(separator: " ")
        let parsed = ThreadScheduling.parse(stat: "1 (flickd) " + rest)
        #expect(parsed == ThreadScheduling(policy: SCHED_RR, nice: 0, realtimePriority: 1))
        #expect(parsed?.description == "SCHED_RR 1")
    }
}
