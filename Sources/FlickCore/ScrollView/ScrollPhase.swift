/// The scroll view's motion state machine. Its table (`### scroll` in docs/scroll-phase.md) is
/// the spec: every change here changes it in the same commit, and `ScrollTableTests` holds the
/// two together and takes every edge.
enum ScrollPhase: Hashable, Sendable {
    /// Nothing touches and nothing moves.
    case idle
    /// A finger is down; the content has not moved for it (yet).
    case tracking
    /// The content follows the finger.
    case dragging(Drag)
    /// Momentum, bounce back or page snap after a lift.
    case decelerating(Momentum)
    /// A programmatic animation or a zoom bounce.
    case animating(ScrollAnimation)

    /// What a drag remembers from its start.
    struct Drag: Hashable, Sendable {
        /// The offset when dragging began (for paging's one-page limit).
        var startOffset: Point
        /// The axis a directional lock holds the drag to, if any.
        var lockedAxis: Axis?
    }

    /// Per-axis motion after a lift.
    struct Momentum: Hashable, Sendable {
        var start: Instant
        var x: AxisMotion
        var y: AxisMotion

        var end: Instant { start + .seconds(double: Swift.max(x.duration, y.duration)) }

        func offset(at t: Instant) -> Point {
            let s = (t - start).inSeconds
            return Point(x: x.position(at: s), y: y.position(at: s))
        }

        var restOffset: Point { Point(x: x.restPosition, y: y.restPosition) }

        /// Where a touch at `t` stops the motion: an axis in the unseen tail of a bounce at its
        /// edge (`AxisMotion.stopped`), any other where it is.
        func stopped(at t: Instant, unseenSpeed: Double) -> Point {
            let s = (t - start).inSeconds
            return Point(x: x.stopped(at: s, unseenSpeed: unseenSpeed), y: y.stopped(at: s, unseenSpeed: unseenSpeed))
        }
    }

    /// The alphabet of the machine.
    enum Input: Hashable, Sendable, CustomStringConvertible {
        case touchDown
        case drag(Vector)
        /// `settles`: false when a tap acts on the lift first, and `settle` follows it.
        case release(velocity: Vector, settles: Bool = true)
        /// Content a touch caught out of bounds (or between pages) goes back, if nothing
        /// else has taken it since the lift.
        case settle
        case tick
        case animate(ScrollAnimation)
        case stop

        var description: String {
            switch self {
            case .touchDown: "touchDown"
            case .drag: "drag"
            case .release: "release"
            case .settle: "settle"
            case .tick: "tick"
            case .animate: "animate"
            case .stop: "stop"
            }
        }
    }

    var name: String {
        switch self {
        case .idle: "idle"
        case .tracking: "tracking"
        case .dragging: "dragging"
        case .decelerating: "decelerating"
        case .animating: "animating"
        }
    }
}

