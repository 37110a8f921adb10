import FlickCore

/// How big the scroll indicators are on one panel, so that they read the same on a 7" 800×480
/// panel at arm's length as on a 55" 3840×2160 table seen from a step back (docs/indicators.md,
/// "Sized for the panel"): the same angle at the eye, at the distance a panel of that size is
/// read from.
///
/// `IndicatorStyle`'s sizes (thickness 3, border 1, edge inset 3, minimum length 36) are pixels
/// of the reference panel, a 15.6" 1920×1080 one (`referencePixelsPerMillimetre`) read from
/// `referenceViewingDistance`. On a panel of known density and size they are scaled by its
/// pixels per millimetre over the reference's and by its viewing distance over the reference's.
/// The body's thickness is `thicknessMillimetres` on the reference panel, unless
/// `thicknessPixels` sets it outright. A panel of unknown density is taken as the reference:
/// every size stays in pixels as given.
public struct IndicatorSizing: Hashable, Sendable {
    /// The density the style's pixel sizes are given for: 3 px per 0.54 mm, 5.556 px/mm, which
    /// is a 15.6" 1920×1080 panel's (2202.9 px over 396.2 mm, 5.560 px/mm) to within 0.1 %.
    public static let referencePixelsPerMillimetre = 3 / 0.54

    /// How far a panel is read from, in millimetres, for its diagonal: 1.2 diagonals (the
    /// distance at which a panel fills about 40° of view, the usual rule for screens), never
    /// nearer than arm's length (400 mm: a 7" panel is read as a phone is, not from 21 cm).
    public static func viewingDistance(diagonalMillimetres diagonal: Double) -> Double {
        Swift.max(400, 1.2 * diagonal)
    }

    /// The reference panel's viewing distance: 1.2 × 396.2 mm, 475 mm.
    public static let referenceViewingDistance = viewingDistance(diagonalMillimetres: 15.6 * 25.4)

    /// The bar body's thickness in millimetres on the reference panel: 0.54 mm is the 3 px
    /// flickd always drew there; UIKit's bar of about 2.5 to 3 pt is 0.39 to 0.47 mm on an
    /// iPhone (163 pt to the inch), read closer. Other panels scale it by their viewing distance.
    public var thicknessMillimetres: Double = 0.54
    /// The body's thickness in panel pixels, taken as given in place of `thicknessMillimetres`
    /// (the border, edge inset and minimum length still follow the panel); nil: from millimetres.
    public var thicknessPixels: Double?

    /// The default sizing: 0.54 mm.
    public init() {}

    /// How much bigger, in millimetres, things must be on a panel of `panel` pixels at
    /// `pixelsPerMillimetre` to look as big as on the reference panel: its viewing distance over
    /// the reference's. 1 for a panel of unknown size.
    public static func distanceScale(panel: Size?, pixelsPerMillimetre: Double?) -> Double {
        guard let panel, let density = pixelsPerMillimetre, density.isFinite, density > 0 else { return 1 }
        let diagonal = (panel.width * panel.width + panel.height * panel.height).squareRoot() / density
        guard diagonal.isFinite, diagonal > 0 else { return 1 }
        return viewingDistance(diagonalMillimetres: diagonal) / referenceViewingDistance
    }

    /// `style` sized for a panel of `panel` pixels at `pixelsPerMillimetre`; nil (unknown) is
    /// taken as the reference panel, so the style's pixels stay as they are and the default
    /// 0.54 mm is exactly its 3 px.
    public func sized(_ style: IndicatorStyle, pixelsPerMillimetre: Double?, panel: Size? = nil) -> IndicatorStyle {
        var sized = style
        let reference = Self.referencePixelsPerMillimetre
        let known = pixelsPerMillimetre.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let density = known ?? reference
        let distance = Self.distanceScale(panel: panel, pixelsPerMillimetre: known)
        sized.thickness = thicknessPixels ?? thicknessMillimetres * distance * density
        let scale = density / reference * distance
        guard scale != 1 else { return sized }
        sized.border = style.border * scale
        sized.edgeInset = style.edgeInset * scale
        sized.minimumLength = style.minimumLength * scale
        return sized
    }
}
