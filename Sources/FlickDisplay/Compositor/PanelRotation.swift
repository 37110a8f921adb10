import FlickCore

/// How the logical view is turned on the physical panel, clockwise.
///
/// The output buffer is always the physical panel; the compositor draws the logical view turned
/// by this angle. Touch rotation is configured separately (FlickInput), because panels and their
/// touch controllers are often mounted independently.
public enum PanelRotation: Int, CaseIterable, Hashable, Sendable {
    /// Upright.
    case none = 0
    /// The view's top is on the panel's right side.
    case clockwise90 = 90
    /// Upside down.
    case clockwise180 = 180
    /// The view's top is on the panel's left side.
    case clockwise270 = 270

    /// The logical view's size on a panel of `panel` size.
    public func logicalSize(panel: PixelSize) -> PixelSize {
        switch self {
        case .none, .clockwise180: panel
        case .clockwise90, .clockwise270: PixelSize(width: panel.height, height: panel.width)
        }
    }

    /// The map from physical panel coordinates to logical view coordinates (continuous).
    func physicalToLogical(panel: PixelSize) -> Affine {
        let w = Double(panel.width), h = Double(panel.height)
        switch self {
        case .none: return Affine()
        case .clockwise90: return Affine(a: 0, b: 1, tx: 0, c: -1, d: 0, ty: w)
        case .clockwise180: return Affine(a: -1, b: 0, tx: w, c: 0, d: -1, ty: h)
        case .clockwise270: return Affine(a: 0, b: -1, tx: h, c: 1, d: 0, ty: 0)
        }
    }

    /// The physical rectangle covering the logical integer rectangle `r`.
    func physicalRect(_ r: PixelRect, panel: PixelSize) -> PixelRect {
        let logical = logicalSize(panel: panel)
        switch self {
        case .none: return r
        case .clockwise90:
            return PixelRect(x0: logical.height - r.y1, y0: r.x0, x1: logical.height - r.y0, y1: r.x1)
        case .clockwise180:
            return PixelRect(x0: logical.width - r.x1, y0: logical.height - r.y1, x1: logical.width - r.x0, y1: logical.height - r.y0)
        case .clockwise270:
            return PixelRect(x0: r.y0, y0: logical.width - r.x1, x1: r.y1, y1: logical.width - r.x0)
        }
    }

    /// The physical pixel showing logical pixel (`x`, `y`).
    func physicalPixel(x: Int, y: Int, panel: PixelSize) -> (x: Int, y: Int) {
        let r = physicalRect(PixelRect(x0: x, y0: y, x1: x + 1, y1: y + 1), panel: panel)
        return (r.x0, r.y0)
    }
}
