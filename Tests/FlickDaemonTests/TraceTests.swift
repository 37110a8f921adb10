import FlickControl
import FlickCore
import FlickDisplay
@testable import FlickDaemon
import FlickInput
import Foundation
import Testing

/// `flickd replay --trace` (issue 18): every machine's steps, in order, with the gestures they
/// made. A known recording — a tap, a slow drag that ends still, a flick, a pinch — gives
/// exactly these lines.
@Suite struct TraceTests {
    /// The recording: an 800×480 panel whose units are pixels, 125 Hz reports.
    static func recording() -> String {
        var s = TouchScript(description: .slotTouchscreen(width: 800, height: 480, slots: 2, resolution: 4))
        s.idle(0)
        s.tap(at: 400, 240, t: 0.1)
        // A slow drag that stops before the lift: no momentum.
        s.down(0, 400, 400, 1.0); s.report(1.0)
        for i in 1...10 { s.move(0, 400, 400 - 12 * Double(i), 1.0 + 0.008 * Double(i)); s.report(1.0 + 0.008 * Double(i)) }
        s.up(0, 1.3); s.report(1.3)
        s.drag(from: (400, 400), to: (400, 200), seconds: 0.05, t: 2.0)
        s.pinch(centre: (400, 240), from: 60, to: 150, seconds: 0.2, t: 6.0)
        s.idle(8)
        return s.text
    }

