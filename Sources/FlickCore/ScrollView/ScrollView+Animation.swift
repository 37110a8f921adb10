extension ScrollView {
    /// Where the view comes to rest if nothing interrupts it: the end of an animation or of
    /// momentum, else where it is. A control reply reports it, so a client sees what a clamped
    /// request became.
    public var destination: (offset: Point, zoomScale: Double) {
        switch phase {
        case let .animating(a): (a.toOffset, a.toScale)
        case let .decelerating(m): (m.restOffset, zoomScale)
        case .idle, .tracking, .dragging: (contentOffset, zoomScale)
        }
    }

    /// When the motion under way comes to rest (`destination`) if nothing interrupts it: the
    /// end of an animation, a zoom bounce or momentum; nil at rest or under a finger. A
    /// pipeline with no panel has no frames to step the model by: it wakes once, then, to end it.
    public var motionEnd: Instant? {
        switch phase {
        case let .animating(a): a.end
        case let .decelerating(m): m.end
        case .idle, .tracking, .dragging: nil
        }
    }

    /// Enters `.animating`, or finishes at once when there is nothing to animate.
    mutating func startAnimation(_ a: ScrollAnimation) {
        if a.fromOffset == a.toOffset && a.fromScale == a.toScale {
            if a.kind == .zoom { send(.willBeginZooming) }
            finishAnimation(a, interrupted: false)
            return
        }
        // The phase first, so `willBeginZooming` carries `isZooming`.
        phase = .animating(a)
        if a.kind == .zoom { send(.willBeginZooming) }
    }

    /// Applies an animation's end state at once (used when a finger holds the content).
    mutating func jump(to a: ScrollAnimation, at t: Instant) {
        if a.kind == .zoom { send(.willBeginZooming) }
        show(scale: a.toScale, offset: a.toOffset)
        finishAnimation(a, interrupted: false)
    }

    /// One frame of an animation; at its end, the exact end state and its closing message.
    mutating func step(_ a: ScrollAnimation, to t: Instant) {
        let state = a.state(at: t)
        show(scale: state.scale, offset: state.offset)
        if t >= a.end {
            show(scale: a.toScale, offset: a.toOffset)
            phase = .idle
            finishAnimation(a, interrupted: false)
            motionStopped(at: a.end)
        }
    }

    /// The closing message(s) of an animation.
    mutating func finishAnimation(_ a: ScrollAnimation, interrupted: Bool) {
        switch a.kind {
        case .scroll:
            send(.didEndScrollingAnimation)
        case .scrollToTop:
            // UIKit reports a scroll to top only when it got there.
            if interrupted { send(.didEndScrollingAnimation) } else { send(.didScrollToTop) }
        case .zoom:
            send(.didEndZooming(atScale: zoomScale))
            send(.didEndScrollingAnimation)
        case .zoomBounce:
            if interrupted {
                // A touch caught the bounce: the pinch's scale is still outside the limits, so
                // the bounce resumes when that finger lifts.
                handleZoom(.caught, at: now)
            } else {
                send(.didEndZooming(atScale: zoomScale))
            }
            // The bounce was the lift's deceleration (`bounceBack`): it ends with it, caught
            // or not, like momentum a touch stops.
            send(.didEndDecelerating)
        }
    }
}
