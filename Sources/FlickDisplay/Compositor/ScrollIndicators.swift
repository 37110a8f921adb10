import FlickCore

/// How the scroll indicators look and where their tracks run. The defaults follow UIKit's
/// `UIScrollView.IndicatorStyle.default`: a thin dark bar with a light border, visible on any
/// background (docs/indicators.md).
public struct IndicatorStyle: Hashable, Sendable {
    /// UIKit's three indicator styles (`UIScrollView.IndicatorStyle`): "`default`: black with a
    /// white border … good against any content background"; "`black`: black and smaller than the
    /// default style … good against a white content background"; "`white`: white and smaller …
    /// good against a black content background".
    public enum Scheme: String, CaseIterable, Hashable, Sendable {
        /// A dark bar inside a light border, `borderWidth` wider on each side.
        case `default`
        /// A dark bar, no border.
        case black
        /// A light bar, no border.
        case white
    }

    /// Which of UIKit's looks.
    public var scheme: Scheme = .default
    /// The bar's body thickness across its axis, in view pixels (the default scheme's border
    /// adds `borderWidth` on each side). `IndicatorSizing` sets it for the panel.
    public var thickness: Double = 3
    /// The gap between the bar (with its border) and the track's edge.
    public var edgeInset: Double = 3
    /// The shortest bar while the content is in bounds.
    public var minimumLength: Double = 36
    /// The body's colour in place of the scheme's (`indicators.color`); nil: the scheme's.
    public var color: Color?
    /// The bar's alpha (body and border) at full `indicatorOpacity`.
    public var alpha: Double = 0.45
    /// UIKit's `scrollIndicatorInsets`: the tracks run inside the view inset by these, in view
    /// pixels, whatever the content inset (`automaticallyAdjustsScrollIndicatorInsets` adds only
    /// the safe area, which a kiosk panel has none of).
    public var insets: EdgeInsets = .zero

    /// The default scheme's border on each side, in view pixels (`IndicatorSizing` scales it
    /// with the panel, so the border is as many millimetres as the bar).
    public var border: Double = 1

    /// The default style.
    public init() {}

    /// The light border of the default scheme, in view pixels; 0 for black and white.
    public var borderWidth: Double { scheme == .default ? border : 0 }
    /// The bar's full thickness, border included: what lies between the bar and the view's edge.
    public var outerThickness: Double { thickness + 2 * borderWidth }
    /// The body's colour.
    public var bodyColor: Color { color ?? (scheme == .white ? .white : .black) }
    /// The border's colour (used only when `borderWidth` > 0).
    public var borderColor: Color { .white }
}

/// One scroll indicator to draw, in logical view coordinates.
public struct IndicatorBar: Hashable, Sendable {
    /// The axis whose scroll position the bar shows.
    public var axis: Axis
    /// The bar's rectangle, border included (rounded ends are drawn inside it).
    public var frame: Rect
    /// The alpha to draw it with, 0…1.
    public var alpha: Double
}

