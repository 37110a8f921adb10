import FlickTestSupport
import Testing
@testable import FlickCore

/// The table `### power` in docs/power.md is `DisplayPower`: every edge taken, nothing taken
/// that it lacks, and the invalid pairs it calls bugs.
@Suite struct PowerTableTests {
    let t0 = Instant.seconds(1000)
    /// 2026-06-01 12:00 CEST at `t0`.
    var anchor: WallClockAnchor {
        WallClockAnchor(instant: t0, utcNanoseconds: CentralEuropeanZone.utc(2026, 6, 1, 12, 0, offset: 7200) * 1_000_000_000)
    }

    func s(_ n: Double) -> Instant { t0 + .seconds(n) }

    /// A machine with dim after 10 s and off after 20 s, and `hours` if any, started at `t0`.
    func machine(_ hours: [String]? = nil, canDim: Bool = true, wakeOutside: Bool = true) -> DisplayPower {
        var settings = DisplayPower.Settings(dimAfter: .seconds(10), offAfter: .seconds(20))
        settings.canDim = canDim
        settings.wakeOutsideHours = wakeOutside
        let schedule = hours.map { PowerSchedule(windows: try! PowerSchedule.windows($0), zone: CentralEuropeanZone(), anchor: anchor) }
        return DisplayPower(settings: settings, schedule: schedule, at: t0)
    }

    /// Runs events, firing the timer at each deadline up to each event's time; the transitions
    /// and the changes, in order.
    func run(_ m: inout DisplayPower, _ events: [(DisplayPower.Event, Double)]) -> (steps: [Transition], changes: [DisplayPower.Change]) {
        var steps: [Transition] = [], changes: [DisplayPower.Change] = []
        func take(_ r: (change: DisplayPower.Change?, transition: Transition?)) {
            if let t = r.transition { steps.append(t) }
            if let c = r.change { changes.append(c) }
        }
        for (event, at) in events {
            while event != .start, let due = m.nextDeadline, due <= s(at) { take(m.handle(.timer, at: due)) }
            take(m.handle(event, at: s(at)))
        }
        return (steps, changes)
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        var seen: [Transition] = []
        func script(hours: [String]? = nil, canDim: Bool = true, _ events: [(DisplayPower.Event, Double)]) {
            var m = machine(hours, canDim: canDim)
            seen += run(&m, events).steps
        }
        script([(.start, 0), (.touch, 11), (.on, 12), (.dim, 13), (.on, 14)])   // on → dim (idle) → on by touch; by command
        script([(.start, 0), (.timer, 25), (.touch, 26)])                      // → dim → off (idle); off → on by touch
        script([(.start, 0), (.dim, 1), (.off, 2), (.on, 3), (.off, 4), (.dim, 5)])  // commands
        script(canDim: false, [(.start, 0), (.timer, 25), (.on, 26)])          // on → off (idle) without a backlight
        script(hours: ["00:00-12:30"], [(.start, 0), (.dim, 1), (.timer, 31 * 60)])   // on → dim; dim → off (the hours ended)
        script(hours: ["00:00-12:30"], [(.start, 0), (.touch, 29 * 60 + 50), (.timer, 31 * 60)])   // on → off (the hours ended)
        script(hours: ["13:00-14:00"], [(.start, 0), (.timer, 3601)])                 // starting → off; off → on (the hours began)
        script(hours: ["13:00-14:00"], [(.start, 0), (.dim, 3590), (.timer, 3601)])   // off → dim; dim → on (the hours began)
        // Invalid pairs.
        var m = machine()
        seen.append(contentsOf: [DisplayPower.Event.touch, .on, .dim, .off, .timer].compactMap { m.handle($0, at: t0).transition })
        _ = m.handle(.start, at: t0)
        seen.append(contentsOf: [m.handle(.start, at: s(1)).transition].compactMap { $0 })
        let table = try StateTable.load(.power, from: "power.md")
        #expect(table.disagreements(with: seen) == [])
        #expect(table.bugs.contains(["on", "start"]) && seen.contains { $0.isInvalid && $0.from == "on" })
    }

    @Test func idleTimersDimThenOffAndActivityRestartsThem() {
        var m = machine()
        _ = m.handle(.start, at: t0)
        #expect(m.state == .on && m.nextDeadline == s(10))
        _ = m.handle(.touch, at: s(5))
        #expect(m.nextDeadline == s(15))
        let r = run(&m, [(.timer, 15)])
        #expect(r.changes.map(\.state) == [.dim] && r.changes.map(\.reason) == [.idle])
        #expect(m.nextDeadline == s(25))
        _ = run(&m, [(.timer, 25)])
        #expect(m.state == .off)
        // Off and idle, no schedule: nothing due at all.
        #expect(m.nextDeadline == nil)
    }

    @Test func zeroTimersMeanNeverAndNoDeadline() {
        var m = DisplayPower(settings: DisplayPower.Settings(), at: t0)
        _ = m.handle(.start, at: t0)
        #expect(m.state == .on && m.nextDeadline == nil)
    }

    @Test func theWakeGuardCoversTouchesBeganSoonAfterTheWake() {
        var m = machine()
        _ = run(&m, [(.start, 0), (.off, 1)])
        #expect(m.swallowsTouch(at: s(2)))
        let r = m.handle(.touch, at: s(2))
        #expect(r.change == DisplayPower.Change(state: .on, reason: .touch, time: s(2)))
        #expect(m.swallowsTouch(at: s(2) + .milliseconds(299)))
        #expect(!m.swallowsTouch(at: s(2) + .milliseconds(300)))
        // A dimmed panel's touch brightens it and is delivered: no guard after it.
        _ = run(&m, [(.dim, 3), (.touch, 4)])
        #expect(m.state == .on && !m.swallowsTouch(at: s(4)))
    }

    @Test func outsideTheHoursATouchWakesForTheTimeoutOrNot() {
        // 12:00 local at t0; on only 13:00-14:00.
        var m = machine(["13:00-14:00"])
        _ = m.handle(.start, at: t0)
        #expect(m.state == .off && m.nextDeadline == s(3600))
        _ = m.handle(.touch, at: s(100))
        #expect(m.state == .on && m.nextDeadline == s(110))          // dims after 10 s, off after 20 s
        _ = run(&m, [(.timer, 121)])
        #expect(m.state == .off && m.nextDeadline == s(3600))
        var strict = machine(["13:00-14:00"], wakeOutside: false)
        _ = strict.handle(.start, at: t0)
        #expect(strict.handle(.touch, at: s(100)).change == nil && strict.state == .off)
        // With off_after_s 0, a panel woken outside the hours stays on for the short timeout.
        var settings = DisplayPower.Settings()
        settings.outsideHoursTimeout = .seconds(60)
        var quick = DisplayPower(settings: settings,
                                 schedule: PowerSchedule(windows: try! PowerSchedule.windows(["13:00-14:00"]), zone: CentralEuropeanZone(), anchor: anchor),
                                 at: t0)
        _ = quick.handle(.start, at: t0)
        _ = quick.handle(.touch, at: s(100))
        #expect(quick.nextDeadline == s(160))
    }
}
