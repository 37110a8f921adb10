import CWayland
import CWaylandProtocols
import FlickCore
import FlickSystem
import Glibc

/// The one connection to a Wayland compositor that the output and the seat share: the socket,
/// the registry's globals, and the non-blocking read/dispatch/flush cycle the daemon's loop drives.
///
/// Passive like every output and device: it never blocks. The loop watches `descriptor` for
/// readability and calls `dispatch()`; every component on the connection calls it from its own
/// `dispatch(now:)` (whichever runs first reads the socket; the events' listeners record what
/// they say in their owners, which each take their own). Listeners follow `WaylandListener`'s
/// pattern. Requests are buffered by libwayland and sent by `flush()` (called at the end of
/// every `dispatch()`; call it after requests made outside one, a commit).
public final class WaylandConnection {
    /// The compositor's socket as the user would name it (for messages).
    public let socket: String
    /// Every global the compositor has announced and not withdrawn, in announcement order.
    public private(set) var globals: [WaylandGlobal] = []
    /// What watches globals come and go (the output its monitors, the seat its seats).
    private var observers: [(WaylandGlobalChange) -> Void] = []
    /// A copy of the socket's fd, for the loop to watch for readability (libwayland owns the
    /// original: closing this one leaves the connection open).
    public let descriptor: Descriptor
    /// Whether requests are waiting because the socket was full (`EAGAIN`): the owner asks for
    /// a wake-up and calls `flush()` again. Only a compositor that stops reading causes it.
    public private(set) var isFlushPending = false

    /// The `wl_display`, for requests on it (`wl_display_sync`) and proxies' constructors.
    public let display: OpaquePointer
    private var registry: OpaquePointer?
    private var started = false
    private let registryListener = WaylandListener(wl_registry_listener(
        global: { data, _, name, interface, version in
            guard let interface else { return }
            waylandOwner(data, as: WaylandConnection.self)?.announced(WaylandGlobal(name: name, interface: String(cString: interface), version: version))
        },
        global_remove: { data, _, name in
            waylandOwner(data, as: WaylandConnection.self)?.withdrawn(name)
        }
    ))

