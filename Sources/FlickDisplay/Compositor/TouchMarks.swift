import FlickCore

/// One mark of the touch overlay (`debug.touch_overlay`): the dot under a finger, or a point of
/// its trail, in logical view pixels.
public struct TouchMark: Hashable, Sendable {
    /// The centre.
    public var position: Point
    /// The radius, in pixels.
    public var radius: Double
    /// 0…1; 0 draws nothing.
    public var opacity: Double

    /// Creates a mark.
    public init(position: Point, radius: Double, opacity: Double) {
        self.position = position
        self.radius = radius
        self.opacity = opacity
    }
}

/// Draws touch marks over a composed frame: antialiased discs in one colour that no content
/// is likely to share, so a person sees where the panel says the finger is.
enum TouchMarks {
    /// Magenta-pink, opaque before the mark's opacity.
    static let red: UInt32 = 255, green: UInt32 = 40, blue: UInt32 = 160

    /// Blends `marks` over the logical view `view` of `target` (panel rotation applied).
    static func draw(_ marks: [TouchMark], into target: PixelBuffer, rotation: PanelRotation, view: PixelRect) {
        for mark in marks {
            let p = mark.position, r = mark.radius, opacity = min(1, mark.opacity)
            guard p.isFinite, r.isFinite, r > 0, r < 1000, opacity > 0 else { continue }
            let x0 = max(view.x0, Int(saturating: (p.x - r - 1).rounded(.down)))
            let x1 = min(view.x1, Int(saturating: (p.x + r + 1).rounded(.up)))
            let y0 = max(view.y0, Int(saturating: (p.y - r - 1).rounded(.down)))
            let y1 = min(view.y1, Int(saturating: (p.y + r + 1).rounded(.up)))
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 {
                for x in x0..<x1 {
                    // Coverage of the pixel's centre by the disc, with a one-pixel soft edge.
                    let dx = Double(x) + 0.5 - p.x, dy = Double(y) + 0.5 - p.y
                    let coverage = min(1, max(0, r + 0.5 - (dx * dx + dy * dy).squareRoot())) * opacity
                    guard coverage > 0 else { continue }
                    let alpha = UInt32((coverage * 255).rounded())
                    let pixel = alpha << 24 | (red * alpha / 255) << 16 | (green * alpha / 255) << 8 | (blue * alpha / 255)
                    let at = rotation == .none ? (x: x, y: y) : rotation.physicalPixel(x: x, y: y, panel: target.size)
                    let row = target.row(at.y)
                    row[at.x] = over(pixel, row[at.x])
                }
            }
        }
    }
}
