import FlickCore
import FlickSystem

/// Why flickd cannot show frames on (or keep talking to) a Wayland compositor.
public enum WaylandError: FlickError, Hashable, Sendable {
    /// No compositor listens on the socket (`WAYLAND_DISPLAY` names none, or it is not set).
    case noCompositor(socket: String, errno: Int32)
    /// The compositor lacks an interface flickd needs (`xdg_wm_base`, `wl_shm`, …).
    case missingGlobal(interface: String, socket: String)
    /// The compositor offers the interface, but older than flickd needs.
    case globalTooOld(interface: String, version: UInt32, needed: UInt32)
    /// The compositor ended the connection over a request it refused (a protocol error).
    case protocolError(interface: String, code: UInt32, objectID: UInt32)
    /// The connection broke: the compositor went away, or the socket failed.
    case connectionLost(socket: String, errno: Int32)

    public var context: ErrorContext {
        switch self {
        case let .noCompositor(socket, errno):
            ErrorContext(source: "wayland", reason: "no compositor at \(socket): \(SystemError(call: "wl_display_connect", context: socket, errno: errno).errnoDescription)",
                         expected: "a running Wayland compositor (WAYLAND_DISPLAY and XDG_RUNTIME_DIR naming its socket)")
        case let .missingGlobal(interface, socket):
            ErrorContext(source: "wayland", key: interface, reason: "the compositor at \(socket) does not offer \(interface)",
                         expected: "a compositor with xdg-shell and shared-memory buffers (cage, labwc, sway, Weston, GNOME, KDE)")
        case let .globalTooOld(interface, version, needed):
            ErrorContext(source: "wayland", key: interface, reason: "the compositor offers version \(version)", expected: "version \(needed) or later")
        case let .protocolError(interface, code, objectID):
            ErrorContext(source: "wayland", key: interface, reason: "the compositor reported protocol error \(code) on object \(objectID) and closed the connection")
        case let .connectionLost(socket, errno):
            ErrorContext(source: "wayland", reason: "the connection to the compositor at \(socket) was lost: \(SystemError(call: "wl_display", context: socket, errno: errno).errnoDescription)")
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .noCompositor, .missingGlobal, .globalTooOld, .connectionLost: .unavailable
        case .protocolError: .software
        }
    }
}
