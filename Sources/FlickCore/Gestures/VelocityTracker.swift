/// Estimates a finger's velocity from its recent positions: a least-squares fit of degree 2
/// over the last 100 ms, at most 20 samples, forgetting everything before a 40 ms pause
/// (Android's and Flutter's `LeastSquaresVelocityTracker`). The velocity is the fit's slope at
/// the newest sample.
///
/// It copes with a single sample (velocity 0), equal timestamps (the fit drops to degree 1, then
/// 0) and noise (the fit smooths it).
public struct VelocityTracker: Sendable {
    private struct Sample: Sendable {
        var time: Instant
        var position: Point
    }

    private var samples: [Sample] = []
    private let window: Duration
    private let capacity: Int
    private let resetGap: Duration

    /// Creates a tracker.
    /// - Parameters:
    ///   - window: the age beyond which samples are not used.
    ///   - capacity: the most samples used.
    ///   - resetGap: a pause after which older samples are dropped.
    public init(window: Duration = .milliseconds(100), capacity: Int = 20, resetGap: Duration = .milliseconds(40)) {
        self.window = window
        self.capacity = Swift.max(capacity, 1)
        self.resetGap = resetGap
        samples.reserveCapacity(self.capacity + 1)
    }

    /// Forgets every sample.
    public mutating func reset() {
        samples.removeAll(keepingCapacity: true)
    }

    /// Adds the position at `time`. A sample older than the newest is ignored.
    /// - Parameters:
    ///   - position: where the tracked point is.
    ///   - time: the frame's kernel time.
    public mutating func add(_ position: Point, at time: Instant) {
        guard position.isFinite else { return }
        if let last = samples.last {
            if time < last.time { return }
            if time - last.time > resetGap { samples.removeAll(keepingCapacity: true) }
        }
        samples.append(Sample(time: time, position: position))
        if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
    }

    /// The velocity in px/s at `time` (normally the lift's): zero if the finger paused for the
    /// reset gap before it.
    public func velocity(at time: Instant) -> Vector {
        guard let newest = samples.last, time - newest.time <= resetGap else { return .zero }
        var ts: [Double] = [], xs: [Double] = [], ys: [Double] = []
        for s in samples.reversed() {
            let age = newest.time - s.time
            if age > window { break }
            ts.append(-age.inSeconds)
            xs.append(s.position.x)
            ys.append(s.position.y)
        }
        return Vector(dx: Self.slope(ts, xs), dy: Self.slope(ts, ys))
    }

    /// The slope at t = 0 of the least-squares polynomial through (t, v), degree 2 if the
    /// samples determine it, else 1, else 0.
    static func slope(_ t: [Double], _ v: [Double]) -> Double {
        let n = t.count
        guard n >= 2 else { return 0 }
        // Normal equations for v ≈ a + b·t + c·t²; sums of powers of t.
        var s = [Double](repeating: 0, count: 5), r = [Double](repeating: 0, count: 3)
        for i in 0..<n {
            var p = 1.0
            for k in 0..<5 {
                s[k] += p
                if k < 3 { r[k] += p * v[i] }
                p *= t[i]
            }
        }
        if n >= 3 {
            let m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
            if let solution = solve3(m, r) { return solution[1] }
        }
        // Degree 1: b = (n·Σtv − Σt·Σv) / (n·Σt² − (Σt)²).
        let det = s[0] * s[2] - s[1] * s[1]
        guard abs(det) > 1e-18 * Swift.max(1, s[0] * s[2]) else { return 0 }
        return (s[0] * r[1] - s[1] * r[0]) / det
    }

    /// Solves a 3×3 system by Cramer's rule; nil when it is (nearly) singular.
    private static func solve3(_ m: [[Double]], _ r: [Double]) -> [Double]? {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        let scale = m[0][0] * m[1][1] * m[2][2]
        guard d.isFinite, abs(d) > 1e-12 * Swift.max(abs(scale), 1e-300) else { return nil }
        var out = [Double](repeating: 0, count: 3)
        for col in 0..<3 {
            var a = m
            for row in 0..<3 { a[row][col] = r[row] }
            out[col] = det(a) / d
        }
        return out.allSatisfy(\.isFinite) ? out : nil
    }
}
