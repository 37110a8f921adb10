import FlickCore

/// The pointer's side of the translator: `wl_pointer`'s events gather until `wl_pointer.frame`
/// (a pointer older than version 5 sends none: each event is its own frame), then become the
/// pointer's finger (the left button held) and `PointerInput`s; a touchpad pinch's events
/// stand alone.
///
/// Axis events by source: a wheel (or a tilt) turns by detents — `axis_value120` / 120, else
/// `axis_discrete`, else the value / 10 (libinput and Weston's 10 units a detent) — one short
/// animated scroll per frame; a touchpad's fingers drag the view until `axis_stop` flicks it;
/// a continuous source (a trackpoint's button scrolling) promises no `axis_stop`, so each of
/// its frames is a drag that ends at once, without momentum. A frame without a source is a
/// wheel's.
extension WaylandInputTranslator {
    /// What the pointer is doing, and what its current frame holds so far.
    struct PointerState: Sendable {
        /// Where it is, in the panel's pixels; nil while it is off the surface.
        var position: Point?
        /// Whether the left button is held: a finger down.
        var held = false
        /// Whether a touchpad scroll or pinch is under way (a leave cancels it).
        var scrolling = false
        var pinching = false
        /// Whether the compositor sends `wl_pointer.frame` (version 5 on).
        var framed = true

        // The frame being gathered.
        var time: Instant?
        var moved = false
        var pressed = false
        var released = false
        var left = false
        var source: WaylandSeatEvent.AxisSource?
        var value: [WaylandSeatEvent.Axis: Double] = [:]
        var discrete: [WaylandSeatEvent.Axis: Int32] = [:]
        var value120: [WaylandSeatEvent.Axis: Int32] = [:]
        var stopped = false

        /// Forgets the frame, keeping what the pointer is doing.
        mutating func clearFrame() {
            time = nil
            moved = false; pressed = false; released = false; left = false
            source = nil; value = [:]; discrete = [:]; value120 = [:]; stopped = false
        }
    }

    /// The left button (`BTN_LEFT`).
    static let leftButton: UInt32 = 0x110

    mutating func handlePointer(_ event: WaylandSeatEvent) {
        switch event {
        case let .pointerEnter(x, y):
            pointer.position = mapping.map(x, y)
        case .pointerLeave:
            pointer.left = true
        case let .pointerMotion(ms, x, y):
            pointer.time = time(ms, .pointer)
            pointer.position = mapping.map(x, y)
            pointer.moved = true
        case let .pointerButton(ms, button, pressed):
            let t = time(ms, .pointer)
            guard button == Self.leftButton else { return }
            pointer.time = t
            if pressed { pointer.pressed = true } else { pointer.released = true }
        case let .pointerAxis(ms, axis, value):
            pointer.time = time(ms, .pointer)
            pointer.value[axis, default: 0] += value
        case let .pointerAxisSource(source):
            pointer.source = source
        case let .pointerAxisStop(ms, _):
            pointer.time = time(ms, .pointer)
            pointer.stopped = true
        case let .pointerAxisDiscrete(axis, discrete):
            pointer.discrete[axis, default: 0] &+= discrete
        case let .pointerAxisValue120(axis, value120):
            pointer.value120[axis, default: 0] &+= value120
        case .pointerFrame:
            flushPointer()
            return
        case let .pinchBegin(ms, _):
            pointer.pinching = true
            emit(.pointer(.pinchBegin(focus: pinchFocus, at: time(ms, .pointer))))
        case let .pinchUpdate(ms, _, _, scale, _):
            // The pointer stays put while the fingers pinch: the zoom is about it, and the
            // fingers' drift (dx, dy) would slide the content from under it.
            emit(.pointer(.pinch(scale: scale, focus: pinchFocus, at: time(ms, .pointer))))
        case let .pinchEnd(ms, cancelled):
            pointer.pinching = false
            emit(.pointer(.pinchEnd(cancelled: cancelled, at: time(ms, .pointer))))
        case .touchDown, .touchUp, .touchMotion, .touchFrame, .touchCancel, .touchShape, .timestamp:
            return
        }
        if !pointer.framed { flushPointer() }
    }

    /// Where a pinch zooms about: the pointer, or the panel's middle before it has been seen.
    private var pinchFocus: Point {
        pointer.position ?? Point(x: mapping.outputSize.width / 2, y: mapping.outputSize.height / 2)
    }

    /// The seat lost its pointer, or the pointer left: as a leave.
    public mutating func pointerLost() {
        pointer.left = true
        flushPointer()
    }

    /// Tells whether the compositor sends `wl_pointer.frame` (the bound version is 5 or more).
    public mutating func setPointerFrames(_ framed: Bool) { pointer.framed = framed }

    /// The frame gathered: the finger first, then the axes, then what a leave ends.
    private mutating func flushPointer() {
        defer { pointer.clearFrame() }
        let t = pointer.time ?? latest ?? .zero
        if pointer.pressed, !pointer.held, pointer.position != nil, !pointer.left {
            pointer.held = true
            emit(.touch(TouchFrame(time: t, contacts: contacts, began: [Self.pointerContact])))
            if pointer.released { release(at: t, cancelled: false) }
        } else if pointer.held, pointer.released || pointer.left {
            if pointer.moved, !pointer.left { emit(.touch(TouchFrame(time: t, contacts: contacts))) }
            release(at: t, cancelled: !pointer.released)
        } else if pointer.held, pointer.moved {
            emit(.touch(TouchFrame(time: t, contacts: contacts)))
        }
        axes(at: t)
        if pointer.left {
            if pointer.scrolling || pointer.pinching { emit(.pointer(.cancel(at: t))) }
            pointer.scrolling = false
            pointer.pinching = false
            pointer.position = nil
        }
    }

    /// The pointer's finger lifts (or, leaving, vanishes cancelled).
    private mutating func release(at t: Instant, cancelled: Bool) {
        let last = Contact(id: Self.pointerContact, position: pointer.position ?? .zero)
        pointer.held = false
        emit(.touch(TouchFrame(time: t, contacts: contacts, ended: [last], cancelled: cancelled ? [last.id] : [])))
    }

    private mutating func axes(at t: Instant) {
        let p = pointer
        func along(_ axis: WaylandSeatEvent.Axis) -> Double { p.value[axis] ?? 0 }
        switch p.source {
        case .finger?, .continuous?:
            let k = mapping.scale
            let delta = Vector(dx: along(.horizontal) * k.dx, dy: along(.vertical) * k.dy)
            if delta != .zero {
                pointer.scrolling = true
                emit(.pointer(.scroll(delta: delta, at: t)))
            }
            if pointer.scrolling, p.stopped || p.source == .continuous {
                pointer.scrolling = false
                emit(.pointer(.scrollEnd(at: t)))
            }
        case .wheel?, .wheelTilt?, nil:
            func steps(_ axis: WaylandSeatEvent.Axis) -> Double {
                if let v = p.value120[axis] { return Double(v) / 120 }
                if let d = p.discrete[axis] { return Double(d) }
                return along(axis) / 10
            }
            let turn = Vector(dx: steps(.horizontal), dy: steps(.vertical))
            if turn != .zero, turn.isFinite { emit(.pointer(.wheel(steps: turn, at: t))) }
        }
    }
}
