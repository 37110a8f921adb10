import FlickCore
import FlickInput

/// Gesture + model cost per evdev event: a long recording of mixed gestures (taps, double taps,
/// flicks, slow drags, pinches, long presses) on a protocol B panel, written with the project's
/// own `EvemuWriter` and parsed back, then pushed through `TouchDecoder`, `GestureRecognizer` and
/// the scroll view on a virtual clock, with timers flushed by event time and animations stepped
/// at 60 Hz as the daemon would.
enum GestureBench {
    /// The recorded panel: 0…4095 on both axes, 20 units/mm (a 205 mm wide panel).
    static let device = DeviceDescription.slotTouchscreen(name: "flickd-bench panel", width: 4096, height: 4096,
                                                         slots: 10, resolution: 20)
    /// The screen the panel maps to.
    static let screen = Size(width: 1920, height: 1080)

    /// A recording of about `seconds` of mixed gestures, as parsed events.
    static func recording(seconds: Double) -> [InputEvent] {
        var script = Script()
        var t = 1.0
        while t < seconds {
            t = script.random(t)
        }
        // Parse the text back: the benchmark replays a genuine evemu recording, not a shortcut.
        guard let parsed = try? EvemuRecording.parse(script.writer.text, path: "flickd-bench.event") else {
            fatalError("flickd-bench: the generated recording does not parse")
        }
        return parsed.events
    }

    /// Replays `events` once; returns the nanoseconds spent, the frames decoded and the outputs
    /// produced (counted so the work cannot be optimised away).
    static func run(_ events: [InputEvent]) -> (ns: Int64, frames: Int, outputs: Int) {
        guard let transform = TouchTransform(description: device, mapping: TouchMapping(), outputSize: screen) else {
            fatalError("flickd-bench: no transform for the bench panel")
        }
        var decoder = TouchDecoder(description: device, transform: transform)
        var view = try! ScrollView(boundsSize: screen, contentSize: Size(width: 4096, height: 50_000))
        try! view.setZoomScaleLimits(minimum: 0.5, maximum: 4)
        var configuration = GestureConfiguration()
        configuration.pixelsPerMillimetre = transform.pixelsPerMillimetre
        var recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
        var outputs = 0
        var frames = 0
        var nextVblank = events.first?.time ?? .zero
        let vblank = Duration.nanoseconds(16_666_667)
        let start = monotonicNanoseconds()
        for event in events {
            guard let frame = decoder.feed(event) else { continue }
            frames += 1
            while nextVblank <= frame.time {
                if recognizer.scrollView.isAnimating { outputs += recognizer.advance(to: nextVblank).count }
                nextVblank = nextVblank + vblank
            }
            outputs += recognizer.fireTimers(upTo: frame.time).count
            outputs += recognizer.handle(frame).count
        }
        return (monotonicNanoseconds() - start, frames, outputs)
    }

    /// Writes gestures in screen pixels through `TouchScript` (device units, 125 Hz reports),
    /// in an order and with pauses drawn from a fixed seed.
    private struct Script {
        var touches = TouchScript(description: GestureBench.device)
        var rng: UInt64 = 0x1234_5678
        var writer: EvemuWriter { touches.writer }

        mutating func next(_ n: Int) -> Int {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Int((rng >> 33) % UInt64(n))
        }

        /// Screen pixels to device units.
        func units(_ p: (Double, Double)) -> (Double, Double) {
            (p.0 / GestureBench.screen.width * 4095, p.1 / GestureBench.screen.height * 4095)
        }

        /// One finger still for `seconds`, with a pixel of sensor jitter every report.
        mutating func hold(_ x: Double, _ y: Double, seconds: Double, t: Double) -> Double {
            let p = units((x, y))
            return touches.hold(at: p.0, p.1, seconds: seconds, t: t, jitter: units((1, 0)).0)
        }

        mutating func drag(from a: (Double, Double), to b: (Double, Double), seconds: Double, t: Double) -> Double {
            touches.drag(from: units(a), to: units(b), seconds: seconds, t: t)
        }

        mutating func pinch(from r0: Double, to r1: Double, seconds: Double, t: Double) -> Double {
            let scale = units((1, 0)).0
            return touches.pinch(centre: units((960, 540)), from: r0 * scale, to: r1 * scale, seconds: seconds, t: t,
                                 jitter: units((0, 1)).1)
        }

        /// One random gesture starting at `t`, then a pause; returns when the next may start.
        mutating func random(_ t: Double) -> Double {
            let x = Double(200 + next(1500)), y = Double(200 + next(700))
            var end: Double
            switch next(7) {
            case 0: end = hold(x, y, seconds: 0.09, t: t)                                   // tap
            case 1: end = hold(x, y, seconds: 0.08, t: t)                                   // double tap
                    end = hold(x + 3, y + 2, seconds: 0.08, t: end + 0.12)
            case 2: end = drag(from: (x, 900), to: (x, 900 - Double(200 + next(600))), seconds: 0.1, t: t)   // flick up
            case 3: end = drag(from: (x, 150), to: (x, 150 + Double(200 + next(700))), seconds: 0.12, t: t)  // flick down
            case 4: end = drag(from: (x, y), to: (x + Double(next(300)) - 150, y + Double(next(300)) - 150),
                               seconds: 1 + Double(next(100)) / 100, t: t)                    // slow drag
            case 5: end = next(2) == 0 ? pinch(from: 80, to: 300, seconds: 0.6, t: t)
                                       : pinch(from: 300, to: 90, seconds: 0.6, t: t)
            default: end = hold(x, y, seconds: 0.7, t: t)                                   // long press
            }
            return end + 0.3 + Double(next(700)) / 1000
        }
    }
}
