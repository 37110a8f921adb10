import CSystemd
import FlickSystem
import Glibc

/// The kernel's own device events (a `NETLINK_KOBJECT_UEVENT` socket, multicast group 1), for a
/// board with no udev daemon (buildroot with mdev, a minimal image, the e2e VM): sd-device's
/// monitor hears only what udevd passes on, so without it a monitor plugged in would never be
/// heard. Each message is `ACTION@DEVPATH` then `KEY=VALUE` fields, NUL-separated.
final class KernelUevents {
    private var source: IOSource?

    /// Listens on the loop for events of `subsystem`.
    /// - Throws: `SystemError` when the socket cannot be made or bound.
    init(loop: EventLoop, subsystem: String, handler: @escaping (DeviceEvent) -> Void) throws(SystemError) {
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                        NETLINK_KOBJECT_UEVENT)
        guard fd >= 0 else { throw .current("socket(AF_NETLINK, NETLINK_KOBJECT_UEVENT)", subsystem) }
        let descriptor = Descriptor(owning: fd)
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = 1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard bound == 0 else { throw .current("bind(NETLINK_KOBJECT_UEVENT)", subsystem) }
        source = try loop.addIO(descriptor, events: .readable, context: "kernel uevents") { _ in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return }
                if let event = Self.parse(buffer[..<n], subsystem: subsystem) { handler(event) }
            }
        }
    }

    /// The event a kernel message holds, when it is of `subsystem`.
    static func parse(_ message: ArraySlice<UInt8>, subsystem: String) -> DeviceEvent? {
        var fields: [String: String] = [:]
        for part in message.split(separator: 0) {
            let text = String(decoding: part, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            fields[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        guard fields["SUBSYSTEM"] == subsystem else { return nil }
        let sysname = fields["DEVPATH"].flatMap { $0.split(separator: "/").last.map(String.init) }
        return DeviceEvent(action: fields["ACTION"], sysname: sysname,
                           isHotplug: fields["HOTPLUG"] == "1" || fields["SYNTH_ARG_HOTPLUG"] == "1")
    }
}
