import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// The wall clock set under the real pipeline (NTP's first sync on a board that booted at 1970,
/// or at yesterday's shutdown time), on the injected monotonic clock: the panel follows the
/// hours at once, the next boundary is armed again and fires, the jump is noted once per
/// setting; and motion, the idle timers and attract mode, all monotonic, do not notice it.
@Suite struct WallClockJumpPipelineTests {
    /// 2026-11-29 11:20 UTC, the time NTP brings.
    let synced = CivilTime.utc(year: 2026, month: 11, day: 29, hour: 11, minute: 20)
    let start = Instant.seconds(100)

    func anchor(_ t: Instant, _ utc: Int64) -> WallClockAnchor { WallClockAnchor(instant: t, utcNanoseconds: utc * 1_000_000_000) }

    func powerLines(_ rig: PipelineRig) -> [String] { rig.notices.compactMap { if case .power = $0 { "\($0)" } else { nil } } }
    func jumpLines(_ rig: PipelineRig) -> [String] { rig.notices.compactMap { if case .wallClock = $0 { "\($0)" } else { nil } } }

    @Test func aBoardBootedAtNineteenSeventyLightsAtTheSyncAndFollowsTheHours() throws {
        var configuration = Configuration()
        configuration.power.onHours = try PowerSchedule.windows(["07:30-22:00"])
        let rig = try PipelineRig(configuration: configuration, at: start, powerEnvironment: .withoutBacklight(at: start, wallClock: 0))
        #expect(powerLines(rig) == ["display off (start: outside power.on_hours until 07:30)"])
        rig.settle(seconds: 30, expectRest: false)
        let t1 = start + .seconds(30)
        rig.pipeline.wallClockSet(anchor(t1, synced), at: t1)
        #expect(powerLines(rig).last == "display on (schedule)" && rig.pipeline.power?.state == .on)
        #expect(jumpLines(rig) == ["wall clock set forward 56 years (1970-01-01 00:00 → 2026-11-29 11:20 UTC): power schedule re-read"])
        #expect(!rig.pipeline.presenter.isSuspended)
        // The boundary is 22:00 today, 10 h 40 min on, and it fires there.
        #expect(rig.pipeline.power?.nextDeadline == t1 + .seconds(10 * 3600 + 40 * 60))
        rig.settle(seconds: 10 * 3600 + 40 * 60 + 1, expectRest: false)
        #expect(powerLines(rig).last == "display off (schedule: outside power.on_hours until 07:30)", "\(powerLines(rig))")
        // Set back into the hours (to 12:00, ten hours back): on again at once, and said once more.
        let t2 = t1 + .seconds(10 * 3600 + 40 * 60 + 2)
        rig.pipeline.wallClockSet(anchor(t2, synced + 40 * 60), at: t2)
        #expect(powerLines(rig).last == "display on (schedule)" && rig.pipeline.power?.nextDeadline == t2 + .seconds(10 * 3600))
        #expect(jumpLines(rig).count == 2)
        #expect(jumpLines(rig).last == "wall clock set back 10 h (2026-11-29 22:00 → 2026-11-29 12:00 UTC): power schedule re-read")
        #expect(powerLines(rig).count == 4)
    }

    @Test func fromYesterdayOutsideTheHoursToNowWithinAndBack() throws {
        var configuration = Configuration()
        configuration.power.onHours = try PowerSchedule.windows(["07:30-22:00"])
        // Yesterday 23:00: off until 07:30, 8 h 30 min on.
        let yesterday = synced - 86_400 + 11 * 3600 + 40 * 60
        let rig = try PipelineRig(configuration: configuration, at: start, powerEnvironment: .withoutBacklight(at: start, wallClock: yesterday))
        #expect(rig.pipeline.power?.state == .off && rig.pipeline.power?.nextDeadline == start + .seconds(8 * 3600 + 30 * 60))
        rig.pipeline.wallClockSet(anchor(start, synced), at: start)
        #expect(rig.pipeline.power?.state == .on && rig.pipeline.power?.nextDeadline == start + .seconds(10 * 3600 + 40 * 60))
        rig.pipeline.wallClockSet(anchor(start, yesterday), at: start)
        #expect(rig.pipeline.power?.state == .off && rig.pipeline.power?.nextDeadline == start + .seconds(8 * 3600 + 30 * 60))
        #expect(powerLines(rig) == ["display off (start: outside power.on_hours until 07:30)", "display on (schedule)",
                                    "display off (schedule: outside power.on_hours until 07:30)"])
        #expect(jumpLines(rig).count == 2 && jumpLines(rig).first?.hasPrefix("wall clock set forward 12 h 20 min (") == true)
        // A setting to the time the clock already had says nothing and changes nothing.
        rig.pipeline.wallClockSet(anchor(start, yesterday), at: start)
        #expect(jumpLines(rig).count == 2 && powerLines(rig).count == 3)
    }

    @Test func motionTheIdleTimersAndAttractModeDoNotNoticeAJumpWithinTheHours() throws {
        var configuration = Configuration()
        configuration.power.onHours = try PowerSchedule.windows(["07:00-23:00"])
        configuration.power.offAfterSeconds = 600
        configuration.idleResetSeconds = 30
        // Two rigs alike from yesterday 11:20; one is set to today 14:00 while a flick coasts.
        func rig() throws -> PipelineRig {
            let rig = try PipelineRig(configuration: configuration, at: start,
                                      powerEnvironment: .withoutBacklight(at: start, wallClock: synced - 86_400))
            rig.settle(dragFrames(from: start + .milliseconds(100), at: 160, 150, by: 0, -12, steps: 8), seconds: 0.4, expectRest: false)
            return rig
        }
        let jumped = try rig(), plain = try rig()
        #expect(jumped.view.isAnimating)
        let t = jumped.pipeline.now
        let deadlines = (jumped.pipeline.nextDeadline, jumped.pipeline.power?.nextDeadline)
        jumped.pipeline.wallClockSet(anchor(t, synced + 2 * 3600 + 40 * 60), at: t)
        #expect(jumped.pipeline.nextDeadline == deadlines.0 && jumped.pipeline.power?.nextDeadline == deadlines.1)
        #expect(jumpLines(jumped).count == 1 && jumpLines(jumped)[0].hasPrefix("wall clock set forward 1 day 2 h ("))
        for r in [jumped, plain] { r.settle(seconds: 700, expectRest: false) }
        // The same frames at the same instants, the same events, attract mode and idle off alike.
        #expect(jumped.frames == plain.frames && jumped.presented == plain.presented && !plain.frames.isEmpty)
        #expect(jumped.scrollEvents == plain.scrollEvents && jumped.outputs.map(\.time) == plain.outputs.map(\.time))
        let others = jumped.notices.filter { if case .wallClock = $0 { false } else { true } }
        #expect(others == plain.notices)
        #expect(plain.notices.contains { if case .attractMode = $0 { true } else { false } })
        #expect(powerLines(plain).last == "display off (idle)", "\(powerLines(plain))")
    }
}
