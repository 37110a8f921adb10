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
    /// `size` buffer at (`x`, `y`) on the CRTC.
    static func set(_ plane: Plane, framebuffer: UInt32, crtc: CRTCID, x: Int, y: Int, size: PixelSize,
                    in request: LibDRM.AtomicRequest) {
        let p = plane.properties
        request.set(plane.id, p["FB_ID"], UInt64(framebuffer))
        request.set(plane.id, p["CRTC_ID"], framebuffer == 0 ? 0 : UInt64(crtc.rawValue))
        guard framebuffer != 0 else { return }
        // Source coordinates are 16.16 fixed point; destination ones whole pixels.
        request.set(plane.id, p["SRC_X"], 0)
        request.set(plane.id, p["SRC_Y"], 0)
        request.set(plane.id, p["SRC_W"], UInt64(size.width) << 16)
        request.set(plane.id, p["SRC_H"], UInt64(size.height) << 16)
        request.set(plane.id, p["CRTC_X"], UInt64(bitPattern: Int64(x)))
        request.set(plane.id, p["CRTC_Y"], UInt64(bitPattern: Int64(y)))
        request.set(plane.id, p["CRTC_W"], UInt64(size.width))
        request.set(plane.id, p["CRTC_H"], UInt64(size.height))
    }
}
