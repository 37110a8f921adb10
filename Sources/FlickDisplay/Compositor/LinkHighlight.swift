import CPixman
import FlickCore

/// A tapped link's shade (`content.link_highlight`): a rectangle in logical view pixels, grey
/// over the content so it shows on light pages and dark alike.
public struct LinkHighlight: Hashable, Sendable {
    /// Where, in logical view pixels.
    public var rect: Rect
    /// 0…1; 0 draws nothing.
    public var opacity: Double

    /// Creates a shade.
    public init(rect: Rect, opacity: Double) {
        self.rect = rect
        self.opacity = opacity
    }

    /// Blends `shades` over the logical view `view` of `target` (panel rotation applied).
    static func draw(_ shades: [LinkHighlight], into target: PixelBuffer, rotation: PanelRotation, view: PixelRect) {
        for shade in shades {
            let r = shade.rect, opacity = min(1, shade.opacity)
            guard r.isValid, opacity > 0 else { continue }
            let clipped = PixelRect(x0: max(view.x0, Int(saturating: r.minX.rounded())), y0: max(view.y0, Int(saturating: r.minY.rounded())),
                                    x1: min(view.x1, Int(saturating: r.maxX.rounded())), y1: min(view.y1, Int(saturating: r.maxY.rounded())))
            guard clipped.x0 < clipped.x1, clipped.y0 < clipped.y1 else { continue }
            let p = rotation.physicalRect(clipped, panel: target.size)
            // Premultiplied mid grey.
            let alpha = UInt16((opacity * 65535).rounded()), grey = UInt16((opacity * 0.5 * 65535).rounded())
            var color = pixman_color_t(red: grey, green: grey, blue: grey, alpha: alpha)
            var box = pixman_box32_t(x1: Int32(p.x0), y1: Int32(p.y0), x2: Int32(p.x1), y2: Int32(p.y1))
            pixman_image_fill_boxes(PIXMAN_OP_OVER, target.image, &color, 1, &box)
        }
    }
}
