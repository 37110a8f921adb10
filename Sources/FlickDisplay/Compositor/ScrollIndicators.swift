import FlickCore

/// How the scroll indicators look; the defaults follow iOS's thin dark bars.
public struct IndicatorStyle: Hashable, Sendable {
    /// The bar's thickness across its axis, in view pixels.
    public var thickness: Double = 3
    /// The gap between the bar and the view's edge.
    public var edgeInset: Double = 3
    /// The shortest bar while the content is in bounds.
    public var minimumLength: Double = 36
    /// The bar's colour.
    public var color: Color = .black
    /// The bar's alpha at full `indicatorOpacity`.
    public var alpha: Double = 0.45

    /// The default style.
    public init() {}
}

/// One scroll indicator to draw, in logical view coordinates.
public struct IndicatorBar: Hashable, Sendable {
    /// The axis whose scroll position the bar shows.
    public var axis: Axis
    /// The bar's rectangle (rounded ends are drawn inside it).
    public var frame: Rect
    /// The alpha to draw it with, 0…1.
    public var alpha: Double
}

/// The scroll indicators' geometry: a pure function of the render state.
public enum ScrollIndicators {
    /// The bars to draw for `state`: one per axis whose scaled content is larger than the view,
    /// none when `indicatorOpacity` is 0.
    ///
    /// The length is the track × visible fraction (at least `minimumLength`); the position is
    /// proportional to the offset. Rubber-banded past an edge, the bar shrinks by the overshoot
    /// (down to a dot, `thickness` long) and stays pinned to that end of the track.
    public static func bars(for state: RenderState, style: IndicatorStyle = IndicatorStyle()) -> [IndicatorBar] {
        let alpha = min(1, max(0, state.indicatorOpacity)) * style.alpha
        guard alpha > 0, state.zoomScale > 0, state.zoomScale.isFinite else { return [] }
        let shown = Axis.allCases.filter { state.contentSize[$0] * state.zoomScale > state.boundsSize[$0] + 0.5 }
        return shown.map { axis in
            let view = state.boundsSize[axis]
            let content = state.contentSize[axis] * state.zoomScale
            let offset = state.contentOffset[axis]
            // Leave the corner to the other bar when both show.
            let track = view - 2 * style.edgeInset - (shown.count == 2 ? style.thickness : 0)
            var length = min(track, max(style.minimumLength, track * view / content))
            let maxOffset = content - view
            let overshoot = offset < 0 ? -offset : max(0, offset - maxOffset)
            length = max(style.thickness, length - overshoot)
            let fraction = min(1, max(0, offset / maxOffset))
            let along = style.edgeInset + fraction * (track - length)
            let across = state.boundsSize[axis == .horizontal ? .vertical : .horizontal] - style.edgeInset - style.thickness
            let frame = axis == .vertical
                ? Rect(x: across, y: along, width: style.thickness, height: length)
                : Rect(x: along, y: across, width: length, height: style.thickness)
            return IndicatorBar(axis: axis, frame: frame, alpha: alpha)
        }
    }

    /// How much of logical pixel (`x`, `y`) a capsule filling `frame` covers, 0…1
    /// (4×4 supersampling; only used near the rounded ends).
    static func coverage(x: Int, y: Int, frame: Rect) -> Double {
        let radius = min(frame.size.width, frame.size.height) / 2
        // The capsule is the set of points within `radius` of its centre segment.
        let horizontal = frame.size.width > frame.size.height
        let (ax, ay, bx, by) = horizontal
            ? (frame.minX + radius, frame.mid.y, frame.maxX - radius, frame.mid.y)
            : (frame.mid.x, frame.minY + radius, frame.mid.x, frame.maxY - radius)
        var inside = 0
        for sy in 0..<4 {
            for sx in 0..<4 {
                let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                let qx = min(max(px, min(ax, bx)), max(ax, bx)), qy = min(max(py, min(ay, by)), max(ay, by))
                if (px - qx) * (px - qx) + (py - qy) * (py - qy) <= radius * radius { inside += 1 }
            }
        }
        return Double(inside) / 16
    }

    /// The whole pixels a bar touches, within `view` (logical pixels). A bar's frame follows the
    /// config's style, which may be any finite size: its edges saturate rather than trap.
    static func pixelArea(of bar: IndicatorBar, within view: PixelRect) -> PixelRect {
        let f = bar.frame
        return PixelRect(x0: Int(saturating: f.minX.rounded(.down)), y0: Int(saturating: f.minY.rounded(.down)),
                         x1: Int(saturating: f.maxX.rounded(.up)), y1: Int(saturating: f.maxY.rounded(.up))).intersection(view)
    }

    /// Calls `body(x, y, pixel)` for each logical pixel of the bar within `view` that it covers,
    /// with the bar's colour at that pixel's alpha, premultiplied; the one definition of a bar's
    /// pixels, composed into a frame or drawn into an overlay strip.
    static func forEachPixel(of bar: IndicatorBar, style: IndicatorStyle, within view: PixelRect,
                             _ body: (Int, Int, UInt32) -> Void) {
        let f = bar.frame
        let area = pixelArea(of: bar, within: view)
        guard !area.isEmpty else { return }
        let radius = min(f.size.width, f.size.height) / 2
        let c = style.color
        let colour = UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
        let bodyPixel = premultiplied(colour, alpha: UInt32(saturating: (min(max(bar.alpha, 0), 1) * 255).rounded()))
        // The straight part, in whole pixels: fully covered, one alpha, no sampling.
        let straight = bar.axis == .vertical
            ? PixelRect(x0: Int(saturating: f.minX.rounded(.up)), y0: Int(saturating: (f.minY + radius).rounded(.up)),
                        x1: Int(saturating: f.maxX.rounded(.down)), y1: Int(saturating: (f.maxY - radius).rounded(.down)))
            : PixelRect(x0: Int(saturating: (f.minX + radius).rounded(.up)), y0: Int(saturating: f.minY.rounded(.up)),
                        x1: Int(saturating: (f.maxX - radius).rounded(.down)), y1: Int(saturating: f.maxY.rounded(.down)))
        for y in area.y0..<area.y1 {
            let rowInStraight = y >= straight.y0 && y < straight.y1
            for x in area.x0..<area.x1 {
                let pixel = rowInStraight && x >= straight.x0 && x < straight.x1
                    ? bodyPixel
                    : premultiplied(colour, alpha: UInt32(saturating: (min(max(bar.alpha, 0), 1) * coverage(x: x, y: y, frame: f) * 255).rounded()))
                guard pixel >> 24 > 0 else { continue }
                body(x, y, pixel)
            }
        }
    }
}
