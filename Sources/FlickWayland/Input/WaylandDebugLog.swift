import FlickCore

/// A Wayland seat's events read from a `WAYLAND_DEBUG=1` log, the lines libwayland prints for
/// every message (`[1234567.890] wl_touch@13.down(42, 5120, wl_surface@3, 0, 100.00000000,
/// 200.00000000)`; a request has ` -> ` before its object, newer libwaylands a `{queue}`):
/// recorded sequences for tests and bug reports, read as strictly as the live seat's listeners
/// take them.
///
/// Only the seat's messages are read: `wl_touch`, `wl_pointer`, `zwp_pointer_gesture_pinch_v1`
/// and `zwp_input_timestamps_v1` events, and the `get_touch_timestamps`/`get_pointer_timestamps`
/// requests that say which device a timestamps object stamps. Other messages are skipped, and
/// so are blank lines, `#` comments and events libwayland discarded (their object gone). A line
/// that is not a message, or a seat message with other arguments than its protocol's, is an
/// error naming the line and what was expected.
public enum WaylandDebugLog {
    /// Reads a log.
    /// - Parameters:
    ///   - text: the log.
    ///   - path: the file, for errors.
    /// - Returns: the seat's events, in the log's order.
    /// - Throws: `WaylandLogError` at the first line that is not what libwayland prints.
    public static func parse(_ text: String, path: String) throws(WaylandLogError) -> [WaylandSeatEvent] {
        var events: [WaylandSeatEvent] = []
        var stamps: [String: WaylandSeatEvent.Device] = [:]
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            let message = try WaylandLogLine(line, path: path, line: number)
            let fail = { (what: String) in WaylandLogError(path: path, line: number, message: "\(message.target).\(message.name): \(what)") }
            if message.isDiscarded { continue }
            if message.isRequest {
                if message.interface == "zwp_input_timestamps_manager_v1",
                   let device: WaylandSeatEvent.Device = message.name == "get_touch_timestamps" ? .touch
                       : message.name == "get_pointer_timestamps" ? .pointer : nil {
                    guard let first = message.arguments.first, first.hasPrefix("new id ") else {
                        throw fail("expected (new id zwp_input_timestamps_v1@ID, DEVICE@ID)")
                    }
                    stamps[String(first.dropFirst("new id ".count))] = device
                }
                continue
            }
            guard let event = try seatEvent(message, stamps: stamps, fail) else { continue }
            events.append(event)
        }
        return events
    }

    /// The event a message is, or nil for a message the seat does not read.
    private static func seatEvent(_ m: WaylandLogLine, stamps: [String: WaylandSeatEvent.Device],
                                  _ fail: @escaping (String) -> WaylandLogError) throws(WaylandLogError) -> WaylandSeatEvent? {
        let a = WaylandLogArguments(m, fail)
        switch (m.interface, m.name) {
        case ("wl_touch", "down"):
            try a.expect("serial, time, surface, id, x, y", 6)
            return .touchDown(time: try a.uint(1), id: try a.int(3), x: try a.fixed(4), y: try a.fixed(5))
        case ("wl_touch", "up"):
            try a.expect("serial, time, id", 3)
            return .touchUp(time: try a.uint(1), id: try a.int(2))
        case ("wl_touch", "motion"):
            try a.expect("time, id, x, y", 4)
            return .touchMotion(time: try a.uint(0), id: try a.int(1), x: try a.fixed(2), y: try a.fixed(3))
        case ("wl_touch", "frame"):
            try a.expect("no arguments", 0)
            return .touchFrame
        case ("wl_touch", "cancel"):
            try a.expect("no arguments", 0)
            return .touchCancel
        case ("wl_touch", "shape"):
            try a.expect("id, major, minor", 3)
            return .touchShape(id: try a.int(0), major: try a.fixed(1), minor: try a.fixed(2))
        case ("wl_pointer", "enter"):
            try a.expect("serial, surface, x, y", 4)
            return .pointerEnter(x: try a.fixed(2), y: try a.fixed(3))
        case ("wl_pointer", "leave"):
            try a.expect("serial, surface", 2)
            return .pointerLeave
        case ("wl_pointer", "motion"):
            try a.expect("time, x, y", 3)
            return .pointerMotion(time: try a.uint(0), x: try a.fixed(1), y: try a.fixed(2))
        case ("wl_pointer", "button"):
            try a.expect("serial, time, button, state", 4)
            return .pointerButton(time: try a.uint(1), button: try a.uint(2), pressed: try a.uint(3) == 1)
        case ("wl_pointer", "axis"):
            try a.expect("time, axis, value", 3)
            return .pointerAxis(time: try a.uint(0), axis: try a.axis(1), value: try a.fixed(2))
        case ("wl_pointer", "frame"):
            try a.expect("no arguments", 0)
            return .pointerFrame
        case ("wl_pointer", "axis_source"):
            try a.expect("axis_source", 1)
            guard let source = WaylandSeatEvent.AxisSource(rawValue: try a.uint(0)) else {
                throw fail("expected an axis source 0 (wheel), 1 (finger), 2 (continuous) or 3 (wheel tilt), got \(a.values[0])")
            }
            return .pointerAxisSource(source)
        case ("wl_pointer", "axis_stop"):
            try a.expect("time, axis", 2)
            return .pointerAxisStop(time: try a.uint(0), axis: try a.axis(1))
        case ("wl_pointer", "axis_discrete"):
            try a.expect("axis, discrete", 2)
            return .pointerAxisDiscrete(axis: try a.axis(0), discrete: try a.int(1))
        case ("wl_pointer", "axis_value120"):
            try a.expect("axis, value120", 2)
            return .pointerAxisValue120(axis: try a.axis(0), value120: try a.int(1))
        case ("zwp_pointer_gesture_pinch_v1", "begin"):
            try a.expect("serial, time, surface, fingers", 4)
            return .pinchBegin(time: try a.uint(1), fingers: try a.uint(3))
        case ("zwp_pointer_gesture_pinch_v1", "update"):
            try a.expect("time, dx, dy, scale, rotation", 5)
            return .pinchUpdate(time: try a.uint(0), dx: try a.fixed(1), dy: try a.fixed(2), scale: try a.fixed(3), rotation: try a.fixed(4))
        case ("zwp_pointer_gesture_pinch_v1", "end"):
            try a.expect("serial, time, cancelled", 3)
            return .pinchEnd(time: try a.uint(1), cancelled: try a.int(2) != 0)
        case ("zwp_input_timestamps_v1", "timestamp"):
            try a.expect("tv_sec_hi, tv_sec_lo, tv_nsec", 3)
            guard let device = stamps[m.target] else {
                throw fail("expected the get_touch_timestamps or get_pointer_timestamps request that made \(m.target) before its events")
            }
            let seconds = UInt64(try a.uint(0)) << 32 | UInt64(try a.uint(1))
            let nanoseconds = try a.uint(2)
            guard nanoseconds < 1_000_000_000, seconds < UInt64(Int64.max) / 1_000_000_000 else {
                throw fail("expected a time within 292 years and tv_nsec below 1e9, got \(seconds) s \(nanoseconds) ns")
            }
            return .timestamp(device, nanoseconds: seconds * 1_000_000_000 + UInt64(nanoseconds))
        default:
            return nil
        }
    }
}

/// A log that cannot be read: the file, the line and what was expected there.
public struct WaylandLogError: FlickError, Hashable, Sendable {
    /// The file.
    public var path: String
    /// The 1-based line.
    public var line: Int
    /// What was expected, and what was found.
    public var message: String

    /// Creates an error.
    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var context: ErrorContext { ErrorContext(source: path, line: line, reason: message) }
}
