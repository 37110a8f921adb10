import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
import Foundation
import Testing

/// The journal names a gesture by what the finger did (issue 20, part 1; the rule is on
/// `Gesture`): a lift below the fling minimum is a `drag` wherever the content was, and the
/// spring back after it is a `bounce` of its own. Each case is a generated recording replayed
/// through the whole pipeline, as `flickd replay` does.
@Suite struct GestureNamingTests {
    /// An 800×480 panel (units are pixels) over 1000×600 content: 200 px of room across and
    /// 120 px down, so every edge can be dragged past.
    static let panel = DeviceDescription.slotTouchscreen(width: 800, height: 480, slots: 2, resolution: 4)

    /// The gestures and journal lines of a replay of `script`.
    static func replay(_ script: TouchScript, note: (String) -> Void = { _ in }) throws -> (gestures: [Gesture], lines: [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-naming-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = try #require(PixelBuffer(width: 1000, height: 600))
        try PNGCodec.write(content, to: dir + "/content.png")
        try script.text.write(toFile: dir + "/touches.evemu", atomically: true, encoding: .utf8)
        let options = Replay.Options(recording: dir + "/touches.evemu", size: PixelSize(width: 800, height: 480),
                                     content: dir + "/content.png")
        let sink = KeptOutputs()
        var gestures: [Gesture] = []
        var lines: [String] = []
        sink.onOutput = { output, view in
            guard case let .gesture(gesture) = output.kind else { return }
            gestures.append(gesture)
            if let entry = GestureLog.entry(for: output, view: view) { lines.append(entry.message) }
        }
        _ = try Replay.run(options, configuration: Configuration(), sink: sink, note: note)
        return (gestures, lines)
    }

    /// A drag from `a` by `by`, 12 px per 8 ms report, then the finger held still 120 ms before
    /// it lifts: the velocity tracker sees a finger at rest. Ends 2 s after the lift unless
    /// `open` (the caller writes more, in time order).
    static func stillDrag(from a: (Double, Double), by: (Double, Double), open: Bool = false) -> TouchScript {
        var s = TouchScript(description: panel)
        s.idle(0)
        let steps = Int((max(abs(by.0), abs(by.1)) / 12).rounded(.up))
        var t = 0.1
        s.down(0, a.0, a.1, t); s.report(t)
        for i in 1...steps {
            t += 0.008
            let f = Double(i) / Double(steps)
            s.move(0, a.0 + by.0 * f, a.1 + by.1 * f, t); s.report(t)
        }
        for _ in 0..<15 { t += 0.008; s.report(t) }
        s.up(0, t + 0.008); s.report(t + 0.008)
        if !open { s.idle(t + 2) }
        return s
    }

    static func names(_ gestures: [Gesture]) -> [String] { gestures.map(\.name) }

    @Test func aStillLiftInsideTheBoundsIsADrag() throws {
        // Down 60 px into the 120 px of room: inside the bounds, nothing springs back.
        let run = try Self.replay(Self.stillDrag(from: (400, 300), by: (0, -60)))
        #expect(Self.names(run.gestures) == ["drag"], "\(run.lines)")
    }

    /// Past each edge the content rubber-bands and springs back when the finger lifts (the
    /// delegate hears `didEndDragging(willDecelerate: true)`), but the finger gave it nothing:
    /// a drag, then the bounce.
    @Test(arguments: [
        ("top", (400.0, 100.0), (0.0, 150.0)), ("bottom", (400.0, 400.0), (0.0, -300.0)),
        ("left", (100.0, 240.0), (150.0, 0.0)), ("right", (700.0, 240.0), (-400.0, 0.0)),
    ])
    func aStillLiftPastAnEdgeIsADragAndABounce(edge: String, from: (Double, Double), by: (Double, Double)) throws {
        let run = try Self.replay(Self.stillDrag(from: from, by: by))
        #expect(Self.names(run.gestures) == ["drag", "bounce"], "\(run.lines)")
        if case let .bounce(bounced, _) = run.gestures.last { #expect("\(bounced)" == edge) }
        #expect(!run.lines.contains { $0.hasPrefix("flick") }, "\(run.lines)")
    }

    /// Two fingers spread past the maximum zoom, held, lifted one after the other: the zoom
    /// bounces back to its limit; the last finger's lift is no flick.
    @Test func aStillLiftZoomedPastTheLimitIsNoFlick() throws {
        var s = TouchScript(description: Self.panel)
        s.idle(0)
        var t = 0.1
        s.down(0, 360, 240, t); s.down(1, 440, 240, t); s.report(t)
        for i in 1...40 {
            // Radius 40 → 360 px: a scale of 9, past the maximum of 4.
            t += 0.008
            let r = 40 + 8 * Double(i)
            s.move(0, 400 - r, 240, t); s.move(1, 400 + r, 240, t); s.report(t)
        }
        for _ in 0..<15 { t += 0.008; s.report(t) }
        t += 0.008
        s.up(1, t); s.report(t)
        for _ in 0..<15 { t += 0.008; s.report(t) }
        t += 0.008
        s.up(0, t); s.report(t)
        s.idle(t + 2)
        let run = try Self.replay(s)
        #expect(run.gestures.first.map { if case .pinch = $0 { true } else { false } } == true, "\(run.lines)")
        #expect(!Self.names(run.gestures).contains("flick"), "\(run.lines)")
    }

    /// The control: a fast lift is a flick, with the finger's momentum.
    @Test func aFastLiftIsAFlick() throws {
        var s = TouchScript(description: Self.panel)
        s.idle(0)
        let end = s.drag(from: (400, 400), to: (400, 300), seconds: 0.05, t: 0.1)
        s.idle(end + 2)
        let run = try Self.replay(s)
        #expect(Self.names(run.gestures).first == "flick", "\(run.lines)")
    }
}

/// Replay shows what the live daemon would do (issue 20, part 3): a panel whose touches may
/// carry no position (the Raspberry Pi 7" ft5x06's spurious down/up pairs with only a tracking
/// id) is a touchscreen by its capabilities, and those touches are dropped, not refused.
@Suite struct PositionlessTouchTests {
    @Test func aPanelSendingTouchesWithoutPositionsIsReplayedAsLiveWouldRunIt() throws {
        var s = TouchScript(description: GestureNamingTests.panel)
        s.idle(0)
        // Spurious pairs in slot 1, which never reports a position: down, then up a report later.
        for t in [0.2, 1.7, 3.1] {
            s.downWithoutPosition(1, t); s.report(t)
            s.up(1, t + 0.012); s.report(t + 0.012)
        }
        // Real taps between them, in slot 0.
        s.tap(at: 200, 100, t: 1.0)
        s.tap(at: 600, 300, t: 2.5)
        s.idle(5)
        var notes: [String] = []
        let run = try GestureNamingTests.replay(s) { notes.append($0) }
        #expect(run.lines == ["tap at (200, 100)", "tap at (600, 300)"], "\(run.lines)")
        // Said once at the first, and the rest at the end: not a line each.
        let said = notes.filter { $0.contains("phantom touch") }
        #expect(said.count == 2 && said[0].contains(": 1 phantom touch ignored") && said[1].contains(": 2 phantom touches ignored"),
                "\(notes)")
    }
}
