import FlickTestSupport
import Testing
@testable import FlickCore

/// `power.on_hours`: windows parsed and checked, and the boundaries across both DST changes of
/// 2026 in Europe/Berlin (an injected zone: the process's TZ is never touched).
@Suite struct PowerScheduleTests {
    let zone = CentralEuropeanZone()
    let t0 = Instant.seconds(500)

    /// A schedule whose `t0` is the local time given (read with `offset`).
    func schedule(_ windows: [String], at local: (Int64, Int64, Int64, Int64, Int64), offset: Int64) throws -> PowerSchedule {
        let utc = CentralEuropeanZone.utc(local.0, local.1, local.2, local.3, local.4, offset: offset)
        return PowerSchedule(windows: try PowerSchedule.windows(windows), zone: zone,
                             anchor: WallClockAnchor(instant: t0, utcNanoseconds: utc * 1_000_000_000))
    }

    func hours(_ d: Duration) -> Double { d.inSeconds / 3600 }

    @Test func windowsParseAndOverlapsAreRefused() throws {
        #expect(try PowerSchedule.windows(["07:30-22:00"]).map(\.description) == ["07:30-22:00"])
        #expect(try PowerSchedule.windows(["22:00-06:00", "07:00-09:00", "12:00-20:00"]).count == 3)
        #expect(throws: PowerSchedule.Problem.overlapping("07:00-09:00", "08:30-10:00")) {
            try PowerSchedule.windows(["07:00-09:00", "08:30-10:00"])
        }
        #expect(throws: PowerSchedule.Problem.overlapping("22:00-06:00", "05:00-07:00")) {
            try PowerSchedule.windows(["22:00-06:00", "05:00-07:00"])
        }
        for bad in ["7:30-22:00", "07:30", "07:30-22:00-23:00", "25:00-26:00", "07:60-08:00", "07:30-07:30", "24:00-06:00", "", "０7:30-22:00"] {
            #expect(throws: PowerSchedule.Problem.unparsable(bad)) { try PowerSchedule.windows([bad]) }
        }
        // Touching windows do not overlap: one ends where the next begins.
        #expect(try PowerSchedule.windows(["07:00-09:00", "09:00-10:00"]).count == 2)
    }

    @Test func springForwardShortensTheNight() throws {
        // Saturday 2026-03-28 21:00 CET: on until 22:00 CET, then off until 07:30 CEST.
        let s = try schedule(["07:30-22:00"], at: (2026, 3, 28, 21, 0), offset: 3600)
        #expect(s.isOn(at: t0))
        let off = try #require(s.nextBoundary(after: t0))
        #expect(hours(off - t0) == 1)
        #expect(!s.isOn(at: off))
        let on = try #require(s.nextBoundary(after: off))
        // 22:00 CET → 07:30 CEST is 8.5 hours: the clocks skipped one.
        #expect(hours(on - off) == 8.5)
        #expect(s.isOn(at: on))
    }

    /// What the journal and `status` say while the schedule keeps the panel off: the next on
    /// time as the wall clock will read it, across the night the clocks go back.
    @Test func theOffReasonNamesTheNextOnTimeInLocalTime() throws {
        let s = try schedule(["07:30-22:00"], at: (2026, 10, 24, 23, 0), offset: 7200)
        #expect(s.localTime(at: t0) == "23:00")
        #expect(s.offReason(at: t0) == "outside power.on_hours until 07:30")
        let on = try #require(s.nextBoundary(after: t0))
        #expect(hours(on - t0) == 9.5 && s.localTime(at: on) == "07:30" && s.offReason(at: on) == nil)
        #expect(s.offReason(at: on - .seconds(1)) == "outside power.on_hours until 07:30")
        let night = try schedule(["22:00-06:00", "12:00-13:00"], at: (2026, 6, 1, 10, 5), offset: 7200)
        #expect(night.offReason(at: t0) == "outside power.on_hours until 12:00")
    }

    @Test func fallBackLengthensTheNight() throws {
        let s = try schedule(["07:30-22:00"], at: (2026, 10, 24, 21, 0), offset: 7200)
        let off = try #require(s.nextBoundary(after: t0))
        let on = try #require(s.nextBoundary(after: off))
        #expect(hours(off - t0) == 1 && hours(on - off) == 10.5)
    }

    @Test func aWindowAcrossMidnightAcrossTheChange() throws {
        let spring = try schedule(["22:00-06:00"], at: (2026, 3, 28, 21, 0), offset: 3600)
        let on = try #require(spring.nextBoundary(after: t0))
        let off = try #require(spring.nextBoundary(after: on))
        #expect(hours(on - t0) == 1 && hours(off - on) == 7)
        let autumn = try schedule(["22:00-06:00"], at: (2026, 10, 24, 21, 0), offset: 7200)
        let on2 = try #require(autumn.nextBoundary(after: t0))
        let off2 = try #require(autumn.nextBoundary(after: on2))
        #expect(hours(on2 - t0) == 1 && hours(off2 - on2) == 9)
    }

    @Test func aBoundaryInTheSkippedHourFallsAtTheChange() throws {
        // 01:00 CET on 2026-03-29; on from 02:30, which the clocks skip at 02:00 → 03:00.
        let s = try schedule(["02:30-05:00"], at: (2026, 3, 29, 1, 0), offset: 3600)
        #expect(!s.isOn(at: t0))
        let on = try #require(s.nextBoundary(after: t0))
        #expect(hours(on - t0) == 1)
        #expect(s.isOn(at: on) && !s.isOn(at: on - .seconds(1)))
        let off = try #require(s.nextBoundary(after: on))
        #expect(hours(off - on) == 2)   // 03:00 → 05:00 CEST
    }

    @Test func theRepeatedHourIsPassedTwice() throws {
        // 01:00 CEST on 2026-10-25; on 02:30-05:00: 02:30 CEST, off when the clocks go back to
        // 02:00 CET, on again at 02:30 CET, off at 05:00 CET — the wall clock's own reading.
        let s = try schedule(["02:30-05:00"], at: (2026, 10, 25, 1, 0), offset: 7200)
        var t = t0
        var steps: [Double] = []
        for _ in 0..<4 {
            let next = try #require(s.nextBoundary(after: t))
            steps.append(hours(next - t))
            t = next
        }
        #expect(steps == [1.5, 0.5, 0.5, 2.5])
    }

    @Test func theWholeDayHasNoBoundary() throws {
        let s = try schedule(["00:00-24:00"], at: (2026, 3, 29, 1, 0), offset: 3600)
        #expect(s.isOn(at: t0) && s.nextBoundary(after: t0) == nil)
    }

    @Test func theMachineFollowsTheScheduleAcrossTheSpringChange() throws {
        let s = try schedule(["07:30-22:00"], at: (2026, 3, 28, 21, 0), offset: 3600)
        var m = DisplayPower(settings: DisplayPower.Settings(), schedule: s, at: t0)
        _ = m.handle(.start, at: t0)
        var changes: [DisplayPower.Change] = []
        while let due = m.nextDeadline, due <= t0 + .seconds(86_400) {
            if let c = m.handle(.timer, at: due).change { changes.append(c) }
        }
        #expect(changes.map(\.state) == [.off, .on, .off])
        #expect(changes.map(\.reason) == [.schedule, .schedule, .schedule])
        #expect(changes.map { hours($0.time - t0) } == [1, 9.5, 24])
    }
}
