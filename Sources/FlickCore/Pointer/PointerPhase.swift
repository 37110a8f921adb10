import RealModule

/// The pointer's machine: a touchpad scrolling or pinching the view, between the wheel's
/// short animated scrolls. Its table (`### pointer` in docs/pointer.md) is the spec,
/// and `PointerTableTests` takes every edge.
///
/// A pointer button held is a finger (a `TouchFrame`, the recogniser's `gesture` machine); this
/// machine has what a finger cannot say. While a finger is followed the pointer's scrolls and
/// pinches are ignored (the finger owns the view), and a finger that touches down ends the
/// pointer's gesture first, as a lift without momentum (`touch`).
enum PointerPhase: Sendable {
    /// No touchpad gesture: a wheel turn animates a short scroll.
    case idle
    /// A touchpad's fingers drag the view.
    case scrolling(Scroll)
    /// A touchpad pinch zooms the view about the pointer.
    case pinching(Pinch)

    /// What a touchpad scroll remembers: its travel (in a finger's direction, as the velocity
    /// tracker follows a finger) for the flick at its end.
    struct Scroll: Sendable {
        var travel: Point
        var velocity: VelocityTracker
    }

    /// What a touchpad pinch remembers: the scale it began at, its last scale (relative to its
    /// beginning) and where the pointer was.
    struct Pinch: Sendable {
        var startScale: Double
        var scale: Double
        var focus: Point
    }

    /// The machine's alphabet (the table's columns).
    enum Event: String, Sendable {
        case wheel, scroll, stop, pinchBegin, pinch, pinchEnd, cancel, touch
    }

    var name: String {
        switch self {
        case .idle: "idle"
        case .scrolling: "scrolling"
        case .pinching: "pinching"
        }
    }
}

extension PointerInput {
    /// The input's column in the machine's table.
    var event: PointerPhase.Event {
        switch self {
        case .wheel: .wheel
        case .scroll: .scroll
        case .scrollEnd: .stop
        case .pinchBegin: .pinchBegin
        case .pinch: .pinch
        case .pinchEnd: .pinchEnd
        case .cancel: .cancel
        }
    }
}

extension GestureRecognizer {
    /// Consumes one input of a pointer (wheel, touchpad scroll or pinch): timers due before it
    /// fire first.
    /// - Returns: everything it caused, in order.
    public mutating func handle(_ input: PointerInput) -> [GestureOutput] {
        fire(upTo: input.time)
        pointerStep(input)
        return takeOutbox()
    }

    /// A finger touched down while the pointer had a gesture: that gesture ends first.
    mutating func pointerYields(at t: Instant) {
        switch pointer {
        case .idle:
            break
        case .scrolling, .pinching:
            endPointerGesture(on: .touch, at: t)
        }
    }

