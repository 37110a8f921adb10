import CEvdev
import FlickSystem
import Glibc

/// A virtual input device made through `/dev/uinput` (libevdev's uinput API), so tests on a
/// real kernel can play touches that reach `/dev/input/event*` exactly as a panel's would.
///
/// The device has the name, ids, properties, codes and axes of a `DeviceDescription`. It lives
/// until `destroy()` (or deinit): destroying it while a reader holds the node gives that reader
/// `ENODEV`, as unplugging a panel does.
public final class UInputDevice {
    /// The `/dev/input/eventN` node the kernel made for it; nil once destroyed or if unknown.
    public private(set) var devicePath: String?
    /// The sysfs folder of the device, e.g. `/sys/devices/virtual/input/input7`.
    public private(set) var sysPath: String?
    /// What the device reports.
    public let description: DeviceDescription
    private var template: OpaquePointer?
    private var device: OpaquePointer?

    /// Creates the device.
    ///
    /// - Parameter description: what it is and reports; axes keep their ranges and resolutions.
    /// - Throws: `InputDeviceError` for `/dev/uinput` when the kernel refuses (no uinput module,
    ///   not root).
    public init(_ description: DeviceDescription) throws(InputDeviceError) {
        guard let dev = libevdev_new() else { throw InputDeviceError(path: "/dev/uinput", reason: "libevdev_new failed") }
        libevdev_set_name(dev, description.name)
        libevdev_set_id_bustype(dev, Int32(description.bus))
        libevdev_set_id_vendor(dev, Int32(description.vendor))
        libevdev_set_id_product(dev, Int32(description.product))
        libevdev_set_id_version(dev, Int32(description.version))
        for property in description.properties { _ = libevdev_enable_property(dev, UInt32(property)) }
        for (code, axis) in description.absAxes {
            var info = input_absinfo(value: axis.minimum, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz,
                                     flat: axis.flat, resolution: axis.resolution)
            _ = libevdev_enable_event_code(dev, UInt32(EventCode.EV_ABS), UInt32(code), &info)
        }
        for (type, codes) in description.codes where type != EventCode.EV_ABS {
            for code in codes { _ = libevdev_enable_event_code(dev, UInt32(type), UInt32(code), nil) }
        }
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &created)
        guard rc == 0, let created else {
            libevdev_free(dev)
            let hint = -rc == ENOENT ? " (is the uinput module loaded?)" : -rc == EACCES ? " (run as root)" : ""
            throw InputDeviceError(path: "/dev/uinput", step: "cannot create '\(description.name)'",
                                   cause: SystemError(call: "libevdev_uinput_create_from_device", context: "/dev/uinput", errno: -rc),
                                   hint: hint)
        }
        template = dev
        device = created
        self.description = description
        devicePath = libevdev_uinput_get_devnode(created).map { String(cString: $0) }
        sysPath = libevdev_uinput_get_syspath(created).map { String(cString: $0) }
    }

    deinit { destroy() }

    /// Whether the device still exists.
    public var isAlive: Bool { device != nil }

    /// Sends one event; the kernel stamps it with the time of the write.
    ///
    /// The corresponding C function is `libevdev_uinput_write_event`.
    /// - Throws: `InputDeviceError` when the write fails or the device is destroyed.
    public func write(type: UInt16, code: UInt16, value: Int32) throws(InputDeviceError) {
        guard let device else { throw InputDeviceError(path: devicePath ?? "/dev/uinput", reason: "the device was destroyed") }
        let rc = libevdev_uinput_write_event(device, UInt32(type), UInt32(code), value)
        guard rc == 0 else {
            let path = devicePath ?? "/dev/uinput"
            throw InputDeviceError(path: path, step: "write failed",
                                   cause: SystemError(call: "libevdev_uinput_write_event", context: path, errno: -rc))
        }
    }

    /// Removes the device from the kernel: readers of its node get `ENODEV`. Idempotent.
    public func destroy() {
        if let device { libevdev_uinput_destroy(device) }
        if let template { libevdev_free(template) }
        device = nil
        template = nil
        devicePath = nil
    }
}
