/// The 1€ filter (Casiez, Roussel and Vogel, CHI 2012) on one point: a first-order low-pass
/// whose cutoff rises with speed, so a still finger's noise is smoothed away while a moving
/// finger is followed with little lag. At cutoff `f` a first-order low-pass trails a steady
/// motion by `1 / (2π f)` seconds, which is what `Parameters` are chosen by (docs/input.md,
/// "Smoothing").
///
/// Both axes share one cutoff, from the speed of the point (not of each axis): a diagonal drag
/// is smoothed as a straight one is, and the filtered path does not bend towards an axis.
public struct OneEuroFilter: Hashable, Sendable {
    /// The three tunables of the filter.
    public struct Parameters: Hashable, Sendable {
        /// The cutoff (Hz) for a still point: lower smooths more and lags more when slow.
        public var minimumCutoff: Double
        /// How fast the cutoff rises with speed, Hz per px/s: higher lags less when fast.
        public var beta: Double
        /// The cutoff (Hz) of the speed estimate that drives the cutoff.
        public var derivativeCutoff: Double

        /// Creates parameters.
        public init(minimumCutoff: Double, beta: Double, derivativeCutoff: Double) {
            self.minimumCutoff = minimumCutoff
            self.beta = beta
            self.derivativeCutoff = derivativeCutoff
        }

        /// The cutoff at `speed` px/s.
        public func cutoff(atSpeed speed: Double) -> Double { minimumCutoff + beta * speed }

        /// How far behind a steady motion at `speed` px/s the filtered point trails, in time.
        public func lag(atSpeed speed: Double) -> Duration {
            .seconds(double: 1 / (2 * Double.pi * cutoff(atSpeed: speed)))
        }
    }

    /// The tunables.
    public var parameters: Parameters
    /// The last input's time, the filtered point and the filtered velocity (px/s).
    private struct State: Hashable, Sendable {
        var time: Instant
        var point: Point
        var velocity: Vector
    }
    private var last: State?

    /// Creates a filter with nothing seen yet: its first point passes unchanged.
    public init(_ parameters: Parameters) {
        self.parameters = parameters
    }

    /// The filtered point for `p` seen at `t`. A point at or before the last one's time (two
    /// reports with one timestamp) replaces nothing: the filtered point stays.
    public mutating func filter(_ p: Point, at t: Instant) -> Point {
        guard let last, p.isFinite else {
            if p.isFinite { self.last = State(time: t, point: p, velocity: .zero) }
            return p
        }
        let dt = (t - last.time).inSeconds
        guard dt > 0 else { return last.point }
        let raw = (p - last.point) * (1 / dt)
        let velocity = last.velocity + (raw - last.velocity) * Self.alpha(cutoff: parameters.derivativeCutoff, dt: dt)
        let a = Self.alpha(cutoff: parameters.cutoff(atSpeed: velocity.length), dt: dt)
        let point = last.point + (p - last.point) * a
        self.last = State(time: t, point: point, velocity: velocity)
        return point
    }

    /// The smoothing factor of a first-order low-pass at `cutoff` Hz for a step of `dt` seconds.
    static func alpha(cutoff: Double, dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }
}
