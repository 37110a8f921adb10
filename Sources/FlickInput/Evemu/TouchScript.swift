import FlickCore

/// Writes scripted gestures on a protocol B touchscreen as an evemu recording: taps, holds,
/// straight drags and pinches at a 125 Hz report rate, with times in seconds from the
/// recording's start. The demo recording and the tests' recordings are made with it.
public struct TouchScript: Sendable {
    /// The recording so far.
    public private(set) var writer: EvemuWriter
    private var trackingID: Int32 = 1
    /// Seconds between reports while a finger moves.
    public let rate: Double

    /// Starts a script on a panel described by `description` (a slot touchscreen), reporting
    /// every `rate` seconds while fingers move (125 Hz by default).
    public init(description: DeviceDescription, rate: Double = 0.008) {
        writer = EvemuWriter(description: description)
        self.rate = rate
    }

    /// The recording as evemu text (header and events).
    public var text: String { writer.text }

    /// The kernel time of script time `t`: recordings start at a realistic monotonic time.
    public func time(_ t: Double) -> Instant { .seconds(1_700_000_000) + .nanoseconds(Int64((t * 1e9).rounded())) }

    /// A report with nothing touching: a lead-in, so a recording starts before its first touch.
    public mutating func idle(_ t: Double) { report(t) }

    /// Ends the report at `t` (`SYN_REPORT`): the moves, downs and ups written since form one frame.
    public mutating func report(_ t: Double) { writer.report(time(t)) }

    /// A finger down in `slot` at (x, y), device units.
    public mutating func down(_ slot: Int32, _ x: Double, _ y: Double, _ t: Double) {
        downWithoutPosition(slot, t)
        move(slot, x, y, t)
    }

    /// A contact in `slot` that reports only its tracking id, no position (a fault of some
    /// panels, the Raspberry Pi 7" ft5x06's spurious touches among them).
    public mutating func downWithoutPosition(_ slot: Int32, _ t: Double) {
        writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
        writer.abs(time(t), EventCode.ABS_MT_TRACKING_ID, trackingID)
        trackingID += 1
    }

    /// The finger in `slot` moves to (x, y).
    public mutating func move(_ slot: Int32, _ x: Double, _ y: Double, _ t: Double) {
        writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
        writer.abs(time(t), EventCode.ABS_MT_POSITION_X, Int32(x.rounded()))
        writer.abs(time(t), EventCode.ABS_MT_POSITION_Y, Int32(y.rounded()))
    }

    /// The finger in `slot` lifts.
    public mutating func up(_ slot: Int32, _ t: Double) {
        writer.abs(time(t), EventCode.ABS_MT_SLOT, slot)
        writer.abs(time(t), EventCode.ABS_MT_TRACKING_ID, -1)
    }

    /// A 90 ms tap at (x, y) starting at `t`.
    public mutating func tap(at x: Double, _ y: Double, t: Double) {
        down(0, x, y, t); writer.report(time(t))
        up(0, t + 0.09); writer.report(time(t + 0.09))
    }

    /// A touch held for `seconds`; with `jitter`, a finger that is never quite still: it reports
    /// every `rate`, alternating between x and x + jitter, as a noisy sensor does.
    /// - Returns: when the finger lifted.
    @discardableResult
    public mutating func hold(at x: Double, _ y: Double, seconds: Double, t: Double, jitter: Double = 0) -> Double {
        down(0, x, y, t); report(t)
        if jitter != 0 {
            var now = t, i = 0
            while now + rate < t + seconds {
                now += rate
                i += 1
                move(0, x + jitter * Double(i % 2), y, now); report(now)
            }
        }
        up(0, t + seconds); report(t + seconds)
        return t + seconds
    }

    /// A straight drag at constant speed, lifting one report after the last move (a flick when
    /// fast).
    /// - Returns: when the finger lifted.
    @discardableResult
    public mutating func drag(from a: (Double, Double), to b: (Double, Double), seconds: Double, t: Double) -> Double {
        down(0, a.0, a.1, t); report(t)
        let steps = max(1, Int((seconds / rate).rounded()))
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            move(0, a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, t + Double(i) * rate)
            report(t + Double(i) * rate)
        }
        let end = t + Double(steps + 1) * rate
        up(0, end); report(end)
        return end
    }

    /// Two fingers on a horizontal line through `centre`, from radius `r0` to `r1`; with
    /// `jitter`, the first finger strays up to 2 × jitter below the line (sensor noise).
    /// - Returns: when the fingers lifted.
    @discardableResult
    public mutating func pinch(centre c: (Double, Double), from r0: Double, to r1: Double, seconds: Double, t: Double,
                               jitter: Double = 0) -> Double {
        down(0, c.0 - r0, c.1, t); down(1, c.0 + r0, c.1, t); report(t)
        let steps = max(1, Int((seconds / rate).rounded()))
        for i in 1...steps {
            let r = r0 + (r1 - r0) * Double(i) / Double(steps)
            let ti = t + Double(i) * rate
            move(0, c.0 - r, c.1 + jitter * Double(i % 3), ti); move(1, c.0 + r, c.1, ti); report(ti)
        }
        let end = t + Double(steps + 1) * rate
        up(0, end); up(1, end); report(end)
        return end
    }

    /// Two fingers on a horizontal line through a centroid that moves from `c0` to `c1`, from
    /// radius `r0` to `r1`: a pinch that also pans. The fingers lift together after the last
    /// move, holding still for `hold` seconds first (so the lift is no flick).
    /// - Returns: when the fingers lifted.
    @discardableResult
    public mutating func pinch(from c0: (Double, Double), to c1: (Double, Double), radius r0: Double, to r1: Double,
                               seconds: Double, t: Double, hold: Double = 0.2) -> Double {
        down(0, c0.0 - r0, c0.1, t); down(1, c0.0 + r0, c0.1, t); report(t)
        let steps = max(1, Int((seconds / rate).rounded()))
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            let c = (c0.0 + (c1.0 - c0.0) * f, c0.1 + (c1.1 - c0.1) * f), r = r0 + (r1 - r0) * f
            let ti = t + Double(i) * rate
            move(0, c.0 - r, c.1, ti); move(1, c.0 + r, c.1, ti); report(ti)
        }
        let end = t + Double(steps) * rate + hold
        up(0, end); up(1, end); report(end)
        return end
    }
}
