import FlickCore

/// How big the scroll indicators are on one panel, so that they measure the same millimetres on a
/// 7" 800×480 panel as on a 55" 3840×2160 one (docs/indicators.md, "Sized for the panel").
///
/// `IndicatorStyle`'s sizes (thickness 3, border 1, edge inset 3, minimum length 36) are pixels
/// of the reference panel, `referencePixelsPerMillimetre`; on a panel of known density they are
/// scaled by its pixels per millimetre over the reference's. The body's thickness is
/// `thicknessMillimetres` there, unless `thicknessPixels` sets it outright. A panel of unknown
/// density is taken as the reference: every size stays in pixels as given.
public struct IndicatorSizing: Hashable, Sendable {
    /// The density the style's pixel sizes are given for: 3 px per 0.54 mm, 5.556 px/mm, which
    /// is a 15.6" 1920×1080 panel's (2202.9 px over 396.2 mm, 5.560 px/mm) to within 0.1 %.
    public static let referencePixelsPerMillimetre = 3 / 0.54

    /// The bar body's thickness in millimetres: 0.54 mm is the 3 px flickd always drew, on the
    /// reference panel; UIKit's bar of about 2.5 to 3 pt is 0.39 to 0.47 mm on an iPhone (163 pt
    /// to the inch), seen closer.
    public var thicknessMillimetres: Double = 0.54
    /// The body's thickness in panel pixels, taken as given in place of `thicknessMillimetres`
    /// (the border, edge inset and minimum length still follow the panel); nil: from millimetres.
    public var thicknessPixels: Double?

    /// The default sizing: 0.54 mm.
    public init() {}

    /// `style` sized for a panel of `pixelsPerMillimetre`; nil (unknown) is taken as the
    /// reference density, so the style's pixels stay as they are and the default 0.54 mm is
    /// exactly its 3 px.
    public func sized(_ style: IndicatorStyle, pixelsPerMillimetre: Double?) -> IndicatorStyle {
        var sized = style
        let reference = Self.referencePixelsPerMillimetre
        let density = pixelsPerMillimetre.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? reference
        sized.thickness = thicknessPixels ?? thicknessMillimetres * density
        guard density != reference else { return sized }
        let scale = density / reference
        sized.border = style.border * scale
        sized.edgeInset = style.edgeInset * scale
        sized.minimumLength = style.minimumLength * scale
        return sized
    }
}
