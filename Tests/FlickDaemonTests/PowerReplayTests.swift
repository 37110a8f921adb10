import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
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
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            for output in outputs {
                if case .content = output.kind { contentTouches += 1 }
                if let entry = GestureLog.entry(for: output, view: view) { lines.append((output.time.seconds, entry.message)) }
            }
        }
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
            switch notice {
            case let .power(state, reason, time): power.append((time.seconds, state, reason))
            case .display: displayNotices.append("\(notice)")
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
}