/// The scroll indicators' geometry: a pure function of the render state.
public enum ScrollIndicators {
    /// The bars to draw for `state`: one per axis that scrolls (the scaled content plus the
    /// content inset is larger than the view), none when `indicatorOpacity` is 0.
    ///
    /// Each bar runs along a track: the view inset by `style.insets` (UIKit's
    /// `scrollIndicatorInsets`), then by `edgeInset` at both ends. The scrollable range is the
    /// content inset's (`contentInset` widens it as in UIKit: the offset runs from
    /// −inset.leading to content + inset.trailing − view), so the length is the track × the
    /// visible fraction of content + insets (at least `minimumLength`) and the position is
    /// proportional to where the offset is in that range. Rubber-banded past an edge, the bar
    /// shrinks by the overshoot (down to a dot, as long as it is thick) and stays pinned to that
    /// end of the track. A track too short for a dot shows no bar.
    public static func bars(for state: RenderState, style: IndicatorStyle = IndicatorStyle()) -> [IndicatorBar] {
        let alpha = min(1, max(0, state.indicatorOpacity)) * style.alpha
        guard alpha > 0, state.zoomScale > 0, state.zoomScale.isFinite else { return [] }
        let inset = state.contentInset
        func extent(_ axis: Axis) -> Double {
            state.contentSize[axis] * state.zoomScale + inset.leading(axis) + inset.trailing(axis)
        }
        let shown = Axis.allCases.filter { extent($0) > state.boundsSize[$0] + 0.5 }
        let thick = style.outerThickness
        return shown.compactMap { axis -> IndicatorBar? in
            let other: Axis = axis == .horizontal ? .vertical : .horizontal
            let view = state.boundsSize[axis]
            let start = style.insets.leading(axis) + style.edgeInset
            // Leave the corner to the other bar when both show.
            let track = view - style.insets.leading(axis) - style.insets.trailing(axis) - 2 * style.edgeInset
                - (shown.count == 2 ? thick : 0)
            guard track >= thick else { return nil }
            let total = extent(axis)
            var length = min(track, max(style.minimumLength, track * view / total))
            let minOffset = -inset.leading(axis)
            let maxOffset = state.contentSize[axis] * state.zoomScale + inset.trailing(axis) - view
            let offset = state.contentOffset[axis]
            let overshoot = offset < minOffset ? minOffset - offset : max(0, offset - maxOffset)
            length = max(thick, length - overshoot)
            let fraction = min(1, max(0, (offset - minOffset) / (maxOffset - minOffset)))
            let along = start + fraction * (track - length)
            let across = state.boundsSize[other] - style.insets.trailing(other) - style.edgeInset - thick
            let frame = axis == .vertical
                ? Rect(x: across, y: along, width: thick, height: length)
                : Rect(x: along, y: across, width: length, height: thick)
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
    /// premultiplied; the one definition of a bar's pixels, composed into a frame or drawn into
    /// an overlay strip.
    ///
    /// A pixel's alpha is the bar's × how much of it the whole capsule (border included) covers;
    /// its colour is the body's and the border's mixed by how much of that the body capsule
    /// (the frame inset by `borderWidth`) covers. Without a border that is the body's colour.
    static func forEachPixel(of bar: IndicatorBar, style: IndicatorStyle, within view: PixelRect,
                             _ body: (Int, Int, UInt32) -> Void) {
        let f = bar.frame
        let area = pixelArea(of: bar, within: view)
        guard !area.isEmpty else { return }
        let border = min(style.borderWidth, min(f.size.width, f.size.height) / 2)
        let inner = Rect(x: f.minX + border, y: f.minY + border,
                         width: f.size.width - 2 * border, height: f.size.height - 2 * border)
        let bodyColour = rgb(style.bodyColor), borderColour = rgb(style.borderColor)
        let alpha = min(max(bar.alpha, 0), 1)
        let bodyPixel = premultiplied(bodyColour, alpha: UInt32(saturating: (alpha * 255).rounded()))
        let borderPixel = premultiplied(borderColour, alpha: UInt32(saturating: (alpha * 255).rounded()))
        let innerStraight = straightPart(of: border > 0 ? inner : f, axis: bar.axis)
        // A pixel covered `outer` by the whole capsule and `core` by the body's.
        func pixel(outer: Double, core: Double) -> UInt32 {
            if outer == 1 && core == 1 { return bodyPixel }
            if outer == 1 && core == 0 { return borderPixel }
            let a = UInt32(saturating: (alpha * outer * 255).rounded())
            guard a > 0 else { return 0 }
            let colour = core == outer ? bodyColour : core == 0 ? borderColour : mix(bodyColour, borderColour, core / outer)
            return premultiplied(colour, alpha: a)
        }
        // Along the straight part both capsules are rectangles across the bar (the body's radius
        // is the border less, so its straight part spans the same rows): a pixel there depends
        // only on where it lies across the bar, worked out once per bar. Only the two rounded
        // ends are sampled.
        let vertical = bar.axis == .vertical
        // (A bar rubber-banded to a dot has no straight part: the range is empty.)
        let (first, last) = vertical ? (innerStraight.y0, innerStraight.y1) : (innerStraight.x0, innerStraight.x1)
        let straightRows = first..<max(first, last)
        func overlap(_ p: Int, _ low: Double, _ high: Double) -> Double {
            max(0, min(Double(p) + 1, high) - max(Double(p), low))
        }
        let acrossStart = vertical ? area.x0 : area.y0
        let across = (acrossStart..<(vertical ? area.x1 : area.y1)).map { p -> UInt32 in
            let outer = vertical ? overlap(p, f.minX, f.maxX) : overlap(p, f.minY, f.maxY)
            let core = border == 0 ? outer
                : min(outer, vertical ? overlap(p, inner.minX, inner.maxX) : overlap(p, inner.minY, inner.maxY))
            return pixel(outer: outer, core: core)
        }
        for y in area.y0..<area.y1 {
            for x in area.x0..<area.x1 {
                let value: UInt32
                if straightRows.contains(vertical ? y : x) {
                    value = across[(vertical ? x : y) - acrossStart]
                } else {
                    let outer = coverage(x: x, y: y, frame: f)
                    value = pixel(outer: outer, core: border == 0 ? outer : min(outer, coverage(x: x, y: y, frame: inner)))
                }
                guard value >> 24 > 0 else { continue }
                body(x, y, value)
            }
        }
    }

    /// The whole pixels a capsule filling `frame` covers entirely: its straight part.
    private static func straightPart(of f: Rect, axis: Axis) -> PixelRect {
        let radius = min(f.size.width, f.size.height) / 2
        return axis == .vertical
            ? PixelRect(x0: Int(saturating: f.minX.rounded(.up)), y0: Int(saturating: (f.minY + radius).rounded(.up)),
                        x1: Int(saturating: f.maxX.rounded(.down)), y1: Int(saturating: (f.maxY - radius).rounded(.down)))
            : PixelRect(x0: Int(saturating: (f.minX + radius).rounded(.up)), y0: Int(saturating: f.minY.rounded(.up)),
                        x1: Int(saturating: (f.maxX - radius).rounded(.down)), y1: Int(saturating: f.maxY.rounded(.down)))
    }

    /// A colour as a `0x00RRGGBB` word.
    private static func rgb(_ c: Color) -> UInt32 { UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue) }

    /// `a` × `weight` + `b` × (1 − `weight`) per channel, rounded.
    private static func mix(_ a: UInt32, _ b: UInt32, _ weight: Double) -> UInt32 {
        func channel(_ shift: UInt32) -> UInt32 {
            let value = Double((a >> shift) & 0xFF) * weight + Double((b >> shift) & 0xFF) * (1 - weight)
            return UInt32(min(255, max(0, value.rounded()))) << shift
        }
        return channel(0) | channel(8) | channel(16)
    }
}
