import RealModule

/// A critically damped spring pulling one axis to a target (defaults in `ScrollPhysics`: mass 1, stiffness 100,
/// ζ = 1, so ω = 10/s and it settles in about half a second without oscillating).
///
/// With displacement x from the target: x(t) = (x₀ + (v₀ + ω·x₀)·t)·e^(−ωt). As a closed form of
/// elapsed time it is frame-rate independent. Used for the bounce back into bounds, for the
/// bounce when a flick carries past an edge, and for snapping to a page.
public struct Spring: Hashable, Sendable {
    /// The position the spring pulls towards.
    public var target: Double
    /// Displacement from the target at t = 0.
    public var displacement: Double
    /// Velocity at t = 0, px/s.
    public var velocity: Double
    /// The natural frequency ω = √(stiffness/mass), per second.
    public var omega: Double

    /// Creates a spring starting at `position` with `velocity`, pulled to `target`.
    public init(from position: Double, velocity: Double, to target: Double, stiffness: Double = 100, mass: Double = 1) {
        self.target = target
        self.displacement = position - target
        self.velocity = velocity
        self.omega = (stiffness / mass).squareRoot()
    }

    private var b: Double { velocity + omega * displacement }

    /// The position `t` seconds after start.
    public func position(at t: Double) -> Double {
        target + (displacement + b * t) * Double.exp(-omega * t)
    }

    /// The velocity `t` seconds after start.
    public func velocity(at t: Double) -> Double {
        (b - omega * (displacement + b * t)) * Double.exp(-omega * t)
    }

    /// A time after which the spring stays within `distance` px of its target and slower than
    /// `speed` px/s. Found once, from envelopes that only decrease past their peak, so the end
    /// of the motion does not depend on the frame rate.
    public func settleTime(distance: Double, speed: Double) -> Double {
        let a = abs(displacement), bb = abs(b), c = abs(velocity - omega * displacement)
        func settled(_ t: Double) -> Bool {
            let e = Double.exp(-omega * t)
            return (a + bb * t) * e < distance && (c + omega * bb * t) * e < speed
        }
        // A spring with no finite positive frequency has no motion to wait for.
        guard omega.isFinite, omega > 0 else { return 0 }
        // The envelopes peak no later than 1/ω; past that, settled(t) is monotonic.
        var lo = 0.0, hi = 1 / omega
        if settled(0) { return 0 }
        // An hour is the most any spring is given; `!(hi <= …)` also ends on an infinite 1/ω.
        while !settled(hi) { lo = hi; hi *= 2; if !(hi <= 3600) { return 3600 } }
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if settled(mid) && mid >= 1 / omega { hi = mid } else { lo = mid }
        }
        return hi
    }
}
