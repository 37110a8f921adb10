import CWayland
import CWaylandProtocols

/// The seat's C listener tables (`WaylandListener`'s pattern): each entry turns its user data
/// back into the seat and hands it one `WaylandSeatEvent`; all meaning is the translator's.
extension WaylandSeat {
    static func makeSeatListener() -> WaylandListener<wl_seat_listener> {
        WaylandListener(wl_seat_listener(
            capabilities: { data, _, capabilities in waylandOwner(data, as: WaylandSeat.self)?.setCapabilities(capabilities) },
            name: { data, _, name in
                guard let name else { return }
                waylandOwner(data, as: WaylandSeat.self)?.setSeatName(String(cString: name))
            }
        ))
    }

    static func makeTouchListener() -> WaylandListener<wl_touch_listener> {
        WaylandListener(wl_touch_listener(
            down: { data, _, _, time, _, id, x, y in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.touchDown(time: time, id: id, x: waylandFixed(x), y: waylandFixed(y)))
            },
            up: { data, _, _, time, id in waylandOwner(data, as: WaylandSeat.self)?.heard(.touchUp(time: time, id: id)) },
            motion: { data, _, time, id, x, y in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.touchMotion(time: time, id: id, x: waylandFixed(x), y: waylandFixed(y)))
            },
            frame: { data, _ in waylandOwner(data, as: WaylandSeat.self)?.heard(.touchFrame) },
            cancel: { data, _ in waylandOwner(data, as: WaylandSeat.self)?.heard(.touchCancel) },
            shape: { data, _, id, major, minor in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.touchShape(id: id, major: waylandFixed(major), minor: waylandFixed(minor)))
            },
            orientation: { _, _, _, _ in }
        ))
    }

    static func makePointerListener() -> WaylandListener<wl_pointer_listener> {
        WaylandListener(wl_pointer_listener(
            enter: { data, _, _, _, x, y in waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerEnter(x: waylandFixed(x), y: waylandFixed(y))) },
            leave: { data, _, _, _ in waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerLeave) },
            motion: { data, _, time, x, y in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerMotion(time: time, x: waylandFixed(x), y: waylandFixed(y)))
            },
            button: { data, _, _, time, button, state in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerButton(time: time, button: button, pressed: state == 1))
            },
            axis: { data, _, time, axis, value in
                guard let axis = WaylandSeatEvent.Axis(rawValue: axis) else { return }
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerAxis(time: time, axis: axis, value: waylandFixed(value)))
            },
            frame: { data, _ in waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerFrame) },
            axis_source: { data, _, source in
                guard let source = WaylandSeatEvent.AxisSource(rawValue: source) else { return }
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerAxisSource(source))
            },
            axis_stop: { data, _, time, axis in
                guard let axis = WaylandSeatEvent.Axis(rawValue: axis) else { return }
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerAxisStop(time: time, axis: axis))
            },
            axis_discrete: { data, _, axis, discrete in
                guard let axis = WaylandSeatEvent.Axis(rawValue: axis) else { return }
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerAxisDiscrete(axis: axis, discrete: discrete))
            },
            axis_value120: { data, _, axis, value in
                guard let axis = WaylandSeatEvent.Axis(rawValue: axis) else { return }
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pointerAxisValue120(axis: axis, value120: value))
            }
        ))
    }

    static func makeTimestampsListener() -> WaylandListener<zwp_input_timestamps_v1_listener> {
        WaylandListener(zwp_input_timestamps_v1_listener(
            timestamp: { data, stamps, high, low, nanoseconds in
                guard let seat = waylandOwner(data, as: WaylandSeat.self), let stamps else { return }
                // One listener for both devices: the object says whose next event it stamps.
                let device: WaylandSeatEvent.Device = stamps == seat.touchStamps ? .touch : .pointer
                let seconds = UInt64(high) << 32 | UInt64(low)
                let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow, nanoseconds < 1_000_000_000 else { return }
                seat.heard(.timestamp(device, nanoseconds: ns &+ UInt64(nanoseconds)))
            }
        ))
    }

    static func makePinchListener() -> WaylandListener<zwp_pointer_gesture_pinch_v1_listener> {
        WaylandListener(zwp_pointer_gesture_pinch_v1_listener(
            begin: { data, _, _, time, _, fingers in waylandOwner(data, as: WaylandSeat.self)?.heard(.pinchBegin(time: time, fingers: fingers)) },
            update: { data, _, time, dx, dy, scale, rotation in
                waylandOwner(data, as: WaylandSeat.self)?.heard(.pinchUpdate(time: time, dx: waylandFixed(dx), dy: waylandFixed(dy), scale: waylandFixed(scale),
                                                                              rotation: waylandFixed(rotation)))
            },
            end: { data, _, _, time, cancelled in waylandOwner(data, as: WaylandSeat.self)?.heard(.pinchEnd(time: time, cancelled: cancelled != 0)) }
        ))
    }
}

/// A `wl_fixed_t` (24.8) as a number.
private func waylandFixed(_ v: wl_fixed_t) -> Double { Double(v) / 256 }
