import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
import Foundation
import Testing

/// A tap on content that only seems still (issue 20, part 2): a touch that lands while the
/// content moves slower than `gestures.imperceptible_motion_px_per_frame` stops it and is an
/// ordinary touch; faster motion keeps UIKit's rule (the touch only stops it). Replayed through
/// the whole pipeline on an 800×480 panel over the test pattern (3200×1920).
@Suite struct ImperceptibleMotionTests {
    /// The journal lines of a replay of `script` with `configure` applied to the defaults.
    static func lines(_ script: TouchScript, _ configure: (inout Configuration) -> Void = { _ in }) throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-creep-\(UUID()).evemu").path
        try script.text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var configuration = Configuration()
        configure(&configuration)
        let sink = KeptOutputs()
        var lines: [String] = []
        sink.onOutput = { output, view in
            if let entry = GestureLog.entry(for: output, view: view) { lines.append(entry.message) }
        }
        _ = try Replay.run(Replay.Options(recording: file, size: PixelSize(width: 800, height: 480)),
                           configuration: configuration, sink: sink, note: { _ in })
        return lines
    }

    /// A flick up at about 2000 px/s, released at `lift`, then a tap `after` seconds later.
    static func flickThenTap(after: Double) -> (TouchScript, lift: Double) {
        var s = TouchScript(description: GestureNamingTests.panel)
        s.idle(0)
        let lift = s.drag(from: (400, 400), to: (400, 300), seconds: 0.05, t: 0.1)
        s.tap(at: 300, 200, t: lift + after)
        s.idle(lift + after + 6)
        return (s, lift)
    }

    @Test func aTapOnAFlicksInvisibleTailIsATap() throws {
        // 2.5 s after the lift the content moves at about 2000 × 0.998^2500 ≈ 13 px/s: under a
        // pixel a frame. The tap stops it and reaches the content.
        let lines = try Self.lines(Self.flickThenTap(after: 2.5).0)
        #expect(lines.first?.hasPrefix("flick up") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("tap at") } && !lines.contains { $0.hasPrefix("stop at") }, "\(lines)")
    }

    @Test func aTapOnVisiblyMovingContentOnlyStopsIt() throws {
        // 0.2 s after the lift: about 1340 px/s, UIKit's rule.
        let lines = try Self.lines(Self.flickThenTap(after: 0.2).0)
        #expect(lines.contains { $0.hasPrefix("stop at") } && !lines.contains { $0.hasPrefix("tap at") }, "\(lines)")
    }

    @Test func zeroKeepsUIKitsRuleForTheTailToo() throws {
        let lines = try Self.lines(Self.flickThenTap(after: 2.5).0) { $0.gestures.imperceptibleMotionPixelsPerFrame = 0 }
        #expect(lines.contains { $0.hasPrefix("stop at") } && !lines.contains { $0.hasPrefix("tap at") }, "\(lines)")
    }

    @Test func aTapOnASpringsLastCreepIsATap() throws {
        // Dragged 150 px past the top edge and released still: the spring brings it back in
        // about half a second; 0.9 s after the lift it is a fraction of a pixel from rest.
        var s = GestureNamingTests.stillDrag(from: (400, 100), by: (0, 150), open: true)
        let lift = 0.1 + 0.008 * 13 + 0.008 * 15 + 0.008
        s.tap(at: 300, 200, t: lift + 0.9)
        s.idle(lift + 6)
        let late = try Self.lines(s)
        #expect(late.contains { $0.hasPrefix("bounce off the top") } && late.contains { $0.hasPrefix("tap at") }, "\(late)")
        // Early in the spring it moves hundreds of pixels a second: the tap only stops it.
        var early = GestureNamingTests.stillDrag(from: (400, 100), by: (0, 150), open: true)
        early.tap(at: 300, 200, t: lift + 0.05)
        early.idle(lift + 6)
        let stopped = try Self.lines(early)
        #expect(stopped.contains { $0.hasPrefix("stop at") } && !stopped.contains { $0.hasPrefix("tap at") }, "\(stopped)")
    }

    /// The measure itself: a decay's speed from its closed form, any frame rate.
    @Test func visibleSpeedFollowsTheDecay() throws {
        var view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 100_000))
        view.touchDown(at: .zero)
        view.drag(by: Vector(dx: 0, dy: -10), at: .milliseconds(8))
        view.release(velocity: Vector(dx: 0, dy: -2000), at: .milliseconds(16))
        let v0 = view.visibleSpeed(at: .milliseconds(16))
        #expect(abs(v0 - 2000) < 5, "\(v0)")
        let later = view.visibleSpeed(at: .milliseconds(16 + 1000))
        #expect(abs(later - 2000 * pow(0.998, 1000)) < 1, "\(later)")
        #expect(view.visibleSpeed(at: .seconds(60)) == 0)
    }
}
