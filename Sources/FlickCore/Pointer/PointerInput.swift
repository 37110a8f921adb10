/// What a pointer (a mouse's wheel, a touchpad's scroll and pinch) asks of the view, in the
/// panel's pixels, once a compositor's events are translated (`WaylandInputTranslator`).
///
/// A pointer button held is a finger and comes as a `TouchFrame`; these are the rest. Offsets
/// follow the scroll view's: a positive delta moves the offset that way (scrolling down shows
/// what is below), the opposite of a finger dragging the content.
public enum PointerInput: Hashable, Sendable {
    /// A wheel turned by `steps` detents along each axis: one short animated scroll per turn,
    /// adding to a scroll still under way.
    case wheel(steps: Vector, at: Instant)
    /// A touchpad's fingers scrolled by `delta` pixels: the first begins a drag of the view.
    case scroll(delta: Vector, at: Instant)
    /// The touchpad's fingers lifted (`axis_stop`): the drag ends in a flick with the velocity
    /// of its last scrolls, as GTK's kinetic scrolling does.
    case scrollEnd(at: Instant)
    /// A touchpad pinch began with the pointer at `focus`.
    case pinchBegin(focus: Point, at: Instant)
    /// The pinch's scale, relative to its beginning, with the pointer at `focus`.
    case pinch(scale: Double, focus: Point, at: Instant)
    /// The pinch ended (or the compositor cancelled it): the zoom bounces back inside its limits.
    case pinchEnd(cancelled: Bool, at: Instant)
    /// The pointer left the surface (or the seat lost it) mid-gesture: a lift without momentum.
    case cancel(at: Instant)

    /// When it happened.
    public var time: Instant {
        switch self {
        case let .wheel(_, t), let .scroll(_, t), let .scrollEnd(t), let .pinchBegin(_, t), let .pinch(_, _, t),
             let .pinchEnd(_, t), let .cancel(t): t
        }
    }
}
