/// How an animation's progress follows its clock: the timing curve of programmatic animated
/// scrolls and zooms (`scroll.animation_curve`), and of the zoom bounce (always `easeOut`).
public enum AnimationCurve: String, Hashable, Sendable, CaseIterable {
    /// Gentle start and stop (a cubic): what UIKit's animated `setContentOffset` looks like.
    case easeInOut = "ease-in-out"
    /// Constant velocity from start to end: the class reference's "constant velocity".
    case linear
    /// Starts at speed and slows to a stop (a cubic): for motion already under way, such as a
    /// zoom bounce after a pinch.
    case easeOut = "ease-out"

    /// The progress (0…1) at the fraction `p` (0…1) of the animation's time.
    public func progress(_ p: Double) -> Double {
        let p = Swift.min(Swift.max(p, 0), 1)
        switch self {
        case .easeInOut:
            return p < 0.5 ? 4 * p * p * p : 1 - (2 - 2 * p) * (2 - 2 * p) * (2 - 2 * p) / 2
        case .linear:
            return p
        case .easeOut:
            return 1 - (1 - p) * (1 - p) * (1 - p)
        }
    }
}
