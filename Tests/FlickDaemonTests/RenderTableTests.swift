import FlickCore
@testable import FlickDaemon
import FlickTestSupport
import Testing

/// The table `### render` in docs/documents.md is `RenderSupervision`: every edge taken, nothing
/// taken that it lacks, the invalid pairs it calls bugs; and its restarts' delays, count and
/// reset, on an injected clock.
@Suite struct RenderTableTests {
    let t0 = Instant.seconds(100)
    func s(_ n: Double) -> Instant { t0 + .seconds(n) }

    /// Runs `events` (each at its time, the machine's timer met at its deadlines before it),
    /// telling it the helper runs as pid 1, 2, … at each spawn; the transitions and actions.
    func run(_ m: inout RenderSupervision, _ events: [(RenderSupervision.Event, Double)])
        -> (steps: [Transition], actions: [RenderSupervision.Action]) {
        var steps: [Transition] = [], actions: [RenderSupervision.Action] = []
        var pid: Int32 = 0
        func take(_ r: (actions: [RenderSupervision.Action], transition: Transition?)) {
            if let t = r.transition { steps.append(t) }
            actions += r.actions
            if r.actions.contains(.spawn) {
                pid += 1
                m.running(pid: pid)
            }
        }
        for (event, at) in events {
            while let due = m.nextDeadline, due <= s(at), event != .timer { take(m.handle(.timer, at: due)) }
            take(m.handle(event, at: s(at)))
        }
        return (steps, actions)
    }

    /// The current helper's exit.
    func exit(_ m: RenderSupervision, _ how: String = "signal 11 (SIGSEGV)") -> RenderSupervision.Event {
        .exited(pid: m.pid, how: how)
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        var seen: [Transition] = []
        // idle → starting → showing; hung (killed); exited → waiting → timer → starting → showing;
        // refused → failed; the refused helper's exit; stop → idle.
        var m = RenderSupervision(maxRestarts: 3)
        seen += run(&m, [(.start, 0), (.provided, 1), (.hung, 2)]).steps
        seen += run(&m, [(exit(m), 3), (.timer, 3.25), (.provided, 4), (.refused(reason: "encrypted", message: "x"), 5)]).steps
        seen += run(&m, [(.exited(pid: 2, how: "exit status 65"), 6), (.stop, 7)]).steps
        // No restarts allowed: starting → failed, showing → failed on exit; failed → starting.
        m = RenderSupervision(maxRestarts: 0)
        seen += run(&m, [(.start, 0)]).steps
        seen += run(&m, [(exit(m), 1), (.start, 2), (.provided, 3)]).steps
        seen += run(&m, [(exit(m), 4), (.start, 5), (.refused(reason: "noPages", message: "x"), 6), (.start, 7)]).steps
        // showing → starting (new arguments), → idle; waiting → idle, → starting.
        m = RenderSupervision(maxRestarts: 5)
        seen += run(&m, [(.start, 0), (.provided, 1), (.start, 2), (.provided, 3), (.stop, 4), (.start, 5)]).steps
        seen += run(&m, [(exit(m), 6), (.stop, 6.1), (.start, 7)]).steps
        seen += run(&m, [(exit(m), 8), (.start, 8.1), (.stop, 9)]).steps
        // Invalid pairs.
        let invalid: [(RenderSupervision.Event, Double)] = [(.provided, 10), (.refused(reason: "x", message: "x"), 10), (.hung, 10)]
        m = RenderSupervision(maxRestarts: 1)
        seen += run(&m, invalid).steps                                                   // idle
        seen += run(&m, [(.start, 11), (.provided, 12), (.provided, 13)]).steps           // showing
        seen += run(&m, [(exit(m), 14)] + invalid + [(.exited(pid: 9, how: "x"), 14)]).steps  // waiting
        m = RenderSupervision(maxRestarts: 0)
        seen += run(&m, [(.start, 20), (.refused(reason: "x", message: "x"), 21)] + invalid).steps  // failed
        let table = try StateTable.load(.render, from: "documents.md")
        #expect(table.disagreements(with: seen) == [])
    }

    @Test func restartsWaitLongerEachTimeInARowThenGiveUpSayingHowItLastEnded() {
        var m = RenderSupervision(maxRestarts: 3)
        var actions = run(&m, [(.start, 0)]).actions
        actions += run(&m, [(exit(m), 1)]).actions
        #expect(m.nextDeadline == s(1.25))
        actions += run(&m, [(.timer, 1.25)]).actions
        actions += run(&m, [(exit(m), 2)]).actions
        #expect(m.nextDeadline == s(2.5))
        actions += run(&m, [(.timer, 2.5)]).actions
        actions += run(&m, [(exit(m), 3)]).actions
        #expect(m.nextDeadline == s(4))
        actions += run(&m, [(.timer, 4)]).actions
        #expect(m.state == .starting && m.restarts == 3)
        actions += run(&m, [(exit(m, "signal 9 (SIGKILL)"), 5)]).actions
        #expect(m.state == .failed)
        #expect(actions.filter { $0 == .spawn }.count == 4)
        #expect(actions.contains(.restartScheduled(after: .milliseconds(500), attempt: 2)))
        #expect(m.failure?.reason == "crashed")
        #expect(m.failure?.message.contains("4 times in a row (last: signal 9 (SIGKILL))") == true)
        #expect(m.nextDeadline == nil)
    }

    @Test func aMinuteServingStartsTheCountAgainAndARefusalIsNeverRetried() {
        var m = RenderSupervision(maxRestarts: 1)
        _ = run(&m, [(.start, 0), (.provided, 1)])
        _ = run(&m, [(exit(m), 2), (.timer, 2.25), (.provided, 3)])
        #expect(m.restarts == 1)
        // 59 s serving: the count stands, and the next exit gives up.
        var probe = m
        _ = run(&probe, [(exit(probe), 62)])
        #expect(probe.state == .failed)
        // 60 s: reset (the timer, for status), and the next exit restarts.
        _ = run(&m, [(.timer, 63)])
        #expect(m.restarts == 0)
        _ = run(&m, [(exit(m), 70)])
        #expect(m.state == .waiting)
        // A refusal kills the helper and does not come back, whatever the count.
        m = RenderSupervision(maxRestarts: 100)
        let r = run(&m, [(.start, 0), (.refused(reason: "encrypted", message: "menu.pdf needs a password"), 1)])
        #expect(!r.actions.contains(.kill(1)) && m.pid == 1)
        #expect(r.actions.contains(.giveUp(reason: "encrypted", message: "menu.pdf needs a password")))
        _ = run(&m, [(.exited(pid: 1, how: "exit status 65"), 2)])
        #expect(m.state == .failed && m.nextDeadline == nil && m.pid == nil)
    }

    @Test func aHelperThatNeverProvidesIsKilledAtTheStartLimit() {
        var m = RenderSupervision(maxRestarts: 1)
        let r = run(&m, [(.start, 0), (.hung, 0)])
        #expect(r.actions == [.spawn, .kill(1)])
        let late = run(&m, [(.provided, 31)])
        #expect(late.actions.contains(.kill(1)))
    }
}