    /// The one dispatcher: every (state, input) pair decided, no default.
    private mutating func pointerStep(_ input: PointerInput) {
        let t = input.time
        switch (pointer, input) {
        case let (.idle, .wheel(steps, _)):
            guard !isTouching else { return }
            drive(at: t) { view in
                // Each detent scrolls GTK's step, the viewport's extent to the power 2/3, and
                // adds to the scroll still under way so fast turns add up.
                let base = view.isScrollAnimating ? view.destination.offset : view.contentOffset
                let step = Vector(dx: steps.dx * Double.pow(view.boundsSize.width, 2.0 / 3),
                                  dy: steps.dy * Double.pow(view.boundsSize.height, 2.0 / 3))
                guard step.isFinite else { return }
                try? view.setContentOffset(view.clampedOffset(base + step), animated: true, at: t)
            }
        case let (.idle, .scroll(delta, _)):
            guard !isTouching, delta.isFinite else { return }
            var scroll = PointerPhase.Scroll(travel: .zero, velocity: VelocityTracker(
                window: configuration.velocityWindow, capacity: configuration.velocitySamples, resetGap: configuration.velocityResetGap))
            scroll.velocity.add(.zero, at: t)
            enterPointer(.scrolling(scroll), on: .scroll, at: t)
            let unseen = configuration.imperceptibleSpeed
            drive(at: t) { $0.touchDown(at: t, unseenSpeed: unseen) }
            scrolled(by: delta, scroll, at: t)
        case let (.scrolling(scroll), .scroll(delta, _)):
            guard delta.isFinite else { return }
            scrolled(by: delta, scroll, at: t)
        case let (.scrolling(scroll), .scrollEnd):
            enterPointer(.idle, on: .stop, at: t)
            let v = scroll.velocity.velocity(at: t)
            let released = outbox.count
            drive(at: t) { $0.release(velocity: v, at: t) }
            if let applied = Self.momentum(outbox[released...]), let rest = scrollView.momentumRest, scrollView.isDecelerating {
                emit(.gesture(.flick(velocity: applied, restOffset: rest.offset, duration: rest.duration)), at: t)
            } else {
                emit(.gesture(.drag(translation: Vector(dx: scroll.travel.x, dy: scroll.travel.y))), at: t)
            }
        case let (.idle, .pinchBegin(focus, _)):
            guard !isTouching, focus.isFinite else { return }
            enterPointer(.pinching(PointerPhase.Pinch(startScale: scrollView.zoomScale, scale: 1, focus: focus)), on: .pinchBegin, at: t)
            let unseen = configuration.imperceptibleSpeed
            drive(at: t) {
                $0.touchDown(at: t, unseenSpeed: unseen)
                $0.beginZooming(focus: focus, at: t)
            }
        case (.pinching(var pinch), .pinch(let scale, let focus, _)):
            guard scale.isFinite, scale > 0, focus.isFinite else { return }
            // The scale about where the pointer was, then its move (none, usually: the pointer
            // rests while the fingers pinch): the content under the pointer stays under it.
            let factor = scale / pinch.scale, from = pinch.focus
            pinch.scale = scale
            pinch.focus = focus
            pointer = .pinching(pinch)
            drive(at: t) { $0.pinch(by: factor, from: from, to: focus, at: t) }
        case (.pinching, .pinchEnd):
            // Cancelled or not, the zoom stays where the fingers left it and bounces back
            // inside its limits, as a pinch's lift does.
            endPointerGesture(on: .pinchEnd, at: t)
        case (.scrolling, .cancel), (.pinching, .cancel):
            endPointerGesture(on: .cancel, at: t)
        case (.idle, .scrollEnd), (.idle, .pinch), (.idle, .pinchEnd), (.idle, .cancel),
             (.scrolling, .wheel), (.scrolling, .pinchBegin), (.scrolling, .pinch), (.scrolling, .pinchEnd),
             (.pinching, .wheel), (.pinching, .scroll), (.pinching, .scrollEnd), (.pinching, .pinchBegin):
            // What the compositor sends around a gesture this side did not see begin (the
            // pointer entered mid-way, a finger owned the view), or the other kind's events
            // during one: nothing to do.
            break
        }
    }

    /// One touchpad scroll: the view is dragged as a finger moving against the offset would.
    private mutating func scrolled(by delta: Vector, _ scroll: PointerPhase.Scroll, at t: Instant) {
        var scroll = scroll
        let finger = -delta
        scroll.travel = scroll.travel + finger
        scroll.velocity.add(scroll.travel, at: t)
        pointer = .scrolling(scroll)
        drive(at: t) { $0.drag(by: finger, at: t) }
    }

    /// Ends a scroll or a pinch as a lift without momentum; a pinch's zoom bounces back inside
    /// its limits.
    private mutating func endPointerGesture(on event: PointerPhase.Event, at t: Instant) {
        let before = pointer
        enterPointer(.idle, on: event, at: t)
        switch before {
        case .idle:
            break
        case .scrolling:
            drive(at: t) { $0.cancelTouch(at: t) }
        case let .pinching(pinch):
            drive(at: t) {
                $0.endZooming(at: t)
                $0.release(velocity: .zero, at: t)
            }
            emit(.gesture(.pinch(fromScale: pinch.startScale, toScale: scrollView.zoomScale)), at: t)
        }
    }

    /// Moves to `next`, traced when the machine's state changes.
    private mutating func enterPointer(_ next: PointerPhase, on event: PointerPhase.Event, at t: Instant) {
        if tracing, next.name != pointer.name {
            emit(.transition(Transition(.pointer, at: t, from: pointer.name, on: event.rawValue, to: next.name)), at: t)
        }
        pointer = next
    }
}
