extension ScrollView {
    /// While decelerating: where the content will rest, and how many seconds after now.
    public var momentumRest: (offset: Point, duration: Double)? {
        guard case let .decelerating(m) = phase else { return nil }
        return (m.restOffset, Swift.max(0, (m.end - now).inSeconds))
    }

    /// Shows the scroll indicators for `indicatorFlashDuration`, then fades them.
    /// - Parameter t: now.
    public mutating func flashScrollIndicators(at t: Instant) {
        observe(t)
        motionStopped(at: t + .seconds(double: physics.indicatorFlashDuration))
    }

    /// How visible the scroll indicators are at `t`: 1 while scrolling and for a while after a
    /// flash, then fading linearly to 0 over `indicatorFadeDuration`.
    public func indicatorOpacity(at t: Instant) -> Double {
        if isScrolling { return 1 }
        guard let until = indicatorsVisibleUntil else { return 0 }
        if t <= until { return 1 }
        let fade = physics.indicatorFadeDuration
        guard fade > 0 else { return 0 }
        return Swift.max(0, 1 - (t - until).inSeconds / fade)
    }

    /// When the next frame is needed, if ever, given that the last was drawn at `t`: at once
    /// while anything moves or fades, at the end of a flash's hold, or never. Idle means no
    /// deadline at all.
    public func nextFrameTime(after t: Instant) -> Instant? {
        if isAnimating { return t }
        guard let until = indicatorsVisibleUntil, !isScrolling else { return nil }
        let fadeEnd = until + .seconds(double: physics.indicatorFadeDuration)
        if t >= fadeEnd { return nil }
        return t < until ? until : t
    }
}
