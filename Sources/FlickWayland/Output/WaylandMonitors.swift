import CWayland
import CWaylandProtocols
import FlickCore
import FlickDisplay

/// The compositor's monitors (`wl_output`), for what a window cannot be told otherwise: the
/// scale to draw its buffer at (the largest of the monitors it is on), a monitor's refresh rate
/// before the first presentation feedback, and its millimetres for the panel's density.
final class WaylandMonitors {
    /// What one monitor said (each `done` ends a consistent set).
    struct Monitor {
        var global: WaylandGlobal
        var proxy: OpaquePointer
        var scale = 1
        /// The current mode's pixels and refresh in mHz (0: unknown).
        var mode: PixelSize?
        var refreshMillihertz: Int32 = 0
        /// The visible area in millimetres (0: unknown).
        var millimetres: (width: Int32, height: Int32) = (0, 0)
    }

    private(set) var monitors: [Monitor] = []
    /// The monitors the window's surface is on (`wl_surface.enter`/`leave`).
    private var entered: Set<OpaquePointer> = []
    /// Called after a monitor's `done` or an enter/leave changed what `scale` may be.
    var changed: (() -> Void)?
    private let connection: WaylandConnection
    private let listener = WaylandListener(wl_output_listener(
        geometry: { data, proxy, _, _, width, height, _, _, _, _ in
            waylandOwner(data, as: WaylandMonitors.self)?.update(proxy) { $0.millimetres = (width, height) }
        },
        mode: { data, proxy, flags, width, height, refresh in
            guard flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
            waylandOwner(data, as: WaylandMonitors.self)?.update(proxy) {
                $0.mode = width > 0 && height > 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
                $0.refreshMillihertz = refresh
            }
        },
        done: { data, _ in waylandOwner(data, as: WaylandMonitors.self)?.changed?() },
        scale: { data, proxy, factor in
            waylandOwner(data, as: WaylandMonitors.self)?.update(proxy) { $0.scale = Int(min(max(factor, 1), 16)) }
        },
        name: { _, _, _ in },
        description: { _, _, _ in }
    ))

    /// Binds every monitor announced, and those announced later.
    init(connection: WaylandConnection) {
        self.connection = connection
        for global in connection.globals where global.interface == "wl_output" { add(global) }
        connection.observeGlobals { [weak self] change in
            switch change {
            case .added(let global) where global.interface == "wl_output": self?.add(global)
            case .removed(let global): self?.remove(global)
            case .added: break
            }
        }
    }

    deinit {
        for monitor in monitors { release(monitor.proxy) }
    }

    /// The scale the window's buffer is drawn at: the largest of the monitors it is on (before
    /// it is on any, the largest of all), 1 when none says.
    var scale: Int {
        let on = monitors.filter { entered.contains($0.proxy) }
        return (on.isEmpty ? monitors : on).map(\.scale).max() ?? 1
    }

    /// The monitor the window is on (the first entered, else the first), if any.
    var current: Monitor? {
        monitors.first { entered.contains($0.proxy) } ?? monitors.first
    }

    /// The surface entered a monitor.
    func enter(_ proxy: OpaquePointer?) {
        guard let proxy else { return }
        entered.insert(proxy)
        changed?()
    }

    /// The surface left a monitor.
    func leave(_ proxy: OpaquePointer?) {
        guard let proxy else { return }
        entered.remove(proxy)
        changed?()
    }

    private func add(_ global: WaylandGlobal) {
        // Version 2 brings `scale` and `done`; version 3 only `release`.
        guard let (proxy, _) = try? connection.bind(flickd_wl_output_interface(), version: 3, global: global) else { return }
        monitors.append(Monitor(global: global, proxy: proxy))
        wl_output_add_listener(proxy, listener.pointer, Unmanaged.passUnretained(self).toOpaque())
    }

    private func remove(_ global: WaylandGlobal) {
        guard let index = monitors.firstIndex(where: { $0.global == global }) else { return }
        let monitor = monitors.remove(at: index)
        entered.remove(monitor.proxy)
        release(monitor.proxy)
        changed?()
    }

    private func release(_ proxy: OpaquePointer) {
        if wl_output_get_version(proxy) >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
    }

    private func update(_ proxy: OpaquePointer?, _ change: (inout Monitor) -> Void) {
        guard let index = monitors.firstIndex(where: { $0.proxy == proxy }) else { return }
        change(&monitors[index])
    }
}
