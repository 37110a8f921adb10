extension ScrollView {
    /// Moves the content so that `offset` is at the viewport's top-left.
    ///
    /// Without animation: exactly one `didScroll` (if it moved); momentum or an animation in
    /// progress stops; `isScrolling` stays false. With animation: `didScroll` per frame, then
    /// `didEndScrollingAnimation`. While a finger holds the content, it jumps.
    /// - Parameters:
    ///   - offset: the new offset; UIKit does not clamp it, nor does this (a caller that must
    ///     stay inside the bounds passes `clampedOffset(_:)`'s, as the daemon's `set-offset` does).
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
        try setZoomScale(scale, anchoredAt: Point(x: boundsSize.width / 2, y: boundsSize.height / 2), animated: animated, at: t)
    }

    /// Sets the zoom, clamped to the limits, about `focus`: the content under that view point
    /// stays under it, at the end and on every frame of the animation, as far as the bounds
    /// allow (a double tap zooms about the finger). Where the bounds move the end (zooming out
    /// near an edge), the animation zooms about the one point the clamped end keeps instead, so
    /// no frame shows past the content's edge.
    /// - Parameters:
    ///   - scale: the new scale.
    ///   - focus: the view point to zoom about.
    ///   - animated: whether to animate (`willBeginZooming`, `didZoom`…, `didEndZooming(atScale:)`,
    ///     `didEndScrollingAnimation`).
    ///   - t: now.
    /// - Throws: `ScrollViewError.invalidZoomScale` for a non-finite or non-positive scale,
    ///   `invalidPoint` for a non-finite focus.
    public mutating func setZoomScale(_ scale: Double, anchoredAt focus: Point, animated: Bool,
                                      at t: Instant) throws(ScrollViewError) {
        guard scale.isFinite, scale > 0 else { throw .invalidZoomScale(name: "zoom scale", value: scale) }
        guard focus.isFinite else { throw .invalidPoint(name: "zoom focus", value: focus) }
        let clamped = Swift.min(Swift.max(scale, minimumZoomScale), maximumZoomScale)
        zoom(to: clamped, offset: ZoomMath.offset(contentOffset, anchoredAt: focus, from: zoomScale, to: clamped),
             anchor: focus, animated: animated, at: t)
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

    /// Zooms to `scale` at `offset` (clamped into the bounds at that scale); animated, about
    /// `anchor` if given (see `ScrollAnimation.anchor`).
    mutating func zoom(to scale: Double, offset: Point, anchor: Point? = nil, animated: Bool, at t: Instant) {
        var target = self
        target.zoomScale = scale
        let clamped = target.clampedOffset(offset)
        if animated {
            var a = animation(.zoom, to: clamped, scale: scale, at: t)
            // Unclamped, the end keeps the anchor and the two agree. Clamped, the move's own
            // fixed point replaces it: every frame is then a zoom about one point between two
            // views inside the bounds, and none shows past the content's edge.
            a.anchor = clamped == offset ? anchor : anchor.flatMap { _ in
                ZoomMath.fixedPoint(from: contentOffset, zoomScale, to: clamped, scale)
            }
            handle(.animate(a), at: t)
        } else {
            handle(.stop, at: t)
            show(scale: scale, offset: clamped)
        }
    }

    /// Scrolls to the top, as a tap on the status bar does, if `scrollsToTop`. Ends with
    /// `didScrollToTop`, a jump too: an app waiting for it to know the view is there hears it
    /// either way.
    /// - Parameters:
    ///   - animated: whether to animate (a tap on the strip does); without, one `didScroll`
    ///     (if it moved), and momentum or an animation in progress stops.
    ///   - t: now.
    /// - Returns: whether the scroll view honoured it.
    @discardableResult
    public mutating func scrollToTop(animated: Bool = true, at t: Instant) -> Bool {
        guard scrollsToTop else { return false }
        let target = Point(x: contentOffset.x, y: minimumOffset(.vertical))
        if animated {
            handle(.animate(animation(.scrollToTop, to: target, scale: zoomScale, at: t)), at: t)
        } else {
            handle(.stop, at: t)
            moveOffset(to: target)
            send(.didScrollToTop)
        }
        return true
    }

    /// Stops momentum, animations and a zoom bounce where they are, each sending its end message.
    /// - Parameter t: now.
    public mutating func stopScrollingAndZooming(at t: Instant) {
        handle(.stop, at: t)
        if !isTracking { handleZoom(.stop, at: now) }
    }

    /// A requested animation from here: zooms take `animationDuration`; scrolls too, or follow
    /// their distance at `animationSpeed` when one is set.
    private func animation(_ kind: ScrollAnimation.Kind, to offset: Point, scale: Double, at t: Instant) -> ScrollAnimation {
        let duration = kind == .zoom ? physics.animationDuration
                                     : physics.scrollAnimationDuration(distance: contentOffset.distance(to: offset))
        return ScrollAnimation(kind: kind, start: Swift.max(t, now), duration: duration,
                               fromOffset: contentOffset, toOffset: offset, fromScale: zoomScale, toScale: scale,
                               curve: physics.animationCurve)
    }
}
