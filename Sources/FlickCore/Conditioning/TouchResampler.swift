/// Where each finger is when a frame is *shown*, from the reports before it: a frame is shown
/// after the latest report (up to one report interval old) and after it is prepared (the frame
/// presenter latches frames of a drag a few ms before their vblank), so the content would trail
/// a moving finger by both. Android resamples touches to the frame time for the same reason;
/// flickd knows the presentation time exactly (the frame presenter's vblank), so it resamples
/// to that.
///
/// The presentation always lies after the latest report, so a position is extrapolated, within
/// bounds that keep it from overshooting where the finger stops (docs/input.md, "Resampling"):
/// - from the velocity over the last reports spanning at least 12 ms (one report at 60 Hz,
///   three at 200 Hz: a fast panel's report-to-report noise averages out), no further than
///   `maximumPrediction` ahead of the latest report;
/// - not from reports more than `maximumGap` apart (a pause or a slow panel: no trend to trust);
/// - not when the panel has been silent for two report intervals (some panels stop reporting a
///   finger that stops);
/// - a finger turning is predicted only as far ahead as its sideways acceleration keeps a
///   straight-line guess within `errorBound`; a finger speeding up, at the mean of its last two
///   speeds; a finger slowing down is predicted to keep braking (harder, if its braking grew),
///   never past where that stops it.
/// `TouchPrediction`, its owner, also never lets a prediction step the content back against
/// the way the reports move it.
/// A time within the reports is interpolated between the two around it.
public struct TouchResampler: Sendable {
    /// Its tunables.
    public struct Configuration: Hashable, Sendable {
        /// How far ahead of the latest report a position may be predicted; 0 turns resampling off.
        public var maximumPrediction: Duration
        /// Reports further apart than this are not extrapolated from (Android's 20 ms).
        public var maximumGap: Duration = .milliseconds(20)

        /// Creates a configuration.
        public init(maximumPrediction: Duration) {
            self.maximumPrediction = maximumPrediction
        }

        /// Whether anything is predicted.
        public var isEnabled: Bool { maximumPrediction > .zero }
    }

    /// One report of one contact.
    struct Sample: Hashable, Sendable {
        var time: Instant
        var position: Point
    }

    /// The tunables.
    public var configuration: Configuration
    /// Reports kept per contact: two spans of `minimumSpan` on a 250 Hz panel.
    static let historyLength = 8
    /// The last reports of each contact that is down (up to `historyLength`), oldest first.
    private var history: [ContactID: [Sample]] = [:]
    /// The contacts down after the latest frame, in its order.
    private var down: [Contact] = []
    /// The latest frame's time.
    private var latest: Instant?

    /// Creates a resampler.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Takes one frame's reports (every contact that is down is a report of where it is then:
    /// a finger that does not move is a finger at rest, which ends its prediction).
    public mutating func add(_ frame: TouchFrame) {
        for contact in frame.ended { history[contact.id] = nil }
        for contact in frame.contacts where contact.position.isFinite {
            var samples = history[contact.id, default: []]
            if let last = samples.last, last.time >= frame.time { samples.removeLast() }
            samples.append(Sample(time: frame.time, position: contact.position))
            if samples.count > Self.historyLength { samples.removeFirst(samples.count - Self.historyLength) }
            history[contact.id] = samples
        }
        down = frame.contacts
        latest = frame.time
    }

    /// The fingers that are down as they will be at `t`, a frame of moves only, or nil when
    /// nothing is down or nothing would differ from the latest reports.
    /// - Parameter now: the time it is asked at; a panel silent since two report intervals
    ///   before `now` has stopped reporting a still finger, and nothing is predicted.
    public func frame(at t: Instant, now: Instant) -> TouchFrame? {
        guard configuration.isEnabled, !down.isEmpty else { return nil }
        var moved = false
        let contacts = down.map { contact -> Contact in
            guard let samples = history[contact.id] else { return contact }
            var c = contact
            c.position = position(of: samples, at: t, now: now)
            if c.position != contact.position { moved = true }
            return c
        }
        return moved ? TouchFrame(time: max(t, latest ?? t), contacts: contacts) : nil
    }

