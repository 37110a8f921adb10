/// The resistance felt when content is dragged past its edge (UIKit's observed curve):
/// f(x) = (1 − 1/(x·c/dim + 1))·dim, with c = 0.55 and dim the viewport size on that axis.
///
/// The displayed overshoot approaches `dim` but never reaches it, however far the finger goes.
public struct RubberBand: Hashable, Sendable {
    /// The stiffness constant c (UIKit's observed 0.55).
    public var coefficient: Double

    /// Creates a rubber band with coefficient `c`.
    public init(coefficient: Double = 0.55) {
        self.coefficient = coefficient
    }

    /// The displayed overshoot for a finger overshoot `x ≥ 0` on an axis of size `dimension`.
    public func displayed(_ x: Double, dimension: Double) -> Double {
        guard dimension > 0, x > 0 else { return 0 }
        return (1 - 1 / (x * coefficient / dimension + 1)) * dimension
    }

    /// The finger overshoot that displays as `f` — the inverse of `displayed`. Lets a drag
    /// continue from content that is already out of bounds without a jump.
    public func raw(_ f: Double, dimension: Double) -> Double {
        guard dimension > 0, f > 0 else { return 0 }
        let ratio = Swift.min(f / dimension, 0.999_999)
        return f / (coefficient * (1 - ratio))
    }

    /// `value` banded into `[lower, upper]`: inside unchanged, outside with resistance.
    func band(_ value: Double, lower: Double, upper: Double, dimension: Double) -> Double {
        if value < lower { return lower - displayed(lower - value, dimension: dimension) }
        if value > upper { return upper + displayed(value - upper, dimension: dimension) }
        return value
    }

    /// The inverse of `band`.
    func unband(_ value: Double, lower: Double, upper: Double, dimension: Double) -> Double {
        if value < lower { return lower - raw(lower - value, dimension: dimension) }
        if value > upper { return upper + raw(value - upper, dimension: dimension) }
        return value
    }
}
