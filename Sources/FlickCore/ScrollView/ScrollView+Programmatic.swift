extension ScrollView {
    /// Moves the content so that `offset` is at the viewport's top-left.
    ///
    /// Without animation: exactly one `didScroll` (if it moved); momentum or an animation in
    /// progress stops; `isScrolling` stays false. With animation: `didScroll` per frame, then
    /// `didEndScrollingAnimation`. While a finger holds the content, it jumps.
    /// - Parameters:
    ///   - offset: the new offset; UIKit does not clamp it, nor does this.
    ///   - animated: whether to animate.
    ///   - t: now.
    /// - Throws: `ScrollViewError.invalidPoint` for a non-finite offset.
    public mutating func setContentOffset(_ offset: Point, animated: Bool, at t: Instant) throws(ScrollViewError) {
        guard offset.isFinite else { throw .invalidPoint(name: "content offset", value: offset) }
        if animated {
            handle(.animate(animation(.scroll, to: offset, scale: zoomScale, at: t)), at: t)
        } else {
            handle(.stop, at: t)
            moveOffset(to: offset)
        }
    }

    /// Scrolls the least needed to make `rect` (in scaled content coordinates, like the offset)
    /// visible; does nothing if it already is.
    /// - Parameters:
    ///   - rect: the area to show; if larger than the viewport, its top-left is shown.
    ///   - animated: whether to animate.
    ///   - t: now.
    /// - Throws: `ScrollViewError.invalidRect` for a non-finite or negative rectangle.
    public mutating func scrollRectToVisible(_ rect: Rect, animated: Bool, at t: Instant) throws(ScrollViewError) {
        guard rect.isValid else { throw .invalidRect(name: "rect", value: rect) }
        var target = contentOffset
        for axis in Axis.allCases {
            let low = rect.min(axis), high = rect.max(axis), visible = boundsSize[axis]
            if high - low > visible || low < target[axis] {
                target[axis] = low
            } else if high > target[axis] + visible {
                target[axis] = high - visible
            }
        }
        target = clampedOffset(target)
        guard target != contentOffset else { return }
        try setContentOffset(target, animated: animated, at: t)
    }

    /// Sets the zoom, clamped to the limits, keeping the viewport's centre in place.
    /// - Parameters:
    ///   - scale: the new scale.
    ///   - animated: whether to animate (`willBeginZooming`, `didZoom`…, `didEndZooming(atScale:)`,
    ///     `didEndScrollingAnimation`).
    ///   - t: now.
    /// - Throws: `ScrollViewError.invalidZoomScale` for a non-finite or non-positive scale.
    public mutating func setZoomScale(_ scale: Double, animated: Bool, at t: Instant) throws(ScrollViewError) {
        guard scale.isFinite, scale > 0 else { throw .invalidZoomScale(name: "zoom scale", value: scale) }
        let clamped = Swift.min(Swift.max(scale, minimumZoomScale), maximumZoomScale)
        let centre = Point(x: boundsSize.width / 2, y: boundsSize.height / 2)
        zoom(to: clamped, offset: ZoomMath.offset(contentOffset, anchoredAt: centre, from: zoomScale, to: clamped),
             animated: animated, at: t)
    }

    /// Zooms so that `rect` (in unscaled content coordinates) fills the viewport as far as the
    /// zoom limits allow, centred on it.
    /// - Parameters:
    ///   - rect: the content area to show.
    ///   - animated: whether to animate.
    ///   - t: now.
    /// - Throws: `ScrollViewError.invalidRect` for a non-finite or negative rectangle.
    public mutating func zoom(to rect: Rect, animated: Bool, at t: Instant) throws(ScrollViewError) {
        guard rect.isValid else { throw .invalidRect(name: "zoom rect", value: rect) }
        var scale = maximumZoomScale
        if rect.size.width > 0 { scale = Swift.min(scale, boundsSize.width / rect.size.width) }
        if rect.size.height > 0 { scale = Swift.min(scale, boundsSize.height / rect.size.height) }
        scale = Swift.min(Swift.max(scale, minimumZoomScale), maximumZoomScale)
        let centre = rect.mid
        let offset = Point(x: centre.x * scale - boundsSize.width / 2, y: centre.y * scale - boundsSize.height / 2)
        zoom(to: scale, offset: offset, animated: animated, at: t)
    }

    /// Sets the zoom and the offset together, as one animation: how a kiosk returns to its home
    /// position. The scale is clamped to the limits and the offset into the bounds at that scale.
    /// - Parameters:
    ///   - scale: the new scale.
    ///   - offset: the new offset at that scale.
    ///   - animated: whether to animate.
    ///   - t: now.
    /// - Throws: `ScrollViewError` for a non-finite or non-positive scale or a non-finite offset.
    public mutating func setZoomScale(_ scale: Double, contentOffset offset: Point, animated: Bool,
                                      at t: Instant) throws(ScrollViewError) {
        guard scale.isFinite, scale > 0 else { throw .invalidZoomScale(name: "zoom scale", value: scale) }
        guard offset.isFinite else { throw .invalidPoint(name: "content offset", value: offset) }
        zoom(to: Swift.min(Swift.max(scale, minimumZoomScale), maximumZoomScale), offset: offset, animated: animated, at: t)
    }

    /// Zooms to `scale` at `offset` (clamped into the bounds at that scale).
    mutating func zoom(to scale: Double, offset: Point, animated: Bool, at t: Instant) {
        var target = self
        target.zoomScale = scale
        let clamped = target.clampedOffset(offset)
        if animated {
            handle(.animate(animation(.zoom, to: clamped, scale: scale, at: t)), at: t)
        } else {
            handle(.stop, at: t)
            show(scale: scale, offset: clamped)
        }
    }

    /// Scrolls to the top (animated), as a tap on the status bar does, if `scrollsToTop`.
    /// Ends with `didScrollToTop`.
    /// - Parameter t: now.
    /// - Returns: whether the scroll view honoured it.
    @discardableResult
    public mutating func scrollToTop(at t: Instant) -> Bool {
        guard scrollsToTop else { return false }
        let target = Point(x: contentOffset.x, y: minimumOffset(.vertical))
        handle(.animate(animation(.scrollToTop, to: target, scale: zoomScale, at: t)), at: t)
        return true
    }

    /// Stops momentum, animations and a zoom bounce where they are, each sending its end message.
    /// - Parameter t: now.
    public mutating func stopScrollingAndZooming(at t: Instant) {
        handle(.stop, at: t)
        if !isTracking { handleZoom(.stop, at: now) }
    }

    private func animation(_ kind: ScrollAnimation.Kind, to offset: Point, scale: Double, at t: Instant) -> ScrollAnimation {
        ScrollAnimation(kind: kind, start: Swift.max(t, now), duration: physics.animationDuration,
                        fromOffset: contentOffset, toOffset: offset, fromScale: zoomScale, toScale: scale,
                        easeInOut: true)
    }
}