    /// One contact's position at `t`.
    func position(of samples: [Sample], at t: Instant, now: Instant) -> Point {
        guard let last = samples.last else { return .zero }
        guard samples.count >= 2 else { return last.position }
        if t <= last.time {
            // Between reports: the straight line between the two around `t`.
            guard let after = samples.firstIndex(where: { $0.time >= t }) else { return last.position }
            guard after > 0 else { return samples[0].position }
            return Self.interpolate(samples[after - 1], samples[after], at: t)
        }
        let interval = last.time - samples[samples.count - 2].time
        guard interval > .zero, interval <= configuration.maximumGap,
              now - last.time <= interval + interval,
              let recent = Self.velocity(samples, endingAt: samples.count - 1, gap: configuration.maximumGap) else {
            return last.position
        }
        let speed = recent.velocity.length
        guard speed > 0 else { return last.position }
        var ahead = min(t - last.time, configuration.maximumPrediction).inSeconds
        let direction = recent.velocity * (1 / speed)
        guard let before = Self.velocity(samples, endingAt: recent.from, gap: configuration.maximumGap) else {
            return last.position + direction * (speed * ahead)
        }
        // A finger turning: predict only as far ahead as its sideways acceleration keeps the
        // error of a straight-line guess within `errorBound` (½·a·h²). Speeding up along the way
        // needs no bound (a straight line falls short); slowing down is braked below.
        let acceleration = (recent.velocity - before.velocity) * (1 / ((before.span + recent.span) / 2))
        let along = acceleration.dx * direction.dx + acceleration.dy * direction.dy
        let sideways = (acceleration - direction * along).length
        if sideways > 0 { ahead = min(ahead, (2 * Self.errorBound / sideways).squareRoot()) }
        var travel = speed * ahead
        if along > 0 {
            // Speeding up: at the mean of the last two speeds. A panel whose report times
            // jitter (the ELAN's 8–10 ms) shows speed-ups the next report takes back; a real
            // one is trailed a little longer.
            let previous = before.velocity.dx * direction.dx + before.velocity.dy * direction.dy
            travel = max(0, min(speed, (speed + previous) / 2)) * ahead
        }
        // Slowing along the motion: the deceleration applied from the latest report, never past
        // where it stops the finger. A finger braking harder report by report (a stop begins
        // gently and then bites) brakes harder still over the horizon: the deceleration grows
        // at the rate it grew between the last two estimates, or a slow panel's stop is
        // overshot by the growth it has not seen yet.
        let deceleration = -along
        if deceleration > 0 {
            // Each velocity stands for the middle of its span, each deceleration for the middle
            // of its two velocities': the latest deceleration is that of (3·recent + before)/4
            // before the latest report.
            let age = (3 * recent.span + before.span) / 4
            var growth = 0.0
            if let earlier = Self.velocity(samples, endingAt: before.from, gap: configuration.maximumGap) {
                let previous = (before.velocity - earlier.velocity) * (1 / ((earlier.span + before.span) / 2))
                let braking = -(previous.dx * direction.dx + previous.dy * direction.dy)
                growth = max(0, (deceleration - braking) / (recent.span / 4 + before.span / 2 + earlier.span / 4))
            }
            let current = max(0, speed - (deceleration + growth * (age - recent.span / 4)) * recent.span / 2)
            travel = Self.braking(from: current, deceleration: deceleration + growth * age, growth: growth, over: ahead)
        }
        return last.position + direction * travel
    }

    /// How far a finger at `speed` travels in `seconds` while braking at `deceleration` that
    /// grows by `growth` per second, stopping where its speed reaches zero.
    static func braking(from speed: Double, deceleration: Double, growth: Double, over seconds: Double) -> Double {
        guard growth > 0 else {
            let h = min(seconds, speed / deceleration)
            return speed * h - deceleration * h * h / 2
        }
        // v(h) = speed − d·h − g·h²/2 reaches zero at the positive root; travel is its integral.
        let stop = (-deceleration + (deceleration * deceleration + 2 * growth * speed).squareRoot()) / growth
        let h = min(seconds, stop)
        return speed * h - deceleration * h * h / 2 - growth * h * h * h / 6
    }

    /// The velocity over the reports ending at `end`, spanning at least `minimumSpan` (so a
    /// fast panel's report-to-report noise averages out) with no gap wider than `gap`, and the
    /// index it starts from.
    static func velocity(_ samples: [Sample], endingAt end: Int, gap: Duration) -> (velocity: Vector, span: Double, from: Int)? {
        var from = end
        while from > 0 {
            guard samples[from].time - samples[from - 1].time <= gap else { break }
            from -= 1
            if samples[end].time - samples[from].time >= minimumSpan { break }
        }
        let span = (samples[end].time - samples[from].time).inSeconds
        guard from < end, span > 0 else { return nil }
        return ((samples[end].position - samples[from].position) * (1 / span), span, from)
    }

    /// The error a straight-line prediction may make on a turning finger, in pixels: it bounds
    /// the horizon while the finger's way bends (the acceleration is measured over the last two
    /// spans, so a sudden turn is still overshot by more: BENCHMARKS.md).
    static let errorBound = 2.0

    /// The shortest time a velocity is measured over: a 60 Hz panel's interval is one report,
    /// a 200 Hz panel's three.
    static let minimumSpan = Duration.milliseconds(12)

    static func interpolate(_ a: Sample, _ b: Sample, at t: Instant) -> Point {
        let span = (b.time - a.time).inSeconds
        guard span > 0 else { return b.position }
        let k = (t - a.time).inSeconds / span
        return a.position + (b.position - a.position) * k
    }
}
