import FlickCore

/// The scroll indicators as layers of their own, for outputs with overlay planes: each axis's bar
/// lives in a strip along one edge of the view (the vertical bar's along the right edge, the
/// horizontal bar's along the bottom), shown on an overlay plane above the primary one.
///
/// A frame at zoom 1 then needs no pixel copied: the primary plane scans out the content and
/// only the few hundred pixels of a bar are drawn (docs/ARCHITECTURE.md, "The path of one frame"). Each strip
/// is double-buffered like the frame: the caller names the buffer (0 or 1) and switches to the
/// other after each committed frame, so a frame never draws into the buffer on screen (one
/// frame at most is in flight), and a retried frame draws into the same free one again. A strip
/// not drawn for a frame is not on screen after it, so either of its buffers is free then. Only
/// the bar's previous area is cleared.
final class IndicatorStrips {
    private struct Strip {
        var rect: PixelRect
        var buffers: [LayerBuffer]
        /// The area each buffer's bar covered when it was last drawn, in strip pixels.
        var drawn: [PixelRect?] = [nil, nil]
    }

    private var strips: [Axis: Strip] = [:]

    /// The thinnest strip: display controllers refuse framebuffers and planes below a minimum
    /// size (vkms: 10 pixels), so a strip is never thinner than this whatever the bar.
    static let minimumDepth = 32

    /// The strip holding `axis`'s bar, in view pixels: as deep as the indicator inset on that
    /// side, the edge inset and the bar's full thickness, and at least `minimumDepth`.
    static func rect(for axis: Axis, view: PixelSize, style: IndicatorStyle) -> PixelRect {
        let side = axis == .vertical ? style.insets.right : style.insets.bottom
        let needed = (side + style.edgeInset + style.outerThickness).rounded(.up)
        let depth = Int(saturating: min(max(Double(minimumDepth), needed), 1e6))
        switch axis {
        case .vertical: return PixelRect(x0: max(0, view.width - depth), y0: 0, x1: view.width, y1: view.height)
        case .horizontal: return PixelRect(x0: 0, y0: max(0, view.height - depth), x1: view.width, y1: view.height)
        }
    }

    /// Draws the bars of `state` into their strips' buffer `index` and returns them as
    /// overlays, in the order the compositor would have drawn them.
    ///
    /// - Throws: what `output.makeLayerBuffer` throws.
    func overlays(for state: RenderState, style: IndicatorStyle, view: PixelSize, output: any Output,
                  buffer index: Int) throws -> [FrameLayers.Overlay] {
        var overlays: [FrameLayers.Overlay] = []
        for bar in ScrollIndicators.bars(for: state, style: style) {
            let rect = Self.rect(for: bar.axis, view: view, style: style)
            guard !rect.isEmpty else { continue }
            if strips[bar.axis]?.rect != rect {
                // The old buffers stay alive while a frame on screen still shows them.
                let size = PixelSize(width: rect.width, height: rect.height)
                strips[bar.axis] = Strip(rect: rect, buffers: [try output.makeLayerBuffer(size),
                                                               try output.makeLayerBuffer(size)])
            }
            let strip = strips[bar.axis]!
            let pixels = strip.buffers[index].pixels
            if let old = strip.drawn[index] {
                for y in old.y0..<old.y1 { pixels.row(y).advanced(by: old.x0).update(repeating: 0, count: old.width) }
            }
            ScrollIndicators.forEachPixel(of: bar, style: style, within: rect) { x, y, pixel in
                pixels.row(y - rect.y0)[x - rect.x0] = pixel
            }
            let area = ScrollIndicators.pixelArea(of: bar, within: rect)
            strips[bar.axis]!.drawn[index] = area.isEmpty ? nil
                : PixelRect(x0: area.x0 - rect.x0, y0: area.y0 - rect.y0, x1: area.x1 - rect.x0, y1: area.y1 - rect.y0)
            overlays.append(FrameLayers.Overlay(buffer: strip.buffers[index], x: rect.x0, y: rect.y0))
        }
        return overlays
    }
}
