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
    /// The timing: `scroll.animation_curve` for requested moves; a bounce eases out (it starts
    /// in motion).
    var curve: AnimationCurve
    /// A view point the zoom is about (a double tap's finger): the content under it stays under
    /// it through every frame. Nil: the viewport's top-left travels evenly over the content.
    var anchor: Point? = nil

    /// The end of the animation.
    var end: Instant { start + .seconds(double: duration) }

    /// Progress 0…1 along the curve at `t`.
    func progress(at t: Instant) -> Double {
        guard duration > 0 else { return 1 }
        return curve.progress((t - start).inSeconds / duration)
    }

    /// Offset and scale at `t`.
    func state(at t: Instant) -> (offset: Point, scale: Double) {
        let k = progress(at: t)
        guard fromScale != toScale else {
            return (Point(x: fromOffset.x + (toOffset.x - fromOffset.x) * k,
                          y: fromOffset.y + (toOffset.y - fromOffset.y) * k), toScale)
        }
        // Scale interpolates geometrically so zooming in and out feel alike.
        let scale = fromScale * pow(toScale / fromScale, k)
        if let anchor {
            // The content point that began under the anchor is kept under it (p·scale − offset
            // = anchor). Where the bounds moved the end from that (a clamp), the difference is
            // blended in with the progress, so the motion stays smooth and ends exactly there.
            let c = Point(x: (fromOffset.x + anchor.x) / fromScale, y: (fromOffset.y + anchor.y) / fromScale)
            let correction = Point(x: toOffset.x - (c.x * toScale - anchor.x), y: toOffset.y - (c.y * toScale - anchor.y))
            return (Point(x: c.x * scale - anchor.x + correction.x * k, y: c.y * scale - anchor.y + correction.y * k), scale)
        }
        // The viewport's top-left moves evenly over the content itself (unscaled), so the
        // content keeps covering the screen while it shrinks; interpolating the scaled offset
        // instead lets a zoom bounce show a screen of background on the way.
        let from = Point(x: fromOffset.x / fromScale, y: fromOffset.y / fromScale)
        let to = Point(x: toOffset.x / toScale, y: toOffset.y / toScale)
        return (Point(x: (from.x + (to.x - from.x) * k) * scale, y: (from.y + (to.y - from.y) * k) * scale), scale)
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    Double.pow(base, exponent)
}
