import FlickCore

/// The picture `flickd calibrate` shows: crosshairs on a plain background, the target being
/// asked for large and bright, the others small and dim (done ones green), so the user sees
/// both where to touch and how many remain. Drawn in the logical view's coordinates and turned
/// by the panel rotation, as the compositor turns content: the targets sit where touches
/// mapped to that view land. Only filled rectangles, so no text or vector library is needed.
/// It reaches the panel as a frame like any other: a `RenderState` carrying it
/// (`RenderState.targetScreen`) is composed with it in place of content.
public struct TargetScreen: Hashable, Sendable {
    /// The targets, logical view px.
    public var targets: [Point]
    /// The one being asked for, if any.
    public var current: Int?
    /// How many are done (the first `done` targets).
    public var done: Int
    /// How the view is turned on the panel.
    public var rotation: PanelRotation

    /// The background.
    public static let background = Color(rgb: 0x101418)
    /// The current target.
    public static let active = Color(rgb: 0xFFFFFF)
    /// Targets still to come.
    public static let pending = Color(rgb: 0x505860)
    /// Targets already touched.
    public static let touched = Color(rgb: 0x30A050)
    /// The current target's arm length and ring half-size, px.
    static let arm = 30, ring = 12

    /// Creates a screen.
    public init(targets: [Point], current: Int?, done: Int, rotation: PanelRotation = .none) {
        self.targets = targets
        self.current = current
        self.done = done
        self.rotation = rotation
    }

    /// Paints the whole frame into a panel-sized buffer.
    public func draw(into buffer: PixelBuffer) {
        buffer.fill(Self.background.pixel)
        for (i, t) in targets.enumerated() where i != current {
            cross(at: t, arm: 8, thickness: 1, color: i < done ? Self.touched : Self.pending, in: buffer)
        }
        if let current, targets.indices.contains(current) {
            let t = targets[current]
            cross(at: t, arm: Self.arm, thickness: 1, color: Self.active, in: buffer)
            square(at: t, half: Self.ring, color: Self.active, in: buffer)
        }
    }

    /// The logical view's pixel nearest a point, clamped onto the view.
    private func pixel(_ p: Point, in buffer: PixelBuffer) -> (x: Int, y: Int) {
        let view = rotation.logicalSize(panel: buffer.size)
        func clamp(_ v: Double, _ n: Int) -> Int {
            guard v.isFinite else { return 0 }
            return Int(min(max(v.rounded(), 0), Double(max(0, n - 1))))
        }
        return (clamp(p.x, view.width), clamp(p.y, view.height))
    }

    private func cross(at p: Point, arm: Int, thickness: Int, color: Color, in buffer: PixelBuffer) {
        let (x, y) = pixel(p, in: buffer)
        fill(PixelRect(x0: x - arm, y0: y, x1: x + arm + 1, y1: y + thickness), color, buffer)
        fill(PixelRect(x0: x, y0: y - arm, x1: x + thickness, y1: y + arm + 1), color, buffer)
    }

    private func square(at p: Point, half h: Int, color: Color, in buffer: PixelBuffer) {
        let (x, y) = pixel(p, in: buffer)
        fill(PixelRect(x0: x - h, y0: y - h, x1: x + h + 1, y1: y - h + 1), color, buffer)
        fill(PixelRect(x0: x - h, y0: y + h, x1: x + h + 1, y1: y + h + 1), color, buffer)
        fill(PixelRect(x0: x - h, y0: y - h, x1: x - h + 1, y1: y + h + 1), color, buffer)
        fill(PixelRect(x0: x + h, y0: y - h, x1: x + h + 1, y1: y + h + 1), color, buffer)
    }

    /// Fills a logical rectangle, clipped to the view, at its place on the panel.
    private func fill(_ logical: PixelRect, _ color: Color, _ buffer: PixelBuffer) {
        let view = rotation.logicalSize(panel: buffer.size)
        let clipped = logical.intersection(PixelRect(x0: 0, y0: 0, x1: view.width, y1: view.height))
        guard !clipped.isEmpty else { return }
        let r = rotation.physicalRect(clipped, panel: buffer.size)
        for y in r.y0..<r.y1 { (buffer.row(y) + r.x0).update(repeating: color.pixel, count: r.width) }
    }
}
