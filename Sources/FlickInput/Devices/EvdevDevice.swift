import CEvdev
import FlickCore
import FlickSystem
import Glibc

/// A `/dev/input/event*` node read through libevdev.
///
/// Opened non-blocking with kernel timestamps on CLOCK_MONOTONIC (the loop's clock), optionally
/// grabbed so no other reader (a console, another app) sees the touches. Reads use
/// `LIBEVDEV_READ_FLAG_NORMAL`; on `SYN_DROPPED` they switch to `LIBEVDEV_READ_FLAG_SYNC` until
/// `-EAGAIN`, so libevdev replays the device's true state for the decoder to reconcile.
public final class EvdevDevice: EventReader {
    public let path: String
    public let fileDescriptor: Descriptor
    public let description: DeviceDescription
    private var device: OpaquePointer?
    private let grabbed: Bool

    /// Most events taken per read, so one chatty device cannot starve the loop.
    static let readLimit = 4096

    /// Opens a device node.
    /// - Throws: `InputDeviceError` naming the node and the reason (permissions: the `input`
    ///   group; not an evdev node; grab refused).
    public init(path: String, grab: Bool = false) throws(InputDeviceError) {
        guard let descriptor = Descriptor(returnedBy: Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) else {
            let cause = SystemError.current("open", path)
            let hint = cause.isPermissionError ? " (run as root or in the 'input' group)" : ""
            throw InputDeviceError(path: path, step: "cannot open", cause: cause, hint: hint)
        }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &dev)
        guard rc == 0, let dev else {
            throw InputDeviceError(path: path, step: "not an evdev device",
                                   cause: SystemError(call: "libevdev_new_from_fd", context: path, errno: -rc))
        }
        _ = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        if grab {
            let g = libevdev_grab(dev, LIBEVDEV_GRAB)
            if g != 0 {
                libevdev_free(dev)
                throw InputDeviceError(path: path, step: "cannot grab", cause: SystemError(call: "libevdev_grab", context: path, errno: -g),
                                       hint: " (another program holds it)")
            }
        }
        self.path = path
        fileDescriptor = descriptor
        device = dev
        grabbed = grab
        description = Self.describe(dev)
    }

    deinit { close() }

    /// Refuses a device another program has grabbed (a running `flickd`): its events would not
    /// reach this reader, and a bring-up tool would show nothing without a word. A grab that
    /// succeeds is let go at once. The corresponding C function is `libevdev_grab`.
    /// - Throws: `InputDeviceError` saying who holds it and what to do.
    public func ensureNotHeldElsewhere() throws(InputDeviceError) {
        guard let device, !grabbed else { return }
        let g = libevdev_grab(device, LIBEVDEV_GRAB)
        if g == -EBUSY {
            throw InputDeviceError(path: path, reason: "held by another program (flickd, grabbing it): its touches would "
                                   + "not reach this one; stop it first (systemctl stop flickd)")
        }
        if g == 0 { _ = libevdev_grab(device, LIBEVDEV_UNGRAB) }
    }

    public func read() -> (items: [ReadItem], removed: Bool) {
        guard let device else { return ([], true) }
        var items: [ReadItem] = []
        var event = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while items.count < Self.readLimit {
            let rc = libevdev_next_event(device, flags, &event)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                items.append(.event(Self.convert(event)))
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                if flags == LIBEVDEV_READ_FLAG_NORMAL.rawValue {
                    // This is the SYN_DROPPED itself: what follows is the resync.
                    items.append(.dropped)
                    flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
                } else {
                    items.append(.event(Self.convert(event)))
                }
            } else if rc == -EAGAIN {
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue {
                    flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue   // resync done; read on
                    continue
                }
                return (items, false)
            } else {
                // -ENODEV: unplugged. Anything else (EIO …) is as fatal for this fd.
                return (items, true)
            }
        }
        return (items, false)
    }

    public func lastValues() -> [InputEvent] {
        guard let device else { return [] }
        let t = Instant.monotonicNow()
        var events: [InputEvent] = []
        func has(_ code: UInt16) -> Bool { libevdev_has_event_code(device, UInt32(EventCode.EV_ABS), UInt32(code)) != 0 }
        func abs(_ code: UInt16, _ value: Int32) { events.append(InputEvent(time: t, type: EventCode.EV_ABS, code: code, value: value)) }
        let perSlot = [EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y, EventCode.ABS_MT_PRESSURE,
                       EventCode.ABS_MT_TOUCH_MAJOR].filter(has)
        let slots = libevdev_get_num_slots(device)
        if slots > 0 && has(EventCode.ABS_MT_SLOT) {
            for slot in 0..<min(slots, Int32(TouchDecoder.slotLimit)) {
                abs(EventCode.ABS_MT_SLOT, slot)
                for code in perSlot { abs(code, libevdev_get_slot_value(device, UInt32(slot), UInt32(code))) }
            }
            abs(EventCode.ABS_MT_SLOT, libevdev_get_current_slot(device))
        }
        for code in [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_PRESSURE] where has(code) {
            abs(code, libevdev_get_event_value(device, UInt32(EventCode.EV_ABS), UInt32(code)))
        }
        events.append(InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0))
        return events
    }

    public func close() {
        guard let dev = device else { return }
        if grabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        // The fd closes with the last holder of `fileDescriptor`: a loop still watching it must
        // let go first, or a device plugged in meanwhile could get its number under the watch.
        device = nil
    }

    private static func convert(_ e: input_event) -> InputEvent {
        InputEvent(time: Instant(seconds: Int64(e.time.tv_sec), microseconds: Int64(e.time.tv_usec)),
                   type: e.type, code: e.code, value: e.value)
    }

    private static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        var d = DeviceDescription(name: libevdev_get_name(dev).map { String(cString: $0) } ?? "")
        d.bus = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        for p in UInt32(0)..<0x20 where libevdev_has_property(dev, p) != 0 { d.properties.insert(UInt16(p)) }
        for type in [EventCode.EV_KEY, EventCode.EV_ABS] where libevdev_has_event_type(dev, UInt32(type)) != 0 {
            for code in 0...(EventCode.maximumCode(type: type) ?? 0)
            where libevdev_has_event_code(dev, UInt32(type), UInt32(code)) != 0 {
                if type == EventCode.EV_ABS, let info = libevdev_get_abs_info(dev, UInt32(code))?.pointee {
                    d.setAxis(code, AbsAxis(minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
                                            resolution: info.resolution))
                } else {
                    d.enable(type, code)
                }
            }
        }
        return d
    }
}
