import FlickCore

/// A buffer an output can show on an overlay plane: premultiplied `argb8888` pixels, and what
/// backs them (a DRM dumb buffer and its framebuffer; nothing for memory).
public final class LayerBuffer {
    /// The pixels, drawn by the caller before the commit that shows them.
    public let pixels: PixelBuffer
    /// The output's own record of the buffer, kept alive as long as the buffer is.
    let backing: AnyObject?

    init(pixels: PixelBuffer, backing: AnyObject? = nil) {
        self.pixels = pixels
        self.backing = backing
    }
}

/// What one frame is made of, as the display controller combines it: a primary plane covering the
/// panel, then overlays blended over it in order.
///
/// The primary plane shows either the back buffer composed for this frame or, with no pixel
/// copied, the content itself from a whole-pixel origin (zero-copy scrolling at zoom 1,
/// docs/ARCHITECTURE.md). The overlays are small layers placed on the panel, such as the scroll indicators' strips.
public struct FrameLayers {
    /// What the primary plane scans out.
    public enum Primary {
        /// The back buffer, just composed.
        case composed
        /// The content buffer's pixels from (`x`, `y`) on, one panel's worth; the output must
        /// have accepted the buffer with `prepareScanOut(_:)`.
        case content(PixelBuffer, x: Int, y: Int)
    }

    /// One overlay: a buffer and where its top-left lands on the panel.
    public struct Overlay {
        /// The pixels (premultiplied alpha).
        public var buffer: LayerBuffer
        /// The panel column of its left edge.
        public var x: Int
        /// The panel row of its top edge.
        public var y: Int

        /// Creates an overlay.
        public init(buffer: LayerBuffer, x: Int, y: Int) {
            self.buffer = buffer
            self.x = x
            self.y = y
        }
    }

    /// The primary plane.
    public var primary: Primary
    /// The overlays, bottom first.
    public var overlays: [Overlay]

    /// Creates a frame description.
    public init(primary: Primary, overlays: [Overlay] = []) {
        self.primary = primary
        self.overlays = overlays
    }

    /// Only the composed back buffer: what every output can show.
    public static var composed: FrameLayers { FrameLayers(primary: .composed) }

    /// Whether the frame is exactly one composed buffer, with nothing above it.
    public var isComposedOnly: Bool {
        if case .composed = primary, overlays.isEmpty { return true }
        return false
    }

    /// Draws the frame as the display controller shows it into `target` (panel-sized): the
    /// primary plane (the given composed buffer, or the content window), then each overlay
    /// blended over it. For snapshots, captures and tests; never on the frame path.
    public func flatten(composed: PixelBuffer?, into target: PixelBuffer) {
        switch primary {
        case .composed:
            if let composed { target.copy(from: composed) } else { target.fill(0xFF00_0000) }
        case .content(let content, let x, let y):
            let width = min(target.width, content.width - x), height = min(target.height, content.height - y)
            target.fill(0xFF00_0000)
            if width > 0, height > 0, x >= 0, y >= 0 {
                target.copy(from: content, x: x, y: y, width: width, height: height)
            }
        }
        for overlay in overlays {
            let layer = overlay.buffer.pixels
            for row in max(0, -overlay.y)..<min(layer.height, target.height - overlay.y) {
                let from = layer.row(row), to = target.row(overlay.y + row)
                for column in max(0, -overlay.x)..<min(layer.width, target.width - overlay.x) {
                    let pixel = from[column]
                    if pixel >> 24 != 0 { to[overlay.x + column] = over(pixel, to[overlay.x + column]) }
                }
            }
        }
    }
}

/// A colour at `alpha`/255 as a premultiplied `argb8888` word (DRM's default "Pre-multiplied"
/// blend mode, and what an overlay plane holds).
@inline(__always)
func premultiplied(_ colour: UInt32, alpha: UInt32) -> UInt32 {
    @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
        // Swift's << binds tighter than /: without the parentheses the red and green channels
        // were divided by 255 << 8 and 255 << 16, so every indicator colour lost them.
        ((((colour >> shift) & 0xFF) * alpha + 127) / 255) << shift
    }
    return alpha << 24 | channel(0) | channel(8) | channel(16)
}

/// A premultiplied pixel over an opaque one, per channel, rounded: `src + dst × (255 − α) / 255`.
/// Every indicator pixel, composed or on an overlay, goes through this one function, so a frame
/// is the same whichever way it reached the screen.
@inline(__always)
func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
    let inverse = 255 - (src >> 24)
    @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
        let s = (src >> shift) & 0xFF, d = (dst >> shift) & 0xFF
        return (s + (d * inverse + 127) / 255) << shift
    }
    return 0xFF00_0000 | channel(0) | channel(8) | channel(16)
}
