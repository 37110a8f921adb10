/// The pinch state machine. Every change here is drawn in `docs/scroll-phase.md`.
///
/// | state \ input    | begin              | pinch               | end                                  | bounce (on lift)        |
/// |------------------|--------------------|---------------------|--------------------------------------|-------------------------|
/// | idle             | → pinching ¹       | ignored (bug)       | ignored (bug)                        | —                       |
/// | pinching         | —                  | zoom, stay          | in limits: → idle ²; else → awaitingBounce | → idle via bounce ³ |
/// | awaitingBounce   | → pinching         | ignored (bug)       | —                                    | → idle via bounce ³     |
///
/// ¹ `willBeginZooming`; a pinch always happens inside a drag (`willBeginDragging` first if
///   the finger had not moved yet). ² `didEndZooming(atScale:)`. ³ The zoom bounce animation
///   runs (`isZoomBouncing`) and ends with `didEndZooming(atScale:)`.
/// A pinch that ends with one finger still down keeps the scale where it is until the last
/// finger lifts, so the remaining finger drags the content without a jump.
enum ZoomPhase: Hashable, Sendable {
    case idle
    /// Two fingers are scaling; `focus` is their centroid in view coordinates.
    case pinching(focus: Point)
    /// The pinch ended past a limit; the bounce back waits for the last finger to lift.
    case awaitingBounce(focus: Point)
}

extension ScrollView {
    /// Starts a pinch. Call when the second finger joins; `focus` is the fingers' centroid in view
    /// coordinates.
    /// - Parameters:
    ///   - focus: the centroid of the two contacts, in view coordinates.
    ///   - t: the time of the frame that started the pinch.
    public mutating func beginZooming(focus: Point, at t: Instant) {
        observe(t)
        guard minimumZoomScale < maximumZoomScale, focus.isFinite else { return }
        switch zoomPhase {
        case .idle:
            if case .tracking = phase { handle(.drag(.zero), at: t) }
            zoomPhase = .pinching(focus: focus)
            events.append(.willBeginZooming)
        case .awaitingBounce:
            zoomPhase = .pinching(focus: focus)
        case .pinching:
            diagnostics.append("invalid zoom input begin in state pinching")
        }
    }

    /// Scales by `factor` about `focus` (the current centroid). The content pans with the
    /// centroid through `drag(by:at:)`, which the gesture layer calls after this.
    /// - Parameters:
    ///   - factor: the ratio of the fingers' distance now to their distance at the last call.
    ///   - focus: the centroid now, in view coordinates.
    ///   - t: the frame's time.
    public mutating func pinch(by factor: Double, focus: Point, at t: Instant) {
        observe(t)
        guard case .pinching = zoomPhase else {
            if minimumZoomScale < maximumZoomScale { diagnostics.append("invalid zoom input pinch in state \(zoomPhase)") }
            return
        }
        guard factor.isFinite, factor > 0, focus.isFinite else {
            diagnostics.append("ignored a pinch by \(factor) about \(focus)")
            return
        }
        zoomPhase = .pinching(focus: focus)
        let band = RubberBand(coefficient: physics.rubberBandCoefficient)
        let scale: Double
        if bouncesZoom {
            let raw = ZoomMath.unband(zoomScale, minimum: minimumZoomScale, maximum: maximumZoomScale, rubberBand: band) * factor
            scale = ZoomMath.band(raw, minimum: minimumZoomScale, maximum: maximumZoomScale, rubberBand: band)
        } else {
            scale = Swift.min(Swift.max(zoomScale * factor, minimumZoomScale), maximumZoomScale)
        }
        applyZoom(scale, anchoredAt: focus)
        if !bounces {
            moveOffset(to: clampedOffset(contentOffset))
        } else {
            // Anchoring at the focus scales an overscroll with the content: fingers jumping
            // apart near an edge could push it a whole screen past, showing only background.
            // Keep it within what the rubber band gives a drag of four screens.
            let clamped = clampedOffset(contentOffset)
            var capped = contentOffset
            for axis in Axis.allCases {
                let reach = band.displayed(4 * boundsSize[axis], dimension: boundsSize[axis])
                capped[axis] = Swift.min(Swift.max(capped[axis], clamped[axis] - reach), clamped[axis] + reach)
            }
            if capped != contentOffset { moveOffset(to: capped) }
        }
    }

    /// Ends the pinch (fewer than two fingers remain).
    /// - Parameter t: the frame's time.
    public mutating func endZooming(at t: Instant) {
        observe(t)
        switch zoomPhase {
        case let .pinching(focus):
            if zoomScale >= minimumZoomScale && zoomScale <= maximumZoomScale {
                zoomPhase = .idle
                events.append(.didEndZooming(atScale: zoomScale))
            } else {
                zoomPhase = .awaitingBounce(focus: focus)
            }
        case .idle, .awaitingBounce:
            break
        }
    }

    /// Where a zoom bounce ends: the nearest limit, anchored at the pinch's focus, the offset
    /// then brought within bounds.
    func zoomBounceTarget() -> (scale: Double, offset: Point) {
        let focus: Point
        switch zoomPhase {
        case let .pinching(f), let .awaitingBounce(f): focus = f
        case .idle: focus = .zero
        }
        let scale = Swift.min(Swift.max(zoomScale, minimumZoomScale), maximumZoomScale)
        var target = self
        target.zoomScale = scale
        let offset = ZoomMath.offset(contentOffset, anchoredAt: focus, from: zoomScale, to: scale)
        return (scale, target.clampedOffset(offset))
    }

    /// On the last finger's lift during a zoom: animate back inside the limits, or finish.
    mutating func startZoomBounce(at t: Instant) {
        let target = zoomBounceTarget()
        zoomPhase = .idle
        guard target.scale != zoomScale || target.offset != contentOffset else {
            events.append(.didEndZooming(atScale: zoomScale))
            motionStopped(at: t)
            return
        }
        phase = .animating(ScrollAnimation(kind: .zoomBounce, start: t, duration: physics.zoomBounceDuration,
                                           fromOffset: contentOffset, toOffset: target.offset,
                                           fromScale: zoomScale, toScale: target.scale, easeInOut: false))
    }
}
