import CWayland
import CWaylandProtocols
import FlickCore
import FlickSystem

/// What the seat needs from the Wayland output it serves: the shared connection and the
/// surface's logical size (its last configure), to map surface coordinates onto the panel.
public protocol WaylandSeatHost: AnyObject {
    /// The one connection the output and the seat share.
    var connection: WaylandConnection { get }
    /// The surface's size in the compositor's logical coordinates (input coordinates), once
    /// configured.
    var seatSurfaceSize: Size? { get }
}

/// The compositor's seat as flickd's input under a compositor: `wl_touch` and `wl_pointer`
/// (with `zwp_input_timestamps_v1` and a pinch from `zwp_pointer_gestures_v1` when offered)
/// through `WaylandInputTranslator`, on the output's connection. flickd opens no `/dev/input`
/// device then: the compositor owns them.
///
/// Passive like every source: the loop watches the connection's descriptor (the output's too:
/// one watch) and `dispatch(now:)` reads what came; the listeners only record events. Devices
/// that come and go (a touchscreen unplugged) arrive as the seat's capabilities: a lost
/// touchscreen's touches end cancelled, a lost pointer's gesture too.
public final class WaylandSeat {
    /// For logs and `status`.
    public private(set) var name: String
    private let host: WaylandSeatHost
    private var connection: WaylandConnection { host.connection }
    private var translator: WaylandInputTranslator
    private let log: (String) -> Void
    private var seat: OpaquePointer?
    private var seatVersion: UInt32 = 0
    private var stampsManager: OpaquePointer?
    private var gestures: OpaquePointer?
    var touch: OpaquePointer?
    var touchStamps: OpaquePointer?
    var pointer: OpaquePointer?
    var pointerStamps: OpaquePointer?
    var pinch: OpaquePointer?
    private var pointerInputs: [PointerInput] = []
    private var failed = false

    let seatListener = WaylandSeat.makeSeatListener()
    let touchListener = WaylandSeat.makeTouchListener()
    let pointerListener = WaylandSeat.makePointerListener()
    let stampsListener = WaylandSeat.makeTimestampsListener()
    let pinchListener = WaylandSeat.makePinchListener()

    /// Binds the seat and what it can use of the compositor's input extensions.
    /// - Parameters:
    ///   - host: the Wayland output whose connection and surface the seat serves.
    ///   - outputSize: the panel's logical size (the buffer's pixels).
    ///   - log: where what the journal should know goes (devices, millisecond times).
    public init(host: WaylandSeatHost, outputSize: Size, log: @escaping (String) -> Void) throws(WaylandError) {
        self.host = host
        self.log = log
        translator = WaylandInputTranslator(mapping: WaylandSurfaceMapping(surfaceSize: host.seatSurfaceSize, outputSize: outputSize))
        let connection = host.connection
        name = "wayland seat on \(connection.socket)"
        guard connection.global("wl_seat") != nil else {
            log("the compositor at \(connection.socket) offers no wl_seat: no input")
            return
        }
        let bound = try connection.bind(flickd_wl_seat_interface(), version: 8)
        seat = bound.proxy
        seatVersion = bound.version
        translator.setPointerFrames(bound.version >= 5)
        if connection.global("zwp_input_timestamps_manager_v1") != nil {
            stampsManager = try connection.bind(flickd_zwp_input_timestamps_manager_v1_interface(), version: 1).proxy
        }
        if connection.global("zwp_pointer_gestures_v1") != nil {
            gestures = try connection.bind(flickd_zwp_pointer_gestures_v1_interface(), version: 1).proxy
        }
        log("input: wl_seat v\(bound.version)" + (stampsManager == nil ? ", millisecond times (no zwp_input_timestamps_manager_v1)" : ", microsecond times")
            + (gestures == nil ? ", no touchpad pinch (no zwp_pointer_gestures_v1)" : ""))
        wl_seat_add_listener(seat, seatListener.pointer, Unmanaged.passUnretained(self).toOpaque())
        // The capabilities come as events: their devices are asked for in the listener.
        try connection.roundTrip()
    }

    deinit {
        setCapabilities(0)
        if let seat { seatVersion >= 5 ? wl_seat_release(seat) : wl_seat_destroy(seat) }
        if let stampsManager { zwp_input_timestamps_manager_v1_destroy(stampsManager) }
        if let gestures { zwp_pointer_gestures_v1_destroy(gestures) }
    }

    /// The connection's descriptor (the output watches the same one: one watch).
    public var fileDescriptors: [Descriptor] { failed ? [] : [connection.descriptor] }

