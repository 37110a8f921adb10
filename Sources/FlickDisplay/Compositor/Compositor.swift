import CPixman
import FlickCore

/// Draws a `RenderState` and its content into an output's back buffer with pixman.
///
/// Every pixel of the target is written each frame: the content where it lands, the background
/// everywhere else (or instead of both, calibrate's target screen), then the scroll indicators.
/// The content goes through one of two paths:
///
/// - zoom 1 and no panel rotation: the offset is rounded to whole pixels (as UIKit does at
///   scale 1, which keeps text sharp) and the rows are copied (`PIXMAN_OP_SRC`, no transform),
///   the memcpy-speed path;
/// - otherwise a transform maps panel pixels to content pixels, sampled with
///   `PIXMAN_FILTER_BILINEAR` when zoomed (`NEAREST` for a pure rotation), padded at the edges so
///   the border pixels are not darkened by sampling outside the image.
///
/// The content's edge is snapped to the nearest pixel boundary. Nothing big is allocated per
/// frame: the pixman images over the buffers are made once, by their `PixelBuffer`s.
public final class Compositor {
    /// How the logical view is turned on the panel.
    public var rotation: PanelRotation
    /// The scroll indicators' look.
    public var indicatorStyle: IndicatorStyle
    private var window: SourceWindow?
    /// The zoom scale of the last frame of tiled content: a frame at the same zoom is drawn
    /// from tiles resampled to it once (`TileDrawing`), not resampled again.
    var lastTiledZoom: Double?

    /// Creates a compositor.
    public init(rotation: PanelRotation = .none, indicatorStyle: IndicatorStyle = IndicatorStyle()) {
        self.rotation = rotation
        self.indicatorStyle = indicatorStyle
    }

    /// Composes one frame.
    ///
    /// - Parameters:
    ///   - state: what to show; `state.boundsSize` should equal the logical size of `target`.
    ///   - content: the content pixels, or `nil` for background only.
    ///   - target: the back buffer (the physical panel).
    ///   - indicators: whether to draw the scroll indicators (not when they go on overlay planes).
    ///     The touch overlay's marks are drawn last, over everything.
    public func compose(_ state: RenderState, content: PixelBuffer?, into target: PixelBuffer, indicators: Bool = true) {
        compose(state, into: target, indicators: indicators) { view in
            content.flatMap { drawContent(state, $0, target, view) }
        }
    }

    /// Composes one frame of content, whole or tiled.
    ///
    /// - Parameters:
    ///   - state: what to show.
    ///   - content: the content, or `nil` for background only.
    ///   - target: the back buffer.
    ///   - indicators: whether to draw the scroll indicators.
    ///   - restingOffset: where the motion under way comes to rest, if it does: tiled content
    ///     asks for the tiles there before the view gets there.
    public func compose(_ state: RenderState, content: Content?, into target: PixelBuffer, indicators: Bool = true,
                        restingOffset: Point? = nil) {
        compose(state, into: target, indicators: indicators) { view in
            switch content?.pixels {
            case .image(let image): drawContent(state, image, target, view)
            case .tiles(let store): drawTiles(state, store, target, view, prefetchOffset: restingOffset)
            case nil: nil
            }
        }
    }

    private func compose(_ state: RenderState, into target: PixelBuffer, indicators: Bool,
                         content draw: (PixelRect) -> PixelRect?) {
        let panel = target.size
        let logical = rotation.logicalSize(panel: panel)
        let view = PixelRect(x0: 0, y0: 0, x1: logical.width, y1: logical.height)
        if let screen = state.targetScreen {
            screen.draw(into: target)
        } else {
            let covered = draw(view) ?? PixelRect(x0: 0, y0: 0, x1: 0, y1: 0)
            var color = pixmanColor(state.background)
            var boxes = view.subtracting(covered).map { r in
                let p = rotation.physicalRect(r, panel: panel)
                return pixman_box32_t(x1: Int32(p.x0), y1: Int32(p.y0), x2: Int32(p.x1), y2: Int32(p.y1))
            }
            if !boxes.isEmpty {
                pixman_image_fill_boxes(PIXMAN_OP_SRC, target.image, &color, Int32(boxes.count), &boxes)
            }
            LinkHighlight.draw(state.linkHighlights, into: target, rotation: rotation, view: view)
        }
        if indicators {
            for bar in ScrollIndicators.bars(for: state, style: indicatorStyle) {
                drawIndicator(bar, into: target, logical: view)
            }
        }
        TouchMarks.draw(state.touchMarks, into: target, rotation: rotation, view: view)
    }