    /// Connects and reads the registry (one round trip).
    /// - Parameter name: the socket: a name in `XDG_RUNTIME_DIR` or an absolute path; nil for
    ///   `WAYLAND_DISPLAY` (or libwayland's default, `wayland-0`; `WAYLAND_SOCKET` wins over both).
    /// - Throws: `WaylandError.noCompositor` when nothing listens there, `.connectionLost` when the
    ///   round trip fails.
    public init(name: String? = nil) throws(WaylandError) {
        socket = Self.socketPath(name: name, environment: ProcessInfoEnvironment.current)
        guard let display = wl_display_connect(name) else {
            throw .noCompositor(socket: socket, errno: errno == 0 ? ECONNREFUSED : errno)
        }
        self.display = display
        let fd = dup(wl_display_get_fd(display))
        guard let copy = Descriptor(returnedBy: fd) else {
            let e = errno
            wl_display_disconnect(display)
            throw .connectionLost(socket: socket, errno: e)
        }
        descriptor = copy
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, registryListener.pointer, Unmanaged.passUnretained(self).toOpaque())
        try roundTrip()
        started = true
    }

    deinit {
        if let registry { wl_registry_destroy(registry) }
        wl_display_disconnect(display)
    }

    /// The socket path for messages, as libwayland resolves it.
    /// - Parameters:
    ///   - name: the name asked for, if any.
    ///   - environment: `WAYLAND_DISPLAY` and `XDG_RUNTIME_DIR`.
    static func socketPath(name: String?, environment: [String: String]) -> String {
        let display = name ?? environment["WAYLAND_DISPLAY"] ?? "wayland-0"
        if display.hasPrefix("/") { return display }
        guard let runtime = environment["XDG_RUNTIME_DIR"] else { return "\(display) (XDG_RUNTIME_DIR is not set)" }
        return runtime + "/" + display
    }

    /// Calls `handler` for every global announced after the first round trip (a monitor or a
    /// seat plugged in) and every global withdrawn, for as long as the connection lives. The
    /// handler runs inside `dispatch()`; it may bind, not dispatch.
    public func observeGlobals(_ handler: @escaping (WaylandGlobalChange) -> Void) {
        observers.append(handler)
    }

    /// The global offering `interface` (the highest version, if announced twice), if any.
    public func global(_ interface: String) -> WaylandGlobal? {
        globals.filter { $0.interface == interface }.max { $0.version < $1.version }
    }

    /// Binds the global offering `interface` at `version`, or at the compositor's version when
    /// that is older.
    /// - Parameters:
    ///   - interface: the interface table (`flickd_wl_seat_interface()`, …).
    ///   - version: the highest version the caller speaks.
    ///   - global: a particular global (one of several `wl_output`s or `wl_seat`s); by default
    ///     the first announced for the interface.
    /// - Returns: the new proxy and the version bound.
    /// - Throws: `WaylandError.missingGlobal` when the compositor does not offer it.
    public func bind(_ interface: UnsafePointer<wl_interface>, version: UInt32, global: WaylandGlobal? = nil) throws(WaylandError) -> (proxy: OpaquePointer, version: UInt32) {
        let name = String(cString: interface.pointee.name)
        guard let registry, let offered = global ?? globals.first(where: { $0.interface == name }) else {
            throw .missingGlobal(interface: name, socket: socket)
        }
        let bound = min(version, offered.version)
        guard let proxy = wl_registry_bind(registry, offered.name, interface, bound) else {
            throw failure()
        }
        return (OpaquePointer(proxy), bound)
    }

    /// Sends buffered requests and waits for the compositor to have handled them and every
    /// event they cause to be dispatched. Blocks: only at start-up (the registry, the first
    /// configure), never from the loop.
    /// - Throws: `WaylandError` when the connection breaks.
    public func roundTrip() throws(WaylandError) {
        guard wl_display_roundtrip(display) >= 0 else { throw failure() }
    }

    /// One non-blocking turn of libwayland's read cycle: handles events already queued, reads
    /// the socket if it is readable, handles what was read, and flushes requests. Cheap when
    /// there is nothing to do, so every component on the connection calls it.
    /// The corresponding C functions are `wl_display_prepare_read`, `wl_display_read_events`
    /// (or `wl_display_cancel_read`), `wl_display_dispatch_pending` and `wl_display_flush`.
    /// - Throws: `WaylandError` when the connection broke or the compositor reported an error.
    public func dispatch() throws(WaylandError) {
        // Events a round trip or another reader queued must be handled before reading more.
        while wl_display_prepare_read(display) != 0 {
            guard wl_display_dispatch_pending(display) >= 0 else { throw failure() }
        }
        var pfd = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, 0) > 0 {
            // A hang-up reads as 0 bytes: read_events fails with EPIPE, reported as lost.
            guard wl_display_read_events(display) >= 0 else { throw failure() }
        } else {
            wl_display_cancel_read(display)
        }
        guard wl_display_dispatch_pending(display) >= 0 else { throw failure() }
        try flush()
    }

    /// Sends buffered requests. When the socket is full (`EAGAIN`) it keeps them, sets
    /// `isFlushPending`, and the owner calls again later (the daemon's loop watches for
    /// readability only, so the retry is a deadline, not a wait for `POLLOUT`).
    /// - Throws: `WaylandError` when the connection broke.
    public func flush() throws(WaylandError) {
        if wl_display_flush(display) >= 0 {
            isFlushPending = false
            return
        }
        guard errno == EAGAIN else { throw failure() }
        isFlushPending = true
    }

    /// What broke the connection, from libwayland's own record when it has one.
    private func failure() -> WaylandError {
        let e = wl_display_get_error(display)
        if e == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let code = wl_display_get_protocol_error(display, &interface, &id)
            return .protocolError(interface: interface.map { String(cString: $0.pointee.name) } ?? "unknown", code: code, objectID: id)
        }
        return .connectionLost(socket: socket, errno: e != 0 ? e : (errno != 0 ? errno : EPIPE))
    }

    private func announced(_ global: WaylandGlobal) {
        globals.append(global)
        if started { for observer in observers { observer(.added(global)) } }
    }

    private func withdrawn(_ name: UInt32) {
        guard let index = globals.firstIndex(where: { $0.name == name }) else { return }
        let global = globals.remove(at: index)
        for observer in observers { observer(.removed(global)) }
    }
}

/// The process environment as a dictionary (read once per call; connecting is rare).
enum ProcessInfoEnvironment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        for key in ["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"] {
            if let value = getenv(key) { result[key] = String(cString: value) }
        }
        return result
    }
}