    /// The seat waits on the socket only.
    public var nextDeadline: Instant? { nil }

    /// No decoder: nothing to trace.
    public var tracing = false
    public func takeTransitions() -> [Transition] { [] }

    /// Reads what the compositor sent and returns the touch frames it completed; the pointer's
    /// inputs wait in `takePointerInputs()`.
    public func dispatch(now: Instant) -> [TouchFrame] {
        translator.mapping.surfaceSize = host.seatSurfaceSize ?? translator.mapping.surfaceSize
        if !failed {
            do {
                try connection.dispatch()
            } catch {
                // The output says what broke and how the daemon goes on; the seat stops reading.
                failed = true
                log("input: \(error)")
                translator.touchesLost()
                translator.pointerLost()
            }
        }
        // What one read brought belongs together: under a compositor that closes its touch
        // frames late (cage 0.1.4) the content still moves as the events come.
        translator.endTouchGroup()
        for note in translator.takeNotes() { log("input: \(note)") }
        var frames: [TouchFrame] = []
        for input in translator.takeOutputs() {
            switch input {
            case let .touch(frame): frames.append(frame)
            case let .pointer(p): pointerInputs.append(p)
            }
        }
        return frames
    }

    /// The pointer's inputs the last dispatches completed, oldest first.
    public func takePointerInputs() -> [PointerInput] {
        defer { pointerInputs.removeAll() }
        return pointerInputs
    }

    /// Maps touches onto a panel of `size` from now on (the surface was resized or rescaled).
    public func setOutputSize(_ size: Size) {
        translator.mapping = WaylandSurfaceMapping(surfaceSize: host.seatSurfaceSize ?? translator.mapping.surfaceSize, outputSize: size)
    }

    // MARK: The listeners' side

    /// One event the listeners heard.
    func heard(_ event: WaylandSeatEvent) { translator.handle(event) }

    /// The devices the seat has now: those that came are asked for, those that went are let go
    /// (their touches and gestures ended cancelled first).
    func setCapabilities(_ capabilities: UInt32) {
        let hasTouch = capabilities & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
        let hasPointer = capabilities & WL_SEAT_CAPABILITY_POINTER.rawValue != 0
        let me = Unmanaged.passUnretained(self).toOpaque()
        if hasTouch, touch == nil, let seat {
            touch = wl_seat_get_touch(seat)
            wl_touch_add_listener(touch, touchListener.pointer, me)
            if let stampsManager {
                touchStamps = zwp_input_timestamps_manager_v1_get_touch_timestamps(stampsManager, touch)
                zwp_input_timestamps_v1_add_listener(touchStamps, stampsListener.pointer, me)
            }
            log("input: the compositor's touchscreen (wl_touch)")
        } else if !hasTouch, let old = touch {
            translator.touchesLost()
            if let touchStamps { zwp_input_timestamps_v1_destroy(touchStamps) }
            touchStamps = nil
            seatVersion >= 3 ? wl_touch_release(old) : wl_touch_destroy(old)
            touch = nil
            log("input: the compositor's touchscreen went")
        }
        if hasPointer, pointer == nil, let seat {
            pointer = wl_seat_get_pointer(seat)
            wl_pointer_add_listener(pointer, pointerListener.pointer, me)
            if let stampsManager {
                pointerStamps = zwp_input_timestamps_manager_v1_get_pointer_timestamps(stampsManager, pointer)
                zwp_input_timestamps_v1_add_listener(pointerStamps, stampsListener.pointer, me)
            }
            if let gestures {
                pinch = zwp_pointer_gestures_v1_get_pinch_gesture(gestures, pointer)
                zwp_pointer_gesture_pinch_v1_add_listener(pinch, pinchListener.pointer, me)
            }
            log("input: the compositor's pointer (wl_pointer: button held is a finger, wheel and touchpad scroll, pinch)")
        } else if !hasPointer, let old = pointer {
            translator.pointerLost()
            if let pinch { zwp_pointer_gesture_pinch_v1_destroy(pinch) }
            if let pointerStamps { zwp_input_timestamps_v1_destroy(pointerStamps) }
            pinch = nil
            pointerStamps = nil
            seatVersion >= 3 ? wl_pointer_release(old) : wl_pointer_destroy(old)
            pointer = nil
            log("input: the compositor's pointer went")
        }
    }

    /// The seat's name (`wl_seat.name`), for logs.
    func setSeatName(_ seatName: String) { name = "wayland seat \(seatName) on \(connection.socket)" }
}
