/// The pinch state machine. Its table (`### zoom` in docs/scroll-phase.md) is the spec: every
/// change here changes it in the same commit, and `ScrollTableTests` holds the two together and
/// takes every edge.
///
/// A pinch that ends with one finger still down keeps the scale where it is until the last
/// finger lifts, so the remaining finger drags the content without a jump; a pinch that ended
/// past a limit bounces back only then.
enum ZoomPhase: Hashable, Sendable {
    case idle
    /// Two fingers are scaling; `focus` is their centroid in view coordinates.
    case pinching(focus: Point)
    /// The pinch ended past a limit; the bounce back waits for the last finger to lift.
    case awaitingBounce(focus: Point)

    /// The alphabet of the machine.
    enum Input: Hashable, Sendable, CustomStringConvertible {
        /// A second finger joined (`beginZooming`).
        case begin(focus: Point)
        /// The fingers moved (`pinch(by:from:to:)`): scale by `factor` about the centroid as it
        /// was (`from`); `to` is where it is now.
        case pinch(factor: Double, from: Point, to: Point)
        /// Fewer than two fingers remain (`endZooming`).
        case end
        /// The last finger lifted while zooming: bounce back inside the limits, or finish.
        case lift
        /// `stopScrollingAndZooming` with no finger down.
        case stop
        /// A touch caught a zoom bounce mid-way (`ScrollPhase` stopped its animation).
        case caught

        var description: String {
            switch self {
            case .begin: "begin"
            case .pinch: "pinch"
            case .end: "end"
            case .lift: "lift"
            case .stop: "stop"
            case .caught: "caught"
            }
        }
    }

