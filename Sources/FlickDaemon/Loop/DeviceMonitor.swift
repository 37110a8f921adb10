import CSystemd
import FlickSystem

/// A udev event heard by a `DeviceMonitor`: what happened to which device.
public struct DeviceEvent: Hashable, Sendable {
    /// `add`, `remove`, `change`…; nil when udev did not say.
    public var action: String?
    /// The kernel's name for the device (`card0`).
    public var sysname: String?
    /// Whether it is a hotplug event: DRM's `HOTPLUG=1`, or a synthetic uevent's
    /// `SYNTH_ARG_HOTPLUG=1` (`echo "change UUID HOTPLUG=1" > …/uevent`).
    public var isHotplug: Bool
}

/// udev's device events of one subsystem (libsystemd's sd-device monitor) on the loop: a
/// monitor connected or unplugged is a `change` of the DRM card with `HOTPLUG=1`. The monitor
/// is attached to the loop's sd-event, so it costs no wake-up of its own; it stops when released.
public final class DeviceMonitor {
    private let monitor: OpaquePointer
    private let box: Callback<DeviceEvent>

    /// Starts listening on the loop.
    /// - Throws: `SystemError` when the monitor cannot be made, filtered, attached or started
    ///   (no netlink socket: `RestrictAddressFamilies=` without `AF_NETLINK`). The corresponding
    ///   C functions are `sd_device_monitor_new`, `sd_device_monitor_filter_add_match_subsystem_devtype`,
    ///   `sd_device_monitor_attach_event` and `sd_device_monitor_start`.
    init(loop: EventLoop, subsystem: String, handler: @escaping (DeviceEvent) -> Void) throws(SystemError) {
        var m: OpaquePointer?
        try check(sd_device_monitor_new(&m), "sd_device_monitor_new", subsystem)
        guard let m else { throw SystemError(call: "sd_device_monitor_new", context: subsystem, errno: ENOMEM) }
        monitor = m
        box = Callback(handler)
        do {
            try check(sd_device_monitor_filter_add_match_subsystem_devtype(m, subsystem, nil),
                      "sd_device_monitor_filter_add_match_subsystem_devtype", subsystem)
            try check(sd_device_monitor_attach_event(m, loop.event), "sd_device_monitor_attach_event", subsystem)
            try check(sd_device_monitor_start(m, { _, device, userdata in
                guard let device else { return 0 }
                Callback<DeviceEvent>.call(userdata, DeviceMonitor.event(device))
                return 0
            }, Unmanaged.passUnretained(box).toOpaque()), "sd_device_monitor_start", subsystem)
        } catch {
            sd_device_monitor_unref(m)
            throw error
        }
    }

    deinit {
        sd_device_monitor_stop(monitor)
        sd_device_monitor_detach_event(monitor)
        sd_device_monitor_unref(monitor)
    }

    private static func event(_ device: OpaquePointer) -> DeviceEvent {
        func property(_ key: String) -> String? {
            var value: UnsafePointer<CChar>?
            guard sd_device_get_property_value(device, key, &value) >= 0, let value else { return nil }
            return String(cString: value)
        }
        var name: UnsafePointer<CChar>?
        let sysname = sd_device_get_sysname(device, &name) >= 0 ? name.map { String(cString: $0) } : nil
        return DeviceEvent(action: property("ACTION"), sysname: sysname,
                           isHotplug: property("HOTPLUG") == "1" || property("SYNTH_ARG_HOTPLUG") == "1")
    }
}
