import FlickTestSupport
import Testing
@testable import FlickCore

/// The wall clock set under a running machine (NTP's first sync on a board without a real-time
/// clock): the hours are read anew at once, the panel follows, the next boundary moves, and the
/// idle timers, on the monotonic clock, keep their instants. Also the words the journal says it
/// in, and the dates and zones `flickd replay` is told.
@Suite struct WallClockJumpTests {
    /// 2026-11-29 11:20 UTC, the time NTP brings.
    let now = CivilTime.utc(year: 2026, month: 11, day: 29, hour: 11, minute: 20)
    let t0 = Instant.seconds(30)

    func anchor(_ t: Instant, _ utc: Int64) -> WallClockAnchor { WallClockAnchor(instant: t, utcNanoseconds: utc * 1_000_000_000) }

    func machine(_ settings: DisplayPower.Settings, wallClock utc: Int64) throws -> DisplayPower {
        let schedule = PowerSchedule(windows: try PowerSchedule.windows(["07:30-22:00"]), zone: FixedOffsetZone.utc, anchor: anchor(t0, utc))
        var power = DisplayPower(settings: settings, schedule: schedule, at: t0)
        _ = power.handle(.start, at: t0)
        return power
    }

    @Test func fromNineteenSeventyTheHoursLightThePanelAtOnceAndBackDarkensIt() throws {
        var power = try machine(DisplayPower.Settings(), wallClock: 0)
        // 1970-01-01 00:00: off until 07:30.
        #expect(power.state == .off && power.nextDeadline == t0 + .seconds(7 * 3600 + 1800))
        let t1 = t0 + .seconds(40)
        let on = power.wallClockSet(anchor(t1, now), at: t1)
        #expect(on.change == DisplayPower.Change(state: .on, reason: .schedule, time: t1))
        #expect(on.transition?.line.contains("off → timer → on") == true, "\(String(describing: on.transition))")
        // Off at 22:00 today: 10 h 40 min on.
        #expect(power.nextDeadline == t1 + .seconds(10 * 3600 + 40 * 60))
        // Back to yesterday 23:00: outside the hours, off until 07:30, 8 h 30 min on.
        let t2 = t1 + .seconds(5)
        let off = power.wallClockSet(anchor(t2, now - 86_400 + 11 * 3600 + 40 * 60), at: t2)
        #expect(off.change == DisplayPower.Change(state: .off, reason: .schedule, time: t2))
        #expect(power.nextDeadline == t2 + .seconds(8 * 3600 + 30 * 60))
        #expect(power.schedule?.localTime(at: t2) == "23:00")
    }

    @Test func withinTheHoursTheIdleTimersKeepTheirInstants() throws {
        var power = try machine(DisplayPower.Settings(dimAfter: .seconds(300), offAfter: .seconds(600)), wallClock: now - 86_400)
        #expect(power.state == .on && power.nextDeadline == t0 + .seconds(300))
        // Yesterday 11:20 to today 11:20, and a set to the same day's 14:00: the hours hold, so
        // nothing changes and the idle timers stay where they were.
        for (offset, utc) in [(100, now), (200, now + 2 * 3600 + 40 * 60)] {
            let t = t0 + .seconds(offset)
            let step = power.wallClockSet(anchor(t, utc), at: t)
            #expect(step.change == nil && step.transition == nil)
            #expect(power.state == .on && power.nextDeadline == t0 + .seconds(300) && power.lastActivity == t0)
        }
    }

    @Test func beforeTheStartOnlyTheReadingIsKept() throws {
        let schedule = PowerSchedule(windows: try PowerSchedule.windows(["07:30-22:00"]), zone: FixedOffsetZone.utc, anchor: anchor(t0, 0))
        var power = DisplayPower(settings: DisplayPower.Settings(), schedule: schedule, at: t0)
        let step = power.wallClockSet(anchor(t0, now), at: t0)
        #expect(step.change == nil && step.transition == nil && power.state == .starting)
        #expect(power.handle(.start, at: t0).change?.state == .on)
    }

    @Test func theJumpIsSaidWithItsSizeDirectionAndBothTimes() {
        let boot = WallClockAnchor(instant: t0, utcNanoseconds: 0)
        let t = t0 + .seconds(60)
        let forward = WallClockJump(from: boot, to: anchor(t, now))
        #expect("\(forward)" == "wall clock set forward 56 years (1970-01-01 00:01 → 2026-11-29 11:20 UTC)")
        #expect(forward.seconds == Double(now - 60) && forward.toSeconds == now)
        let yesterday = WallClockJump(from: anchor(t0, now - 86_400 - 7200), to: anchor(t0, now))
        #expect("\(yesterday)" == "wall clock set forward 1 day 2 h (2026-11-28 09:20 → 2026-11-29 11:20 UTC)")
        let back = WallClockJump(from: anchor(t0, now), to: anchor(t0, now - 3 * 3600 - 300))
        #expect("\(back)" == "wall clock set back 3 h 5 min (2026-11-29 11:20 → 2026-11-29 08:15 UTC)" && back.seconds < 0)
        let small = WallClockJump(from: anchor(t0, now), to: WallClockAnchor(instant: t0, utcNanoseconds: now * 1_000_000_000 + 250_000_000))
        #expect("\(small)".hasPrefix("wall clock set forward 0.25 s ") && !small.isNegligible)
        #expect(WallClockJump(from: anchor(t0, now), to: anchor(t0, now)).isNegligible)
        #expect(WallClockJump.size(250) == "4 min 10 s" && WallClockJump.size(86_400) == "1 day" && WallClockJump.size(3 * 86_400 + 60) == "3 days")
    }

    @Test func datesAndZonesParseAsWrittenAndNothingElse() {
        #expect(CivilTime.parse("2026-11-29T11:20") == now)
        #expect(CivilTime.parse("2026-11-29 11:20:30Z") == now + 30)
        #expect(CivilTime.parse("1970-01-01T00:00") == 0 && CivilTime.parse("2000-02-29T12:00") != nil)
        for bad in ["2026-02-29T12:00", "2026-13-01T00:00", "2026-11-29", "2026-11-29T24:00", "26-11-29T11:20", "2026-11-29T11:20+01:00", ""] {
            #expect(CivilTime.parse(bad) == nil, "\(bad)")
        }
        #expect(CivilTime.text(utc: now + 59) == "2026-11-29 11:20" && CivilTime.text(utc: -1) == "1969-12-31 23:59")
        #expect(FixedOffsetZone(parsing: "+01:00")?.seconds == 3600 && FixedOffsetZone(parsing: "-05:30")?.seconds == -19_800)
        #expect(FixedOffsetZone(parsing: "+14")?.seconds == 50_400 && FixedOffsetZone(parsing: "UTC") == .utc)
        for bad in ["01:00", "+1:00", "+15:00", "+01:60", "Europe/Berlin", ""] { #expect(FixedOffsetZone(parsing: bad) == nil, "\(bad)") }
        #expect("\(FixedOffsetZone(seconds: -19_800))" == "-05:30" && "\(FixedOffsetZone.utc)" == "UTC")
    }
}
