import RealModule

/// Flick momentum on one axis as a closed form of time (UIKit's, README "The scroll model in brief"):
/// v(t) = v₀·d^t_ms and x(t) = x₀ + v₀·(d^t_ms − 1)/(1000·ln d).
///
/// Being a function of elapsed time, never of steps, it gives the same path at 30, 60 or
/// 144 Hz. Positions and velocities are in offset space (px, px/s).
public struct Deceleration: Hashable, Sendable {
    /// The offset at release.
    public var origin: Double
    /// The velocity at release, px/s.
    public var velocity: Double
    /// The decay rate.
    public var rate: DecelerationRate

    /// Creates a decay from `origin` at `velocity`.
    public init(origin: Double, velocity: Double, rate: DecelerationRate) {
        self.origin = origin
        self.velocity = velocity
        self.rate = rate
    }

    /// Where the content comes to rest: x₀ − v₀/(1000·ln d).
    public var restPosition: Double { origin - velocity / rate.perSecondLog }

    /// The offset `t` seconds after release.
    public func position(at t: Double) -> Double {
        origin + velocity * (Double.exp(rate.perSecondLog * t) - 1) / rate.perSecondLog
    }

    /// The velocity `t` seconds after release.
    public func velocity(at t: Double) -> Double {
        velocity * Double.exp(rate.perSecondLog * t)
    }

    /// The time after which less than `threshold` px of travel remains; the motion ends there
    /// and snaps to `restPosition` (a jump below `threshold`).
    public func settleTime(threshold: Double) -> Double {
        // Remaining travel is |v(t)| / |1000·ln d|; solve |v₀|·e^(kt) = threshold·|k| for t.
        let k = rate.perSecondLog
        let limit = threshold * -k
        guard abs(velocity) > limit else { return 0 }
        return Double.log(limit / abs(velocity)) / k
    }

    /// The first time the motion reaches `edge`, if it ever does before resting.
    public func time(reaching edge: Double) -> Double? {
        let distance = edge - origin
        guard velocity != 0, distance.sign == velocity.sign || distance == 0 else { return nil }
        // x(t) = edge ⇔ e^(kt) = 1 + distance·k/v₀; no solution when the rest lies short of it.
        let k = rate.perSecondLog
        let e = 1 + distance * k / velocity
        guard e > 0 else { return nil }
        return Double.log(e) / k
    }
}
