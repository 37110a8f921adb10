import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
import FlickTestSupport
import Foundation
import Testing

/// Display power in `flickd replay` of an evemu recording made here: the timers run on the
/// virtual clock, the touch that wakes the panel and those within the guard are swallowed
/// whole, a phantom does not wake it; and on a rig, nothing drawn and no deadline while off.
@Suite struct PowerReplayTests {
    /// Keeps gesture lines and power changes with their times (seconds from the first event).
    final class Sink: PipelineSink {
        var lines: [(t: Double, line: String)] = []
        var contentTouches = 0
        var power: [(t: Double, state: String, reason: String)] = []
        var displayNotices: [String] = []
        /// The power changes as the journal and `STATUS=` say them.
        var powerLines: [String] = []
        var unavailable: [String] = []
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            for output in outputs {
                if case .content = output.kind { contentTouches += 1 }
                if let entry = GestureLog.entry(for: output, view: view) { lines.append((output.time.seconds, entry.message)) }
            }
        }
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
            switch notice {
            case let .power(state, reason, time, _): power.append((time.seconds, state, reason))
                powerLines.append("\(notice)")
            case .display: displayNotices.append("\(notice)")
            case .unavailable: unavailable.append("\(notice)")
            default: break
            }
        }
    }

    /// Replays `script` with `configuration` and the given content.
    func replay(_ script: TouchScript, _ configuration: Configuration) throws -> Sink {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-power-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = try #require(PixelBuffer(width: 1000, height: 2000))
        try PNGCodec.write(content, to: dir + "/content.png")
        try script.text.write(toFile: dir + "/touches.evemu", atomically: true, encoding: .utf8)
        let sink = Sink()
        _ = try Replay.run(Replay.Options(recording: dir + "/touches.evemu", size: PixelSize(width: 800, height: 480),
                                          content: dir + "/content.png"),
                           configuration: configuration, sink: sink, note: { _ in })
        return sink
    }

    @Test func theWakingTapAndOneWithinTheGuardAreSwallowedTheNextIsATap() throws {
        var s = TouchScript(description: GestureNamingTests.panel)
        s.idle(0)
        s.tap(at: 100, 100, t: 0.5)         // delivered
        s.tap(at: 200, 100, t: 10)          // off since ~5.5 s: wakes the panel, swallowed
        s.tap(at: 300, 100, t: 10.15)       // within the 300 ms guard: swallowed
        s.tap(at: 400, 100, t: 11)          // delivered
        // A phantom (down and up in one report) while off again: it does not wake the panel.
        s.down(1, 700, 50, 20); s.up(1, 20); s.report(20)
        s.idle(25)
        var configuration = Configuration()
        configuration.power.offAfterSeconds = 5
        let sink = try replay(s, configuration)
        let taps = sink.lines.filter { $0.line.hasPrefix("tap at") }
        #expect(taps.map(\.line) == ["tap at (100, 100)", "tap at (400, 100)"], "\(sink.lines)")
        #expect(!sink.lines.contains { $0.line.contains("(200, 100)") || $0.line.contains("(300, 100)") || $0.line.contains("(700, 50)") })
        // on at start, off 5 s after the first tap, on by the waking touch, off 5 s after the last tap.
        #expect(sink.power.map { "\($0.state) \($0.reason)" } == ["on start", "off idle", "on touch", "off idle"], "\(sink.power)")
        let first = try #require(taps.first?.t)
        #expect(abs(sink.power[1].t - first - 5) < 0.1)
        #expect(abs(sink.power[2].t - 10) < 0.001)   // the waking touch's own time (the recording starts at 0)
        #expect(abs(sink.power[3].t - (try #require(taps.last?.t)) - 5) < 0.1)
        // The delivered taps reached the content; the swallowed ones never did (2 touches: down and up each).
        #expect(sink.contentTouches > 0 && sink.displayNotices.isEmpty, "\(sink.displayNotices)")
    }

    @Test func withoutPowerNothingChanges() throws {
        var s = TouchScript(description: GestureNamingTests.panel)
        s.idle(0)
        s.tap(at: 100, 100, t: 0.5)
        s.tap(at: 200, 100, t: 10)
        s.idle(12)
        let sink = try replay(s, Configuration())
        #expect(sink.power.isEmpty)
        #expect(sink.lines.filter { $0.line.hasPrefix("tap at") }.count == 2)
    }

    @Test func offDrawsNothingAndAsksForNoWakeUpAndAttractModeResetsAtOnce() throws {
        var configuration = Configuration()
        configuration.power.offAfterSeconds = 2
        configuration.idleResetSeconds = 30
        let rig = try PipelineRig(configuration: configuration)
        rig.settle(dragFrames(from: .seconds(1), at: 100, 150, by: 0, -10, steps: 10), seconds: 1.5, expectRest: false)
        #expect(rig.view.contentOffset.y > 50 && rig.pipeline.power?.state == .on)
        rig.settle()
        #expect(rig.pipeline.power?.state == .off)
        // Home at once, without waiting for attract mode's 30 s or animating.
        #expect(rig.view.contentOffset == .zero && !rig.view.isAnimating)
        #expect(rig.pipeline.nextDeadline == nil)
        #expect(!rig.output.headless.isActive && rig.output.headless.deactivationCount == 1)
        let frames = rig.output.headless.presentedFrameCount
        // A command that moves the view while off draws nothing either.
        _ = rig.commands().handle(.setOffset(x: 0, y: 300, animated: false), id: nil)
        rig.settle(seconds: 1)
        #expect(rig.output.headless.presentedFrameCount == frames)
        // Lit again by a command: the next frame is drawn, and the timer runs again.
        _ = rig.commands().handle(.display(.on), id: nil)
        #expect(rig.output.headless.isActive)
        rig.settle(seconds: 1, expectRest: false)
        #expect(rig.output.headless.presentedFrameCount > frames)
        #expect(rig.notices.allSatisfy { if case .display = $0 { false } else { true } }, "\(rig.notices)")
    }

    @Test func theBlackMethodShowsOneBlackFrameThenDrawsNothing() throws {
        var configuration = Configuration()
        configuration.power.offAfterSeconds = 1
        configuration.power.method = .black
        let rig = try PipelineRig(configuration: configuration)
        rig.settle()
        #expect(rig.pipeline.power?.state == .off && rig.pipeline.presenter.isSuspended)
        // The picture stays on (the touch controller lives with it), showing black.
        #expect(rig.output.headless.isActive && rig.pipeline.presenter.shown?.blank == true)
        let screen = try #require(rig.output.snapshot())
        #expect(screen[0, 0] & 0xFF_FFFF == 0 && screen[160, 100] & 0xFF_FFFF == 0)
        #expect(rig.pipeline.nextDeadline == nil)
        _ = rig.commands().handle(.display(.on), id: nil)
        rig.settle(seconds: 0.5, expectRest: false)
        #expect(rig.pipeline.presenter.shown?.blank == false)
    }

    @Test func displayCommandsAndStatus() throws {
        var configuration = Configuration()
        configuration.power.offAfterSeconds = 60
        let rig = try PipelineRig(configuration: configuration)
        let commands = rig.commands()
        #expect(commands.status().power == "on")
        #expect(commands.handle(.display(.off), id: 1).ok == true)
        #expect(commands.status().power == "off")
        // No backlight on the headless panel: dim is refused, and said at start only if asked for.
        #expect(commands.handle(.display(.dim), id: 2).ok == false)
        #expect(commands.handle(.display(.on), id: 3).ok == true && commands.status().power == "on")
        let plain = try PipelineRig()
        #expect(plain.commands().handle(.display(.off), id: 4).ok == false && plain.commands().status().power == nil)
    }

    /// Started outside the hours, the panel is off and says why and until when — the start
    /// line (the journal's and `STATUS=`, which are the notice's words) and `status` — read on
    /// an injected wall clock and zone: Saturday 2026-03-28 23:10 CET, the night the clocks go
    /// forward, so the next on time is 07:30 CEST, 7 h 20 min later.
    @Test func offAtStartOutsideTheHoursSaysWhyAndUntilWhen() throws {
        var configuration = Configuration()
        configuration.power.onHours = try PowerSchedule.windows(["07:30-22:00"])
        let start = Instant.seconds(100)
        let utc = CentralEuropeanZone.utc(2026, 3, 28, 23, 10, offset: 3600)
        let environment = PowerEnvironment(backlight: nil, zone: CentralEuropeanZone(),
                                           anchor: WallClockAnchor(instant: start, utcNanoseconds: utc * 1_000_000_000))
        let rig = try PipelineRig(configuration: configuration, at: start, powerEnvironment: environment)
        func powerLines() -> [String] { rig.notices.compactMap { if case .power = $0 { "\($0)" } else { nil } } }
        #expect(powerLines() == ["display off (start: outside power.on_hours until 07:30)"])
        let status = rig.commands().status()
        #expect(status.power == "off" && status.powerReason == "outside power.on_hours until 07:30", "\(status)")
        // Lit by the schedule at 07:30 local: nothing to explain any more.
        rig.settle(seconds: 7 * 3600 + 20 * 60 + 1, expectRest: false)
        #expect(powerLines().last == "display on (schedule)" && rig.pipeline.power?.state == .on)
        #expect(rig.commands().status().powerReason == nil)
        // Off by the schedule at 22:00 says the same, with the next morning's time.
        rig.settle(seconds: 14.5 * 3600, expectRest: false)
        #expect(powerLines().last == "display off (schedule: outside power.on_hours until 07:30)", "\(powerLines())")
        // Within the hours, off by a command: no schedule to blame.
        let day = try PipelineRig(configuration: configuration, at: start, powerEnvironment: PowerEnvironment(
            backlight: nil, zone: CentralEuropeanZone(), anchor: WallClockAnchor(instant: start, utcNanoseconds: (utc - 12 * 3600) * 1_000_000_000)))
        _ = day.commands().handle(.display(.off), id: nil)
        #expect(day.commands().status().power == "off" && day.commands().status().powerReason == nil)
        #expect(day.notices.compactMap { if case .power = $0 { "\($0)" } else { nil } } == ["display on (start)", "display off (command)"])
    }

    /// A display without DPMS (a compositor's window refuses it as unsupported): said once, at
    /// info level (a notice of its own, not a display fault), and `auto` shows a black frame.
    @Test func dpmsUnavailableIsSaidOnceNotAsAFault() throws {
        final class NoDPMS: ForwardingOutput {
            override func setActive(_ active: Bool) throws { throw OutputError.unsupported }
        }
        for method in [PowerConfiguration.Method.auto, .dpms] {
            var configuration = Configuration()
            configuration.power.offAfterSeconds = 1
            configuration.power.method = method
            let touches = ScriptedTouches()
            let sink = Sink()
            let start = Instant.seconds(10)
            let pipeline = try PipelineBuilder(configuration: configuration)
                .build(output: NoDPMS(try #require(HeadlessOutput(size: PixelSize(width: 320, height: 200)))),
                       content: try Content.testPattern(PixelSize(width: 320, height: 2000)),
                       input: .source(touches, pixelsPerMillimetre: nil), at: start)
            pipeline.sink = sink
            pipeline.start()
            // Off, woken by a tap, off again: two offs, one line.
            touches.frames += dragFrames(from: start + .seconds(3), at: 100, 100, by: 0, 0, steps: 1)
            _ = VirtualRunner.run(pipeline, limit: start + .seconds(10))
            #expect(sink.power.map { "\($0.state) \($0.reason)" } == ["on start", "off idle", "on touch", "off idle"], "\(method)")
            #expect(sink.displayNotices.isEmpty, "\(method): \(sink.displayNotices)")
            #expect(sink.unavailable.count == 1 && sink.unavailable[0].hasPrefix("power: this display has no DPMS"), "\(sink.unavailable)")
            #expect(sink.unavailable[0].contains(method == .auto ? "off shows a black frame" : "turns nothing off"))
            #expect(pipeline.power?.way == (method == .auto ? .black : .dpms))
        }
    }
}