    /// Where the panel's top-left lies in the content when the frame can be the content itself,
    /// scanned out with no pixel copied: zoom 1, no panel rotation, opaque content covering the
    /// whole panel at the whole-pixel offset `compose` would draw. `nil` otherwise (zoomed,
    /// rotated, rubber-banded past an edge, content smaller than the panel).
    public func scanOutOrigin(_ state: RenderState, content: PixelBuffer, panel: PixelSize) -> (x: Int, y: Int)? {
        guard content.format == .xrgb8888 else { return nil }
        return scanOutOrigin(state, contentSize: content.size, panel: panel)
    }

    /// `scanOutOrigin(_:content:panel:)` for opaque content of `contentSize` held in parts
    /// (tiled content's scan-out band).
    public func scanOutOrigin(_ state: RenderState, contentSize: PixelSize, panel: PixelSize) -> (x: Int, y: Int)? {
        guard rotation == .none, let (x, y) = Self.wholePixelOffset(state) else { return nil }
        guard x >= 0, y >= 0, x + Double(panel.width) <= Double(contentSize.width),
              y + Double(panel.height) <= Double(contentSize.height) else { return nil }
        return (Int(x), Int(y))
    }

    /// The zoom and offset a frame is drawn at: at zoom 1 the whole-pixel offset
    /// (`wholePixelOffset`, and `whole` true); `nil` for a state that cannot be drawn.
    static func drawingScale(_ state: RenderState) -> (zoom: Double, offset: Point, whole: Bool)? {
        guard state.zoomScale.isFinite, state.zoomScale > 1e-3, state.contentOffset.isFinite else { return nil }
        if let whole = wholePixelOffset(state) { return (1, Point(x: whole.x, y: whole.y), true) }
        return (state.zoomScale, state.contentOffset, false)
    }

    /// Where content of `size` lands in the logical `view` at `zoom` and `offset`, its edges
    /// snapped to pixel boundaries.
    static func contentRect(_ size: PixelSize, zoom: Double, offset: Point, view: PixelRect) -> PixelRect {
        PixelRect(x0: edge(-offset.x), y0: edge(-offset.y), x1: edge(Double(size.width) * zoom - offset.x),
                  y1: edge(Double(size.height) * zoom - offset.y)).intersection(view)
    }

    /// A content edge snapped to the nearest pixel boundary, bounded so it fits an `Int`.
    static func edge(_ v: Double) -> Int { Int(min(max(v.rounded(), -1e9), 1e9)) }

    /// At zoom 1 the offset rounded to whole pixels (as UIKit does at scale 1, which keeps text
    /// sharp), the one place both drawing and scan-out decide it; `nil` at any other zoom.
    static func wholePixelOffset(_ state: RenderState) -> (x: Double, y: Double)? {
        guard abs(state.zoomScale - 1) < 1e-9, state.contentOffset.isFinite else { return nil }
        return (state.contentOffset.x.rounded(), state.contentOffset.y.rounded())
    }

