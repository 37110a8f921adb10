/// One event of a Wayland seat as the compositor sent it, before any meaning is given to it:
/// what `WaylandSeat`'s listeners hear and what a `WAYLAND_DEBUG=1` log records
/// (`WaylandDebugLog`). Positions are surface-local (wl_fixed, as `Double`), times the
/// compositor's milliseconds; `timestamp` is `zwp_input_timestamps_v1`'s nanoseconds for the
/// next timed event of its device.
public enum WaylandSeatEvent: Hashable, Sendable {
    /// The seat device a `timestamp` belongs to.
    public enum Device: String, Hashable, Sendable {
        case touch, pointer
    }

    /// `wl_pointer.axis`: which way.
    public enum Axis: UInt32, Hashable, Sendable {
        case vertical = 0, horizontal = 1
    }

    /// `wl_pointer.axis_source`: what made the axis events of a frame.
    public enum AxisSource: UInt32, Hashable, Sendable {
        case wheel = 0, finger = 1, continuous = 2, wheelTilt = 3
    }

    // wl_touch
    /// A finger touched the surface.
    case touchDown(time: UInt32, id: Int32, x: Double, y: Double)
    /// A finger lifted.
    case touchUp(time: UInt32, id: Int32)
    /// A finger moved.
    case touchMotion(time: UInt32, id: Int32, x: Double, y: Double)
    /// The end of one set of touch events that belong together.
    case touchFrame
    /// The compositor took the touches (a gesture of its own): every touch ends cancelled.
    case touchCancel
    /// A finger's contact ellipse (`wl_touch` v6).
    case touchShape(id: Int32, major: Double, minor: Double)

    // wl_pointer
    /// The pointer entered the surface at (x, y).
    case pointerEnter(x: Double, y: Double)
    /// The pointer left the surface.
    case pointerLeave
    /// The pointer moved.
    case pointerMotion(time: UInt32, x: Double, y: Double)
    /// A button changed (`BTN_LEFT` is 0x110), pressed or released.
    case pointerButton(time: UInt32, button: UInt32, pressed: Bool)
    /// Scroll along an axis by `value` surface-local units (positive: down, right).
    case pointerAxis(time: UInt32, axis: Axis, value: Double)
    /// The source of this frame's axis events.
    case pointerAxisSource(AxisSource)
    /// The fingers left the touchpad: the scroll along `axis` stopped.
    case pointerAxisStop(time: UInt32, axis: Axis)
    /// A wheel's detents along `axis` (`wl_pointer` v5–7).
    case pointerAxisDiscrete(axis: Axis, discrete: Int32)
    /// A wheel's motion along `axis` in 1/120 detents (`wl_pointer` v8).
    case pointerAxisValue120(axis: Axis, value120: Int32)
    /// The end of one set of pointer events that belong together.
    case pointerFrame

    // zwp_pointer_gesture_pinch_v1
    /// A touchpad pinch began with `fingers` fingers.
    case pinchBegin(time: UInt32, fingers: UInt32)
    /// The pinch's centre moved by (dx, dy), its scale (relative to the begin) and rotation changed.
    case pinchUpdate(time: UInt32, dx: Double, dy: Double, scale: Double, rotation: Double)
    /// The pinch ended, or the compositor cancelled it.
    case pinchEnd(time: UInt32, cancelled: Bool)

    // zwp_input_timestamps_v1
    /// The exact time, in nanoseconds, of `device`'s next timed event.
    case timestamp(Device, nanoseconds: UInt64)
}