    /// The trace lines and journal sentences of a replay of `text`, as `flickd replay --trace`
    /// prints them.
    static func trace(_ text: String) throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-trace-\(UUID()).evemu").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        var options = Replay.Options(recording: file, size: PixelSize(width: 800, height: 480))
        options.tracing = true
        let sink = KeptOutputs()
        var lines: [String] = []
        sink.onOutput = { output, view in
            if case let .transition(step) = output.kind { lines.append(step.line) }
            if let entry = GestureLog.entry(for: output, view: view) {
                lines.append(output.time.seconds.fixed(3, width: 10) + " s  " + entry.message)
            }
        }
        _ = try Replay.run(options, configuration: Configuration(), sink: sink, note: { _ in })
        return lines
    }

    @Test func aTapADragAFlickAndAPinchTraceExactly() throws {
        let lines = try Self.trace(Self.recording())
        #expect(lines == Self.expected, "\(lines.joined(separator: "\n"))")
    }

    /// Reviewed line by line: the tap goes pending → idle on a quick lift; the slow drag drags and
    /// lifts still (no momentum); the flick decelerates, bounces at the end and the indicators
    /// fade 0.3 s after; both pinch fingers land in one report, so the second finger turns the
    /// pending touch into a drag and the recogniser to pinching. Frames are traced only when the
    /// presenter's state changes: a flick is one frame in flight after another. While a finger
    /// is down, each frame waits (latching) until 4 ms before its vblank
    /// (`input.resample_lead_ms`), so the fingers are predicted over as little as possible; a
    /// touch that moves nothing ends its wait with nothing new (0.113 s). The slow drag stops
    /// dead at 1.080 s: the frame for 1.083 s predicted it from the report at 1.072 s no further
    /// than the 8 ms bound (`input.resample_max_prediction_ms`, issue 36), to where it stopped,
    /// so once the panel falls silent no frame has to take a prediction back (with 15 ms one
    /// did, at 1.100 s). The flick's first frame after the lift is still the one latched for
    /// 2.067 s.
    static let expected: [String] = [
        "     0.000 s  frame: idle → needsDisplay → inFlight",
        "     0.000 s  frame: inFlight → presented → idle",
        "     0.100 s  gesture: idle → down → following",
        "     0.100 s  scroll: idle → touchDown → tracking",
        "     0.100 s  tap: idle → down → pending",
        "     0.100 s  frame: idle → needsDisplay → latching",
        "     0.113 s  frame: latching → wake → idle",
        "     0.190 s  scroll: tracking → release → idle",
        "     0.190 s  tap: pending → lift → idle",
        "     0.190 s  tap at (400, 240)",
        "     0.190 s  gesture: following → lift → idle",
        "     1.000 s  gesture: idle → down → following",
        "     1.000 s  scroll: idle → touchDown → tracking",
        "     1.000 s  tap: idle → down → pending",
        "     1.000 s  frame: idle → needsDisplay → latching",
        "     1.013 s  frame: latching → wake → inFlight",
        "     1.016 s  tap: pending → move → dragging",
        "     1.016 s  scroll: tracking → drag → dragging",
        "     1.017 s  frame: inFlight → presented → latching",
        "     1.029 s  frame: latching → wake → inFlight",
        "     1.033 s  frame: inFlight → presented → latching",
        "     1.046 s  frame: latching → wake → inFlight",
        "     1.050 s  frame: inFlight → presented → latching",
        "     1.063 s  frame: latching → wake → inFlight",
        "     1.067 s  frame: inFlight → presented → latching",
        "     1.079 s  frame: latching → wake → inFlight",
        "     1.083 s  frame: inFlight → presented → latching",
        "     1.096 s  frame: latching → wake → idle",
        "     1.300 s  tap: dragging → lift → idle",
        "     1.300 s  gesture: following → lift → idle",
        "     1.300 s  scroll: dragging → release → idle",
        "     1.300 s  drag by (0, -120) px, no momentum",
        "     1.300 s  frame: idle → wake → inFlight",
        "     1.600 s  frame: inFlight → presented → idle",
        "     2.000 s  gesture: idle → down → following",
        "     2.000 s  scroll: idle → touchDown → tracking",
        "     2.000 s  tap: idle → down → pending",
        "     2.000 s  frame: idle → needsDisplay → latching",
        "     2.008 s  tap: pending → move → dragging",
        "     2.008 s  scroll: tracking → drag → dragging",
        "     2.013 s  frame: latching → wake → inFlight",
        "     2.017 s  frame: inFlight → presented → latching",
        "     2.029 s  frame: latching → wake → inFlight",
        "     2.033 s  frame: inFlight → presented → latching",
        "     2.046 s  frame: latching → wake → inFlight",
        "     2.050 s  frame: inFlight → presented → latching",
        "     2.056 s  tap: dragging → lift → idle",
        "     2.056 s  gesture: following → lift → idle",
        "     2.056 s  scroll: dragging → release → decelerating",
        "     2.056 s  flick up 2667 px/s → 1144 px to rest at (0, 1440) in 1.67 s",
        "     2.063 s  frame: latching → wake → inFlight",
        "     3.733 s  scroll: decelerating → tick → idle",
        "     3.733 s  bounce off the bottom edge, 13.9 px past it",
        "     4.033 s  frame: inFlight → presented → idle",
        "     6.000 s  gesture: idle → down → following",
        "     6.000 s  scroll: idle → touchDown → tracking",
        "     6.000 s  tap: idle → down → pending",
        "     6.000 s  tap: pending → secondFinger → dragging",
        "     6.000 s  gesture: following → down → pinching",
        "     6.000 s  zoom: idle → begin → pinching",
        "     6.000 s  scroll: tracking → drag → dragging",
        "     6.000 s  frame: idle → needsDisplay → latching",
        "     6.013 s  frame: latching → wake → inFlight",
        "     6.017 s  frame: inFlight → presented → latching",
        "     6.029 s  frame: latching → wake → inFlight",
        "     6.033 s  frame: inFlight → presented → latching",
        "     6.046 s  frame: latching → wake → inFlight",
        "     6.050 s  frame: inFlight → presented → latching",
        "     6.063 s  frame: latching → wake → inFlight",
        "     6.067 s  frame: inFlight → presented → latching",
        "     6.079 s  frame: latching → wake → inFlight",
        "     6.083 s  frame: inFlight → presented → latching",
        "     6.096 s  frame: latching → wake → inFlight",
        "     6.100 s  frame: inFlight → presented → latching",
        "     6.113 s  frame: latching → wake → inFlight",
        "     6.117 s  frame: inFlight → presented → latching",
        "     6.129 s  frame: latching → wake → inFlight",
        "     6.133 s  frame: inFlight → presented → latching",
        "     6.146 s  frame: latching → wake → inFlight",
        "     6.150 s  frame: inFlight → presented → latching",
        "     6.163 s  frame: latching → wake → inFlight",
        "     6.167 s  frame: inFlight → presented → latching",
        "     6.179 s  frame: latching → wake → inFlight",
        "     6.183 s  frame: inFlight → presented → latching",
        "     6.196 s  frame: latching → wake → inFlight",
        "     6.200 s  frame: inFlight → presented → latching",
        "     6.208 s  gesture: pinching → lift → following",
        "     6.208 s  zoom: pinching → end → idle",
        "     6.208 s  pinch 1 → 2.5",
        "     6.208 s  tap: dragging → lift → idle",
        "     6.208 s  gesture: following → lift → idle",
        "     6.208 s  scroll: dragging → release → idle",
        "     6.213 s  frame: latching → wake → inFlight",
        "     6.517 s  frame: inFlight → presented → idle",
    ]
}