    /// Draws the content; returns the logical rectangle it covers, or `nil` if nothing was drawn.
    private func drawContent(_ state: RenderState, _ content: PixelBuffer, _ target: PixelBuffer,
                             _ view: PixelRect) -> PixelRect? {
        guard let (zoom, offset, unit) = Self.drawingScale(state) else { return nil }
        let logicalDest = Self.contentRect(content.size, zoom: zoom, offset: offset, view: view)
        guard !logicalDest.isEmpty else { return nil }
        // The content pixels the frame can sample, for choosing the source window.
        let visible = (x0: (Double(logicalDest.x0) + offset.x) / zoom - 1, y0: (Double(logicalDest.y0) + offset.y) / zoom - 1,
                       x1: (Double(logicalDest.x1) + offset.x) / zoom + 1, y1: (Double(logicalDest.y1) + offset.y) / zoom + 1)
        guard let source = sourceWindow(for: content, visible: visible) else { return nil }
        let dest = rotation.physicalRect(logicalDest, panel: target.size)
        let op = content.format == .argb8888 ? PIXMAN_OP_OVER : PIXMAN_OP_SRC
        if op == PIXMAN_OP_OVER {
            // Translucent content shows the background through it.
            var color = pixmanColor(state.background)
            var box = pixman_box32_t(x1: Int32(dest.x0), y1: Int32(dest.y0), x2: Int32(dest.x1), y2: Int32(dest.y1))
            pixman_image_fill_boxes(PIXMAN_OP_SRC, target.image, &color, 1, &box)
        }
        if unit && rotation == .none && op == PIXMAN_OP_SRC {
            // A plain copy of rows: glibc's memcpy beats pixman's SSE2 blit by ~25 % on a
            // 1080p frame, and this path is what every scroll frame takes.
            target.copy(from: content, x: dest.x0 + Int(offset.x), y: dest.y0 + Int(offset.y),
                        width: dest.width, height: dest.height, toX: dest.x0, toY: dest.y0)
            return logicalDest
        }
        if unit && rotation == .none {
            pixman_image_set_transform(source.image, nil)
            pixman_image_set_filter(source.image, PIXMAN_FILTER_NEAREST, nil, 0)
            pixman_image_set_repeat(source.image, PIXMAN_REPEAT_NONE)
            pixman_image_composite32(op, source.image, nil, target.image,
                                     Int32(dest.x0 + Int(offset.x) - source.x), Int32(dest.y0 + Int(offset.y) - source.y),
                                     0, 0, Int32(dest.x0), Int32(dest.y0), Int32(dest.width), Int32(dest.height))
            return logicalDest
        }
        let toContent = Affine(a: 1 / zoom, tx: offset.x / zoom - Double(source.x),
                               d: 1 / zoom, ty: offset.y / zoom - Double(source.y))
        guard var transform = rotation.physicalToLogical(panel: target.size).then(toContent).pixman else { return nil }
        pixman_image_set_transform(source.image, &transform)
        pixman_image_set_filter(source.image, unit ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(source.image, PIXMAN_REPEAT_PAD)
        pixman_image_composite32(op, source.image, nil, target.image, Int32(dest.x0), Int32(dest.y0), 0, 0,
                                 Int32(dest.x0), Int32(dest.y0), Int32(dest.width), Int32(dest.height))
        return logicalDest
    }

    /// pixman computes sample positions in 16.16 fixed point, so it silently drops operations
    /// reaching past ±32767 pixels. Content larger than `windowLimit` is therefore reached through
    /// a sub-image starting near the visible part, kept until the view leaves it.
    static let windowLimit = 30_000
    private static let windowAlign = 4096

    private func sourceWindow(for content: PixelBuffer, visible: (x0: Double, y0: Double, x1: Double, y1: Double))
        -> (image: OpaquePointer, x: Int, y: Int)? {
        let limit = Self.windowLimit
        if content.width <= limit && content.height <= limit { return (content.image, 0, 0) }
        func origin(_ low: Double, _ extent: Int) -> Int {
            guard extent > limit else { return 0 }
            let wanted = Int(saturating: max(0, low)) / Self.windowAlign * Self.windowAlign
            return min(wanted, extent - limit)
        }
        let x = origin(visible.x0, content.width), y = origin(visible.y0, content.height)
        let width = min(limit, content.width - x), height = min(limit, content.height - y)
        // At extreme zoom-out the visible part may exceed what one window can address.
        guard visible.x1 <= Double(x + width) || x + width == content.width,
              visible.y1 <= Double(y + height) || y + height == content.height else { return nil }
        if let window, window.content === content, window.x == x, window.y == y { return (window.image, x, y) }
        guard let image = pixman_image_create_bits(content.format.pixman, Int32(width), Int32(height),
                                                   (content.pixels + y * content.stride + x * 4).assumingMemoryBound(to: UInt32.self),
                                                   Int32(content.stride)) else { return nil }
        window = SourceWindow(content: content, x: x, y: y, image: image)
        return (image, x, y)
    }

    /// Blends one indicator bar (capsule-shaped, antialiased ends) over the frame.
    private func drawIndicator(_ bar: IndicatorBar, into target: PixelBuffer, logical view: PixelRect) {
        let rotation = rotation
        ScrollIndicators.forEachPixel(of: bar, style: indicatorStyle, within: view) { x, y, pixel in
            let p = rotation == .none ? (x: x, y: y) : rotation.physicalPixel(x: x, y: y, panel: target.size)
            let row = target.row(p.y)
            row[p.x] = over(pixel, row[p.x])
        }
    }
}

/// A sub-image of large content, released once when replaced; the strong reference keeps the
/// pixels it points into alive.
private final class SourceWindow {
    let content: PixelBuffer
    let x: Int
    let y: Int
    let image: OpaquePointer

    init(content: PixelBuffer, x: Int, y: Int, image: OpaquePointer) {
        self.content = content
        self.x = x
        self.y = y
        self.image = image
    }

    deinit { pixman_image_unref(image) }
}

/// A colour as pixman's 16-bit-per-channel opaque colour.
func pixmanColor(_ c: Color) -> pixman_color_t {
    pixman_color_t(red: UInt16(c.red) * 257, green: UInt16(c.green) * 257, blue: UInt16(c.blue) * 257, alpha: 0xFFFF)
}
