extension ScrollView {
    /// A finger touched the content. Momentum, a bounce or an animation stops where it is.
    /// - Parameter t: the touch's kernel time.
    public mutating func touchDown(at t: Instant) {
        handle(.touchDown, at: t)
    }

    /// The finger(s) moved by `delta` (screen pixels) since the last call. The first movement
    /// after `touchDown` begins dragging.
    /// - Parameters:
    ///   - delta: the finger's movement; the content follows it, so the offset moves against it.
    ///   - t: the frame's kernel time.
    public mutating func drag(by delta: Vector, at t: Instant) {
        handle(.drag(delta), at: t)
    }

    /// The last finger lifted with `velocity` (finger velocity in screen px/s, from the velocity
    /// tracker). Momentum, a bounce back, a page snap or a zoom bounce may follow.
    /// - Parameters:
    ///   - velocity: the finger's velocity at lift.
    ///   - t: the lift's kernel time.
    public mutating func release(velocity: Vector, at t: Instant) {
        handle(.release(velocity: velocity), at: t)
    }

    /// The touch was cancelled (device gone, events dropped): a lift without momentum, so the
    /// content settles within bounds and nothing stays held.
    /// - Parameter t: the time of the cancellation.
    public mutating func cancelTouch(at t: Instant) {
        endZooming(at: t)
        handle(.release(velocity: .zero), at: t)
    }

    /// Steps momentum and animations to `t` (the next vblank). Time never goes back: an
    /// earlier `t` is ignored.
    /// - Parameter t: the time of the frame being prepared.
    public mutating func advance(to t: Instant) {
        handle(.tick, at: t)
    }
}
