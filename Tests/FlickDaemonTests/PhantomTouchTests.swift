import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
import Foundation
import Testing

/// Phantom touches on kiosk panels (issue 20, part 6), replayed as `flickd replay` runs them:
/// the Raspberry Pi Touch Display 2's zero-length touch at one point every 12.9 s
/// (raspberrypi/linux #7638) among a visitor's real gestures.
@Suite struct PhantomTouchTests {
    /// Keeps gesture lines, notices with their times and the replay's notes.
    final class Sink: PipelineSink {
        var lines: [String] = []
        var resets: [Double] = []
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            for output in outputs {
                if let entry = GestureLog.entry(for: output, view: view) { lines.append(entry.message) }
            }
        }
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
            if case .attractMode = notice { resets.append(pipeline.now.seconds) }
        }
    }

    @Test func aPhantomEveryThirteenSecondsNeitherClicksNorKeepsTheKioskAwake() throws {
        var s = TouchScript(description: GestureNamingTests.panel)
        s.idle(0)
        // A visitor scrolls the content away from home at 0.5 s and taps twice at 30 and 31 s;
        // the panel's phantom, down and up in one report at one point, comes every 12.864 s.
        // Written in time order, as a recording is.
        var phantom = 1.0
        func phantomsUntil(_ t: Double) {
            while phantom < t {
                s.down(1, 700, 50, phantom); s.up(1, phantom); s.report(phantom)
                phantom += 12.864
            }
        }
        s.drag(from: (400, 400), to: (400, 300), seconds: 0.3, t: 0.5)
        phantomsUntil(30)
        s.tap(at: 200, 100, t: 30)
        s.tap(at: 600, 300, t: 31)
        phantomsUntil(75)
        s.idle(80)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-phantom-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = try #require(PixelBuffer(width: 1000, height: 2000))
        try PNGCodec.write(content, to: dir + "/content.png")
        try s.text.write(toFile: dir + "/touches.evemu", atomically: true, encoding: .utf8)
        var configuration = Configuration()
        configuration.idleResetSeconds = 20
        let sink = Sink()
        var notes: [String] = []
        _ = try Replay.run(Replay.Options(recording: dir + "/touches.evemu", size: PixelSize(width: 800, height: 480),
                                          content: dir + "/content.png"),
                           configuration: configuration, sink: sink, note: { notes.append($0) })
        // The real taps are taps; no phantom is.
        #expect(sink.lines.filter { $0.hasPrefix("tap at") } == ["tap at (200, 100)", "tap at (600, 300)"], "\(sink.lines)")
        #expect(!sink.lines.contains { $0.contains("(700, 50)") }, "\(sink.lines)")
        // Attract mode counts from the real touches only: home 20 s after the scroll, and again
        // 20 s after the last tap (the taps moved nothing, so it went home once more then only
        // if the view was away) — never pushed back by a phantom.
        #expect(sink.resets.first.map { $0 > 20 && $0 < 22 } == true, "\(sink.resets)")
        // Said at most once a minute, with the count and the place; the rest at the end.
        let said = notes.filter { $0.contains("phantom touch") }
        #expect(said.count == 2 && said[0].contains(": 1 phantom touch ignored (the last at 700, 50)"), "\(said)")
        #expect(said.last?.contains(": 5 phantom touches ignored") == true, "\(said)")   // 6 in all
    }
}
