import FlickCore

/// The scripted session bundled as `demo/flick-demo.event`: what `scripts/run.sh` replays on a
/// machine with no touchscreen. An 800×480 protocol B panel (10 units/mm): a tap, a flick up,
/// a slow drag back, a pinch out and in, a double tap, a long press. Generated here, so the file
/// is the project's own; a test keeps the committed copy equal to this.
public enum DemoRecording {
    /// The recording as evemu text.
    public static func text() -> String {
        var s = Script()
        s.tap(at: 400, 240, t: 0.5)
        s.drag(from: (400, 400), to: (400, 160), seconds: 0.08, t: 1.5)        // a flick up
        s.drag(from: (200, 100), to: (200, 300), seconds: 2.5, t: 6.0)          // a slow drag down, no momentum
        s.pinch(centre: (400, 240), from: 60, to: 180, seconds: 0.6, t: 9.0)
        s.pinch(centre: (400, 240), from: 180, to: 50, seconds: 0.6, t: 11.0)   // below 1: bounces back
        s.tap(at: 300, 200, t: 13.0)
        s.tap(at: 302, 201, t: 13.2)                                           // a double tap
        s.hold(at: 500, 300, seconds: 0.8, t: 15.0)                            // a long press
        return s.writer.text
    }

    private struct Script {
        var writer = EvemuWriter(description: .slotTouchscreen(name: "flickd demo panel", width: 800, height: 480,
                                                                 slots: 10, resolution: 10))
        var trackingID: Int32 = 1
        let rate = 0.008   // 125 Hz reports

        func time(_ t: Double) -> Instant { .seconds(1_700_000_000) + .nanoseconds(Int64((t * 1e9).rounded())) }

        mutating func down(_ slot: Int32, _ x: Double, _ y: Double, _ t: Double) {
            writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
            writer.abs(time(t), EventCode.ABS_MT_TRACKING_ID, trackingID)
            trackingID += 1
            move(slot, x, y, t)
        }

        mutating func move(_ slot: Int32, _ x: Double, _ y: Double, _ t: Double) {
            writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
            writer.abs(time(t), EventCode.ABS_MT_POSITION_X, Int32(x.rounded()))
            writer.abs(time(t), EventCode.ABS_MT_POSITION_Y, Int32(y.rounded()))
        }

        mutating func up(_ slot: Int32, _ t: Double) {
            writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
            writer.abs(time(t), EventCode.ABS_MT_TRACKING_ID, -1)
        }

        mutating func tap(at x: Double, _ y: Double, t: Double) {
            down(0, x, y, t); writer.report(time(t))
            up(0, t + 0.09); writer.report(time(t + 0.09))
        }

        mutating func hold(at x: Double, _ y: Double, seconds: Double, t: Double) {
            down(0, x, y, t); writer.report(time(t))
            up(0, t + seconds); writer.report(time(t + seconds))
        }

        mutating func drag(from a: (Double, Double), to b: (Double, Double), seconds: Double, t: Double) {
            down(0, a.0, a.1, t); writer.report(time(t))
            let steps = max(1, Int((seconds / rate).rounded()))
            for i in 1...steps {
                let f = Double(i) / Double(steps)
                move(0, a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, t + Double(i) * rate)
                writer.report(time(t + Double(i) * rate))
            }
            up(0, t + Double(steps) * rate + rate); writer.report(time(t + Double(steps) * rate + rate))
        }

        mutating func pinch(centre c: (Double, Double), from r0: Double, to r1: Double, seconds: Double, t: Double) {
            down(0, c.0 - r0, c.1, t); down(1, c.0 + r0, c.1, t); writer.report(time(t))
            let steps = max(1, Int((seconds / rate).rounded()))
            for i in 1...steps {
                let r = r0 + (r1 - r0) * Double(i) / Double(steps)
                let ti = t + Double(i) * rate
                move(0, c.0 - r, c.1, ti); move(1, c.0 + r, c.1, ti); writer.report(time(ti))
            }
            let end = t + Double(steps + 1) * rate
            up(0, end); up(1, end); writer.report(time(end))
        }
    }
}
