import CDRM
import FlickCore

/// The planes flickd drives on one CRTC through the atomic API: the primary plane and two
/// overlays for the scroll indicators' strips (docs/ARCHITECTURE.md, "The path of one touch").
///
/// Found once after the modeset. A card without the atomic API, without a primary plane that
/// shows `XRGB8888`, or without two overlays that show `ARGB8888` on this CRTC gets none, and
/// the output composes every frame with legacy page flips as before.
struct DRMPlanes {
    /// A plane and the ids of the properties a frame sets.
    struct Plane {
        var id: UInt32
        var properties: [String: UInt32]
    }

    var primary: Plane
    var overlays: [Plane]

    /// The properties every plane update sets.
    static let required = ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"]

    /// Chooses the planes of the `crtcIndex`-th CRTC from the card's planes.
    static func choose(from planes: [LibDRM.PlaneSummary], crtcIndex: Int, overlaysWanted: Int = 2) -> DRMPlanes? {
        guard crtcIndex >= 0, crtcIndex < 32 else { return nil }
        let usable = planes.filter { plane in
            plane.possibleCRTCs & (1 << UInt32(crtcIndex)) != 0
                && required.allSatisfy { plane.properties[$0] != nil }
        }
        guard let primary = usable.first(where: { $0.kind == .primary && $0.formats.contains(LibDRM.FourCC.xrgb8888) }) else {
            return nil
        }
        let overlays = usable.filter { $0.kind == .overlay && $0.formats.contains(LibDRM.FourCC.argb8888) }.prefix(overlaysWanted)
        guard overlays.count == overlaysWanted else { return nil }
        return DRMPlanes(primary: Plane(id: primary.id, properties: primary.properties),
                         overlays: overlays.map { Plane(id: $0.id, properties: $0.properties) })
    }

    /// Adds one plane's state to a request: `framebuffer` (0 turns the plane off) showing a
    /// `size` part of its buffer, from (`sourceX`, `sourceY`) in it, at (`x`, `y`) on the CRTC.
    static func set(_ plane: Plane, framebuffer: UInt32, crtc: CRTCID, x: Int, y: Int, size: PixelSize,
                    sourceX: Int = 0, sourceY: Int = 0, in request: LibDRM.AtomicRequest) {
        for (name, value) in values(framebuffer: framebuffer, crtc: crtc, x: x, y: y, size: size,
                                    sourceX: sourceX, sourceY: sourceY) {
            request.set(plane.id, plane.properties[name], value)
        }
    }

    /// The property values `set` adds, by name, in order: a panned frame's SRC_X and SRC_Y are
    /// where the view's corner is in the buffer.
    static func values(framebuffer: UInt32, crtc: CRTCID, x: Int, y: Int, size: PixelSize,
                       sourceX: Int = 0, sourceY: Int = 0) -> [(String, UInt64)] {
        var values: [(String, UInt64)] = [("FB_ID", UInt64(framebuffer)), ("CRTC_ID", framebuffer == 0 ? 0 : UInt64(crtc.rawValue))]
        guard framebuffer != 0 else { return values }
        // Source coordinates are 16.16 fixed point; destination ones whole pixels (signed:
        // a plane may start left of or above the CRTC).
        values += [("SRC_X", fixed16(sourceX)), ("SRC_Y", fixed16(sourceY)),
                   ("SRC_W", fixed16(size.width)), ("SRC_H", fixed16(size.height)),
                   ("CRTC_X", UInt64(bitPattern: Int64(x))), ("CRTC_Y", UInt64(bitPattern: Int64(y))),
                   ("CRTC_W", UInt64(max(0, size.width))), ("CRTC_H", UInt64(max(0, size.height)))]
        return values
    }

    /// A pixel count in 16.16 fixed point, within what the kernel's 32 bits hold (0...65535:
    /// `DRMOutput` never pans a buffer wider or taller, so the clamp only keeps a bad value from
    /// wrapping into a wrong but valid one).
    static func fixed16(_ pixels: Int) -> UInt64 { UInt64(min(max(0, pixels), 0xFFFF)) << 16 }
}
