import CWayland
import CWaylandProtocols
import FlickCore
import FlickDisplay
import Glibc

/// flickd's window: a `wl_surface` in an `xdg_toplevel`, fullscreen unless a size was asked
/// for, and what the compositor configures it to.
///
/// A configure is acknowledged when its size is adopted: at once when it changes nothing the
/// buffer shows (a focus change), else when the daemon re-lays the content for the new size
/// (`adopt()`, called through `WaylandOutput.adoptConfiguredSize()`), just before the first
/// buffer of that size is committed, as xdg-shell asks.
///
/// | state          | event                              | next                                   |
/// |----------------|------------------------------------|----------------------------------------|
/// | unconfigured   | configure                          | proposed (the first size, adopted at start) |
/// | configured     | configure, same size and scale     | configured (acked at once)             |
/// | configured     | configure or scale, another size   | proposed (`changed` called)            |
/// | proposed       | adopt                              | configured (acked; buffers of the new size) |
/// | any            | close                              | the same, `closeRequested` (the daemon stops) |
final class WaylandWindow {
    /// The surface buffers are attached to.
    let surface: OpaquePointer
    /// The size asked for on the command line; nil: fullscreen.
    let requested: PixelSize?
    /// The compositor's monitors: the scale, the refresh rate, the millimetres.
    let monitors: WaylandMonitors
    /// The adopted size in surface-local pixels, and its scale; nil before the first configure.
    private(set) var logical: PixelSize?
    private(set) var scale = 1
    /// The last configure's serial while it waits to be acknowledged.
    private(set) var pendingSerial: UInt32?
    /// The compositor asked the window to close (a desktop's close button).
    private(set) var closeRequested = false
    /// Called when a configure or a scale asks for a size not yet adopted, or the window is to close.
    var changed: (() -> Void)?
    private let wmBase: OpaquePointer
    private let xdgSurface: OpaquePointer
    private let toplevel: OpaquePointer
    /// The size the last `xdg_toplevel.configure` proposed (0: the client's choice).
    private var proposed: (width: Int32, height: Int32) = (0, 0)

    private let wmBaseListener = WaylandListener(xdg_wm_base_listener(ping: { _, base, serial in
        xdg_wm_base_pong(base, serial)
    }))
    private let surfaceListener = WaylandListener(wl_surface_listener(
        enter: { data, _, output in waylandOwner(data, as: WaylandWindow.self)?.monitors.enter(output) },
        leave: { data, _, output in waylandOwner(data, as: WaylandWindow.self)?.monitors.leave(output) }
    ))
    private let xdgSurfaceListener = WaylandListener(xdg_surface_listener(configure: { data, _, serial in
        waylandOwner(data, as: WaylandWindow.self)?.configured(serial: serial)
    }))
    private let toplevelListener = WaylandListener(xdg_toplevel_listener(
        configure: { data, _, width, height, _ in
            waylandOwner(data, as: WaylandWindow.self)?.proposed = (width, height)
        },
        close: { data, _ in
            guard let window = waylandOwner(data, as: WaylandWindow.self) else { return }
            window.closeRequested = true
            window.changed?()
        },
        configure_bounds: { _, _, _, _ in },
        wm_capabilities: { _, _, _ in }
    ))

    /// Makes the window and waits for its first configure (a few round trips at start-up).
    /// - Throws: `WaylandError` when the compositor refuses or the connection breaks.
    init(connection: WaylandConnection, compositor: OpaquePointer, requested: PixelSize?) throws(WaylandError) {
        self.requested = requested
        monitors = WaylandMonitors(connection: connection)
        wmBase = try connection.bind(flickd_xdg_wm_base_interface(), version: 2).proxy
        guard let surface = wl_compositor_create_surface(compositor),
              let xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface),
              let toplevel = xdg_surface_get_toplevel(xdgSurface) else {
            throw .connectionLost(socket: connection.socket, errno: ENOMEM)
        }
        self.surface = surface
        self.xdgSurface = xdgSurface
        self.toplevel = toplevel
        let me = Unmanaged.passUnretained(self).toOpaque()
        xdg_wm_base_add_listener(wmBase, wmBaseListener.pointer, me)
        wl_surface_add_listener(surface, surfaceListener.pointer, me)
        xdg_surface_add_listener(xdgSurface, xdgSurfaceListener.pointer, me)
        xdg_toplevel_add_listener(toplevel, toplevelListener.pointer, me)
        xdg_toplevel_set_app_id(toplevel, "flickd")
        xdg_toplevel_set_title(toplevel, "flickd")
        if requested == nil { xdg_toplevel_set_fullscreen(toplevel, nil) }
        // The first commit, without a buffer, asks for the first configure.
        wl_surface_commit(surface)
        for _ in 0..<4 where pendingSerial == nil { try connection.roundTrip() }
        guard pendingSerial != nil else {
            throw .missingGlobal(interface: "xdg_surface.configure (the compositor never configured the window)", socket: connection.socket)
        }
        adopt()
        monitors.changed = { [unowned self] in if self.wantsAdoption { self.changed?() } }
    }

    deinit {
        xdg_toplevel_destroy(toplevel)
        xdg_surface_destroy(xdgSurface)
        wl_surface_destroy(surface)
        xdg_wm_base_destroy(wmBase)
    }

    /// The size and scale the compositor asks for now.
    var wanted: (logical: PixelSize, scale: Int) {
        (WindowSize.logical(width: proposed.width, height: proposed.height, requested: requested, previous: logical), monitors.scale)
    }

    /// Whether a configure or a scale waits for `adopt()`.
    var wantsAdoption: Bool {
        let wanted = wanted
        return wanted.logical != logical || wanted.scale != scale
    }

    /// The buffer's pixels at the adopted size and scale.
    var bufferSize: PixelSize { WindowSize.buffer(logical ?? WindowSize.fallback, scale: scale) }

    /// Takes the size and scale asked for, acknowledging the configure: the next commit must
    /// attach a buffer of `bufferSize`.
    func adopt() {
        let wanted = wanted
        logical = wanted.logical
        if wanted.scale != scale {
            scale = wanted.scale
            wl_surface_set_buffer_scale(surface, Int32(scale))
        }
        acknowledge()
    }

    private func configured(serial: UInt32) {
        pendingSerial = serial
        // The first configure is adopted by `init`; later ones that change nothing at once.
        guard logical != nil else { return }
        if wantsAdoption { changed?() } else { acknowledge() }
    }

    private func acknowledge() {
        guard let serial = pendingSerial else { return }
        xdg_surface_ack_configure(xdgSurface, serial)
        pendingSerial = nil
    }
}