    var name: String {
        switch self {
        case .idle: "idle"
        case .pinching: "pinching"
        case .awaitingBounce: "awaitingBounce"
        }
    }
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
        handleZoom(.begin(focus: focus), at: now)
    }

    /// Scales by `factor` about `focus`, a centroid that stayed where it was: the content under
    /// it stays. Fingers that also move pinch with `pinch(by:from:to:at:)`.
    /// - Parameters:
    ///   - factor: the ratio of the fingers' distance now to their distance at the last call.
    ///   - focus: the centroid, in view coordinates.
    ///   - t: the frame's time.
    public mutating func pinch(by factor: Double, focus: Point, at t: Instant) {
        observe(t)
        // Without room to zoom no pinch begins, and its moves are no bug.
        guard minimumZoomScale < maximumZoomScale || zoomPhase != .idle else { return }
        handleZoom(.pinch(factor: factor, from: focus, to: focus), at: now)
    }

    /// One step of a pinch whose centroid moved from `from` to `to`: a pinch is also a pan
    /// (UIKit), so the content point under the centroid stays under it. The scale is applied
    /// about where the centroid was, which keeps the content under `from` in place, and the
    /// content then pans by the centroid's move like a drag (rubber-banded past the edges). Scaling about
    /// the new centroid instead, then panning, lets that point slip by (factor − 1) × the move
    /// each step: 15 px over a 300 × 200 px move while zooming 1 → 3.
    ///
    /// While the content is dragged both are one step, shown together: its `didZoom` and
    /// `didScroll` carry the view after the pan. Sent one after the other, the `didZoom` showed
    /// the content scaled about where the centroid was a report ago, one report's travel behind
    /// the fingers (6 px at 120 Hz, measured on a real panel's pinch).
    /// - Parameters:
    ///   - factor: the ratio of the fingers' distance now to their distance at the last call.
    ///   - from: the centroid at the last call, in view coordinates.
    ///   - to: the centroid now.
    ///   - t: the frame's time.
    public mutating func pinch(by factor: Double, from: Point, to: Point, at t: Instant) {
        observe(t)
        // Without room to zoom no pinch begins, and its moves are no bug: the fingers only pan.
        if minimumZoomScale < maximumZoomScale || zoomPhase != .idle {
            handleZoom(.pinch(factor: factor, from: from, to: to), at: now)
        }
        // A step the zoom took with its pan needs no drag of its own; one that did not (no room
        // to zoom, or nothing to drag when the pinch began: the drag begins here) pans now.
        if !pansWithZoom { drag(by: to - from, at: now) }
    }

    /// Whether a pinch step pans in the zoom's own step: the fingers pinch and drag the content.
    private var pansWithZoom: Bool {
        guard case .pinching = zoomPhase, case .dragging = phase else { return false }
        return true
    }

    /// Ends the pinch (fewer than two fingers remain).
    /// - Parameter t: the frame's time.
    public mutating func endZooming(at t: Instant) {
        observe(t)
        handleZoom(.end, at: now)
    }

    /// The one dispatcher of the pinch machine: every pair decided explicitly, no default.
    mutating func handleZoom(_ input: ZoomPhase.Input, at t: Instant) {
        let before = zoomPhase.name, mark = outbox.count
        var invalid = false
        switch (zoomPhase, input) {
        case let (.idle, .begin(focus)):
            if case .tracking = phase { handle(.drag(.zero), at: t) }
            zoomPhase = .pinching(focus: focus)
            send(.willBeginZooming)
        case let (.awaitingBounce, .begin(focus)):
            zoomPhase = .pinching(focus: focus)
        case let (.pinching, .pinch(factor, from, to)):
            guard factor.isFinite, factor > 0, from.isFinite, to.isFinite else {
                note("ignored a pinch by \(factor) about \(from)")
                break
            }
            let pans = pansWithZoom
            zoomPhase = .pinching(focus: to)
            scale(by: factor, about: from, panningBy: pans && to != from ? to - from : nil)
        case let (.pinching(focus), .end):
            if zoomScale >= minimumZoomScale && zoomScale <= maximumZoomScale {
                zoomPhase = .idle
                send(.didEndZooming(atScale: zoomScale))
            } else {
                zoomPhase = .awaitingBounce(focus: focus)
            }
        case (.pinching, .lift), (.awaitingBounce, .lift):
            bounceBack(at: t)
        case (.awaitingBounce, .stop):
            zoomPhase = .idle
            send(.didEndZooming(atScale: zoomScale))
        case (.idle, .caught):
            // The bounce resumes when that finger lifts: the scale is still past a limit.
            zoomPhase = .awaitingBounce(focus: Point(x: boundsSize.width / 2, y: boundsSize.height / 2))
        case (.idle, .end), (.awaitingBounce, .end), (.idle, .stop), (.pinching, .stop):
            break
        case (.pinching, .begin), (.idle, .pinch), (.awaitingBounce, .pinch), (.idle, .lift),
             (.pinching, .caught), (.awaitingBounce, .caught):
            invalid = true
            note("invalid zoom input \(input) in state \(zoomPhase.name)")
        }
        if tracing, invalid || zoomPhase.name != before {
            let step = Transition(.zoom, at: t, from: before, on: input.description, to: zoomPhase.name, invalid: invalid)
            outbox.insert(.transition(step), at: invalid ? outbox.count : mark)
        }
        reportStateChange()
    }

    /// Applies one pinch step: the scale, rubber-banded past the limits, about the focus, then
    /// `pan` (the centroid's move) as the drag would move the content at the new scale.
    private mutating func scale(by factor: Double, about focus: Point, panningBy pan: Vector?) {
        let band = RubberBand(coefficient: physics.rubberBandCoefficient)
        let scale: Double
        if bouncesZoom {
            let raw = ZoomMath.unband(zoomScale, minimum: minimumZoomScale, maximum: maximumZoomScale, rubberBand: band) * factor
            scale = ZoomMath.band(raw, minimum: minimumZoomScale, maximum: maximumZoomScale, rubberBand: band)
        } else {
            scale = Swift.min(Swift.max(zoomScale * factor, minimumZoomScale), maximumZoomScale)
        }
        guard scale.isFinite, scale > 0 else { return }
        // The offset is worked out at the new scale before anything is sent, so the step sends
        // one didZoom and one didScroll, both with where the view ends up.
        var next = self
        next.zoomScale = scale
        var offset = ZoomMath.offset(contentOffset, anchoredAt: focus, from: zoomScale, to: scale)
        let clamped = next.clampedOffset(offset)
        if !bounces {
            offset = clamped
        } else {
            // Anchoring at the focus scales an overscroll with the content: fingers jumping
            // apart near an edge could push it a whole screen past, showing only background.
            // Keep it within what the rubber band gives a drag of four screens.
            for axis in Axis.allCases {
                let reach = band.displayed(4 * boundsSize[axis], dimension: boundsSize[axis])
                offset[axis] = Swift.min(Swift.max(offset[axis], clamped[axis] - reach), clamped[axis] + reach)
            }
        }
        if let pan, case let .dragging(drag) = phase { offset = next.dragged(offset, by: pan, drag: drag) }
        show(scale: scale, offset: offset)
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
    private mutating func bounceBack(at t: Instant) {
        let target = zoomBounceTarget()
        zoomPhase = .idle
        guard target.scale != zoomScale || target.offset != contentOffset else {
            send(.didEndZooming(atScale: zoomScale))
            motionStopped(at: t)
            return
        }
        phase = .animating(ScrollAnimation(kind: .zoomBounce, start: t, duration: physics.zoomBounceDuration,
                                           fromOffset: contentOffset, toOffset: target.offset,
                                           fromScale: zoomScale, toScale: target.scale, curve: .easeOut))
        // The bounce is the motion after the lift: it decelerates, as a rubber band's spring
        // back does, so no didZoom or didScroll follows a lift that announced rest.
        send(.willBeginDecelerating)
    }
}
