import FlickCore
import FlickDisplay
import FlickWayland
import Glibc

extension DisplayOpener {
    /// The process's `WAYLAND_DISPLAY`, when set and not empty.
    static var environmentWaylandDisplay: String? {
        guard let value = getenv("WAYLAND_DISPLAY") else { return nil }
        let name = String(cString: value)
        return name.isEmpty ? nil : name
    }

    /// Opens a window on the compositor: fullscreen, or of `size` surface pixels.
    /// - Parameters:
    ///   - size: the window's size; nil: fullscreen.
    ///   - socket: the compositor's socket; nil: `WAYLAND_DISPLAY`'s (libwayland's default).
    func openWayland(size: PixelSize?, socket: String?) throws(Failure) -> Opened {
        do {
            let output = try WaylandOutput(connection: try WaylandConnection(name: socket), requested: size, buffers: waylandBuffers)
            return Opened(output: output, description: Self.describe(output), passedOver: [])
        } catch {
            throw Failure(reasons: ["wayland: \(error)"])
        }
    }

    /// The window's line for logs and `status`: `wayland /run/user/1000/wayland-0 1920x1080
    /// fullscreen (scale 1, presentation times, dmabuf buffers (udmabuf, LINEAR))`; shared
    /// memory says why (`shm buffers: the compositor offers no linux-dmabuf …`).
    static func describe(_ output: WaylandOutput) -> String {
        let window = output.isFullscreen ? "fullscreen" : "window"
        let pacing = output.hasPresentationTimes ? "presentation times"
            : "frame callbacks only: no wp_presentation, frames timed when their callback is read"
        return "wayland \(output.connection.socket) \(output.size) \(window) (scale \(output.scale), \(pacing), \(output.buffersDescription))"
    }
}