/// The machine's inputs from the gesture layer and the frame presenter.
extension ScrollView {
    /// A finger touched the content. Momentum, a bounce or an animation stops where it is.
    /// - Parameters:
    ///   - t: the touch's kernel time.
    ///   - unseenSpeed: the speed (px/s) below which motion is not seen (the recogniser's
    ///     `imperceptibleSpeed`). A bounce back whose tail is that slow ends at the edge when
    ///     touched (`AxisMotion.stopped`), not short of it, out of bounds, where the touch's lift
    ///     would start a second, tiny bounce. 0 stops every motion where it is.
    public mutating func touchDown(at t: Instant, unseenSpeed: Double = 0) {
        stopSnapSpeed = unseenSpeed
        defer { stopSnapSpeed = 0 }
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

    /// The finger lifted without dragging, and a tap acts on the lift (UIKit's tap recognisers
    /// fire after touchesEnded): the finger lets the content go, but content it caught out of
    /// bounds stays where it is until `settle(at:)`, after the tap. An animation the tap starts
    /// (a double tap's zoom, a scroll to top) then takes the content back itself: a bounce begun
    /// at the lift would be ended by it at that same instant, before it moved.
    /// - Parameter t: the lift's kernel time.
    public mutating func liftForTap(at t: Instant) {
        handle(.release(velocity: .zero, settles: false), at: t)
    }

    /// After a tap's lift (`liftForTap(at:)`) and whatever the tap did: content left out of
    /// bounds, or between pages, goes back; nothing happens if it is in place or already moving.
    /// - Parameter t: the lift's kernel time.
    public mutating func settle(at t: Instant) {
        handle(.settle, at: t)
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

extension ScrollView {
    /// The one dispatcher: every input goes through here, every pair is decided explicitly.
    mutating func handle(_ input: ScrollPhase.Input, at t: Instant) {
        observe(t)
        let t = now
        if input != .tick { completeMotion(endedBy: t) }
        step(input, at: t)
        reportStateChange()
    }

    /// One input through the dispatcher, traced when `tracing` and the state changed (the line
    /// goes before the messages the step sent).
    private mutating func step(_ input: ScrollPhase.Input, at t: Instant) {
        let before = phase.name, mark = outbox.count
        // What the step sends happens at its time (a motion completed at its end).
        let outer = reportTime
        reportTime = t
        defer { reportTime = outer }
        dispatch(input, at: t)
        if tracing, phase.name != before {
            outbox.insert(.transition(Transition(.scroll, at: t, from: before, on: input.description, to: phase.name)), at: mark)
        }
    }

    /// A motion that ended by `t` ends before an input at `t` is handled, exactly where and
    /// when it ended: frames are drawn when the display can, inputs happen when they happen.
    private mutating func completeMotion(endedBy t: Instant) {
        switch phase {
        case let .decelerating(m) where t >= m.end:
            step(.tick, at: m.end)
        case let .animating(a) where t >= a.end:
            step(.tick, at: a.end)
        case .idle, .tracking, .dragging, .decelerating, .animating:
            break
        }
    }

    private mutating func dispatch(_ input: ScrollPhase.Input, at t: Instant) {
        switch (phase, input) {
        case (.idle, .touchDown):
            phase = .tracking
        case (.idle, .animate(let a)), (.decelerating, .animate(let a)), (.animating, .animate(let a)):
            interruptMotion(at: t)
            startAnimation(a)
        case (.tracking, .animate(let a)), (.dragging, .animate(let a)):
            // The finger owns the content: jump to the destination instead of fighting it.
            jump(to: a, at: t)
        case (.idle, .tick), (.idle, .stop), (.tracking, .touchDown), (.tracking, .tick), (.tracking, .stop),
             (.dragging, .touchDown), (.dragging, .tick), (.dragging, .stop):
            break
        case (.idle, .settle):
            settleIfNeeded(at: t)
        case (.tracking, .settle), (.dragging, .settle), (.decelerating, .settle), (.animating, .settle):
            // A finger holds the content, or something already moves it.
            break
        case (.idle, .drag), (.idle, .release), (.decelerating, .drag), (.decelerating, .release),
             (.animating, .drag), (.animating, .release):
            note("invalid scroll input \(input) in state \(phase.name)")
            if tracing { outbox.append(.transition(Transition(.scroll, at: t, from: phase.name, on: input.description,
                                                               to: phase.name, invalid: true))) }
        case (.tracking, .drag(let delta)):
            // Like UIKit's pan recogniser, a drag only begins where there is something to scroll.
            guard canScroll(.horizontal) || canScroll(.vertical) else { return }
            let drag = ScrollPhase.Drag(startOffset: contentOffset, lockedAxis: lockAxis(for: delta))
            phase = .dragging(drag)
            send(.willBeginDragging)
            applyDrag(delta, drag: drag)
        case (.dragging(let drag), .drag(let delta)):
            applyDrag(delta, drag: drag)
        case (.tracking, .release(_, let settles)):
            phase = .idle
            if isZooming { handleZoom(.lift, at: t) } else if settles { settleIfNeeded(at: t) }
        case (.dragging(let drag), .release(let velocity, _)):
            endDrag(drag, velocity: velocity, at: t)
        case (.decelerating(let m), .tick):
            moveOffset(to: m.offset(at: t))
            if t >= m.end {
                moveOffset(to: m.restOffset)
                phase = .idle
                send(.didEndDecelerating)
                motionStopped(at: m.end)
            }
        case (.animating(let a), .tick):
            step(a, to: t)
        case (.decelerating, .touchDown), (.animating, .touchDown):
            interruptMotion(at: t)
            phase = .tracking
        case (.decelerating, .stop), (.animating, .stop):
            interruptMotion(at: t)
        }
    }

    /// Stops momentum or an animation where it is at `t`, sending its closing message.
    private mutating func interruptMotion(at t: Instant) {
        switch phase {
        case let .decelerating(m):
            moveOffset(to: m.stopped(at: t, unseenSpeed: stopSnapSpeed))
            phase = .idle
            send(.didEndDecelerating)
            motionStopped(at: t)
        case let .animating(a):
            let state = a.state(at: t)
            show(scale: state.scale, offset: state.offset)
            phase = .idle
            finishAnimation(a, interrupted: true)
            motionStopped(at: t)
        case .idle, .tracking, .dragging:
            break
        }
    }

    private func lockAxis(for delta: Vector) -> Axis? {
        guard isDirectionalLockEnabled else { return nil }
        let ratio = physics.directionalLockRatio
        if abs(delta.dx) > ratio * abs(delta.dy) { return .horizontal }
        if abs(delta.dy) > ratio * abs(delta.dx) { return .vertical }
        return nil
    }

    /// Moves the content with the finger: rubber-banded past the edges, or clamped.
    private mutating func applyDrag(_ delta: Vector, drag: ScrollPhase.Drag) {
        guard delta.isFinite else {
            note("ignored a non-finite drag \(delta)")
            return
        }
        moveOffset(to: dragged(contentOffset, by: delta, drag: drag))
    }

    /// Where a drag by `delta` takes the content from `offset`, in this view's bounds: a pinch
    /// works out its pan at the scale it is going to (`ZoomPhase`), before it shows either.
    func dragged(_ offset: Point, by delta: Vector, drag: ScrollPhase.Drag) -> Point {
        var offset = offset
        let band = RubberBand(coefficient: physics.rubberBandCoefficient)
        // Two fingers pan with their centroid wherever it goes: an axis lock taken by the first
        // finger's drag would let the content slip from under them.
        var lock = drag.lockedAxis
        if case .pinching = zoomPhase { lock = nil }
        for axis in Axis.allCases where canScroll(axis) && (lock ?? axis) == axis {
            let lower = minimumOffset(axis), upper = maximumOffset(axis), dim = boundsSize[axis]
            // The finger moves the content, so the offset moves against it.
            if bounces {
                let raw = band.unband(offset[axis], lower: lower, upper: upper, dimension: dim) - delta[axis]
                offset[axis] = band.band(raw, lower: lower, upper: upper, dimension: dim)
            } else {
                offset[axis] = Swift.min(Swift.max(offset[axis] - delta[axis], lower), upper)
            }
        }
        return offset
    }

    /// The lift after a drag: momentum, bounce, page snap, zoom bounce, or rest.
    private mutating func endDrag(_ drag: ScrollPhase.Drag, velocity fingerVelocity: Vector, at t: Instant) {
        if isZooming {
            // A zoom past its limits bounces back after the lift: the content keeps moving, so
            // the drag ends announcing it (UIKit: `willDecelerate` is true when the scroll view
            // "will continue moving"), and the bounce is the deceleration that follows.
            let target = zoomBounceTarget()
            send(.willEndDragging(velocity: .zero, targetContentOffset: target.offset))
            send(.didEndDragging(willDecelerate: target.scale != zoomScale || target.offset != contentOffset))
            phase = .idle
            handleZoom(.lift, at: t)
            return
        }
        let velocity = flingVelocity(fingerVelocity, lockedAxis: drag.lockedAxis)
        let momentum = self.momentum(velocity: velocity, dragStart: drag.startOffset, at: t)
        send(.willEndDragging(velocity: velocity, targetContentOffset: momentum.restOffset))
        let moves = momentum.x.isMoving || momentum.y.isMoving
        send(.didEndDragging(willDecelerate: moves))
        if moves {
            phase = .decelerating(momentum)
            send(.willBeginDecelerating)
        } else {
            phase = .idle
            moveOffset(to: momentum.restOffset)
            motionStopped(at: t)
        }
    }

    /// A lift without a drag: content that a touch caught out of bounds (or between pages)
    /// goes back; otherwise nothing moves.
    private mutating func settleIfNeeded(at t: Instant) {
        let momentum = self.momentum(velocity: .zero, dragStart: contentOffset, at: t)
        guard momentum.x.isMoving || momentum.y.isMoving else { return }
        phase = .decelerating(momentum)
        send(.willBeginDecelerating)
    }

    /// Offset velocity from finger velocity: reversed, without the axes that cannot scroll,
    /// zero below the fling minimum, clamped to the maximum.
    private func flingVelocity(_ finger: Vector, lockedAxis: Axis?) -> Vector {
        guard finger.isFinite else { return .zero }
        var v = -finger
        for axis in Axis.allCases where !canScroll(axis) || (lockedAxis ?? axis) != axis {
            v[axis] = 0
        }
        let speed = v.length
        if speed < physics.minimumFlingVelocity { return .zero }
        if speed > physics.maximumFlingVelocity { v = v * (physics.maximumFlingVelocity / speed) }
        return v
    }

    /// The motion of both axes after a lift at `t` with offset `velocity`.
    private func momentum(velocity: Vector, dragStart: Point, at t: Instant) -> ScrollPhase.Momentum {
        func axisMotion(_ axis: Axis) -> AxisMotion {
            let position = contentOffset[axis], lower = minimumOffset(axis), upper = maximumOffset(axis)
            if isPagingEnabled {
                let paging = Paging(pageSize: boundsSize[axis])
                let target = paging.target(offset: position, velocity: velocity[axis], dragStart: dragStart[axis],
                                           lower: lower, upper: upper, physics: physics)
                guard abs(target - position) > 0.01 || velocity[axis] != 0 else { return AxisMotion(restingAt: target) }
                // At most the speed that reaches the page without overshooting it: the spring
                // stays on its side, so the content rests on the page without showing the next.
                let towards = (target - position).sign == velocity[axis].sign
                let limit = (physics.springStiffness / physics.springMass).squareRoot() * abs(target - position)
                let v = towards ? Swift.min(abs(velocity[axis]), limit) * (velocity[axis] < 0 ? -1 : 1) : 0
                return .spring(from: position, velocity: v, to: target, physics: physics)
            }
            return .release(at: position, velocity: velocity[axis], lower: lower, upper: upper,
                            bounces: bounces, rate: decelerationRate, physics: physics)
        }
        return ScrollPhase.Momentum(start: t, x: axisMotion(.horizontal), y: axisMotion(.vertical))
    }
}

extension ScrollView {
    /// Where the motion under way comes to rest at the present zoom scale, known from its start
    /// (a flick's closed form, a scroll animation's target); `nil` at rest, while dragging, and
    /// for animations that change the scale. Content that is drawn from tiles fetches the tiles
    /// there before the view arrives.
    public var restingOffset: Point? {
        switch phase {
        case .decelerating(let momentum): momentum.restOffset
        case .animating(let animation) where animation.fromScale == animation.toScale: animation.toOffset
        case .idle, .tracking, .dragging, .animating: nil
        }
    }
}
