import RealModule

/// An animated programmatic change of offset and/or zoom: `setContentOffset(_:animated:)`,
/// `scrollRectToVisible`, `setZoomScale(_:animated:)`, `zoom(to:)`, `scrollToTop`, and the zoom
/// bounce after a pinch past the limits.
struct ScrollAnimation: Hashable, Sendable {
    /// What started it; decides the message that ends it.
    enum Kind: Hashable, Sendable {
        /// Ends with `didEndScrollingAnimation`.
        case scroll
        /// Ends with `didScrollToTop`.
        case scrollToTop
        /// Ends with `didEndZooming(atScale:)` then `didEndScrollingAnimation`.
        case zoom
        /// Ends with `didEndZooming(atScale:)`; the state is `isZoomBouncing`.
        case zoomBounce
    }

    var kind: Kind
    var start: Instant
    var duration: Double
    var fromOffset: Point
    var toOffset: Point
    var fromScale: Double
    var toScale: Double
    /// Ease in and out for requested moves; a bounce eases out only (it starts in motion).
    var easeInOut: Bool

    /// The end of the animation.
    var end: Instant { start + .seconds(double: duration) }

    /// Progress 0…1 along the eased curve at `t`.
    func progress(at t: Instant) -> Double {
        guard duration > 0 else { return 1 }
        let p = Swift.min(Swift.max((t - start).inSeconds / duration, 0), 1)
        if easeInOut {
            // Cubic ease-in-out: gentle start and stop, like UIKit's default curve.
            return p < 0.5 ? 4 * p * p * p : 1 - (2 - 2 * p) * (2 - 2 * p) * (2 - 2 * p) / 2
        }
        return 1 - (1 - p) * (1 - p) * (1 - p)
    }

    /// Offset and scale at `t`.
    func state(at t: Instant) -> (offset: Point, scale: Double) {
        let k = progress(at: t)
        guard fromScale != toScale else {
            return (Point(x: fromOffset.x + (toOffset.x - fromOffset.x) * k,
                          y: fromOffset.y + (toOffset.y - fromOffset.y) * k), toScale)
        }
        // Scale interpolates geometrically so zooming in and out feel alike. The viewport's
        // top-left moves evenly over the content itself (unscaled), so the content keeps
        // covering the screen while it shrinks; interpolating the scaled offset instead lets a
        // zoom bounce show a screen of background on the way.
        let scale = fromScale * pow(toScale / fromScale, k)
        let from = Point(x: fromOffset.x / fromScale, y: fromOffset.y / fromScale)
        let to = Point(x: toOffset.x / toScale, y: toOffset.y / toScale)
        return (Point(x: (from.x + (to.x - from.x) * k) * scale, y: (from.y + (to.y - from.y) * k) * scale), scale)
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    Double.pow(base, exponent)
}
