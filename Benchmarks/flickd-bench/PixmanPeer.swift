// The compose benchmark's peer deliberately calls pixman itself: it is the yardstick the
// compositor is held to, so it must not go through FlickDisplay.
import CPixman
import FlickDisplay

/// pixman's own composite of the same frame the compositor draws: the content at the same
/// offset and zoom with the same filter, op and repeat, plus the background fill where the
/// content does not reach; no indicators and no Swift in between.
final class PixmanPeer {
    private let source: OpaquePointer
    private let target: OpaquePointer
    private let view: (width: Int, height: Int)
    private var dest = (x0: 0, y0: 0, x1: 0, y1: 0)
    private var sourceOrigin = (x: Int32(0), y: Int32(0))
    private var transformed = false
    private var background = pixman_color_t(red: 0, green: 0, blue: 0, alpha: 0xFFFF)
    private var boxes: [pixman_box32_t] = []

    /// Images over the same pixels the compositor reads and writes.
    init(content: PixelBuffer, target buffer: PixelBuffer) {
        source = pixman_image_create_bits(PIXMAN_x8r8g8b8, Int32(content.width), Int32(content.height),
                                          content.pixels.assumingMemoryBound(to: UInt32.self), Int32(content.stride))!
        target = pixman_image_create_bits(PIXMAN_x8r8g8b8, Int32(buffer.width), Int32(buffer.height),
                                          buffer.pixels.assumingMemoryBound(to: UInt32.self), Int32(buffer.stride))!
        view = (buffer.width, buffer.height)
    }

    deinit {
        pixman_image_unref(source)
        pixman_image_unref(target)
    }

    /// Sets up the operation for `zoom` and `offset` over content of `contentSize` (done once,
    /// outside the timing: the peer is the bare composite).
    func prepare(zoom: Double, offset: (x: Double, y: Double), contentSize: (width: Int, height: Int)) {
        func edge(_ v: Double) -> Int { Int(v.rounded()) }
        dest = (max(0, edge(-offset.x)), max(0, edge(-offset.y)),
                min(view.width, edge(Double(contentSize.width) * zoom - offset.x)),
                min(view.height, edge(Double(contentSize.height) * zoom - offset.y)))
        transformed = zoom != 1
        if transformed {
            var f = pixman_f_transform()
            f.m = ((1 / zoom, 0, offset.x / zoom), (0, 1 / zoom, offset.y / zoom), (0, 0, 1))
            var t = pixman_transform()
            _ = pixman_transform_from_pixman_f_transform(&t, &f)
            pixman_image_set_transform(source, &t)
            pixman_image_set_filter(source, PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(source, PIXMAN_REPEAT_PAD)
            sourceOrigin = (Int32(dest.x0), Int32(dest.y0))
        } else {
            pixman_image_set_transform(source, nil)
            pixman_image_set_filter(source, PIXMAN_FILTER_NEAREST, nil, 0)
            pixman_image_set_repeat(source, PIXMAN_REPEAT_NONE)
            sourceOrigin = (Int32(dest.x0 + Int(offset.x)), Int32(dest.y0 + Int(offset.y)))
        }
        // The bands around the content that the background colour fills.
        let d = dest
        boxes = [pixman_box32_t(x1: 0, y1: 0, x2: Int32(view.width), y2: Int32(d.y0)),
                 pixman_box32_t(x1: 0, y1: Int32(d.y1), x2: Int32(view.width), y2: Int32(view.height)),
                 pixman_box32_t(x1: 0, y1: Int32(d.y0), x2: Int32(d.x0), y2: Int32(d.y1)),
                 pixman_box32_t(x1: Int32(d.x1), y1: Int32(d.y0), x2: Int32(view.width), y2: Int32(d.y1))]
            .filter { $0.x2 > $0.x1 && $0.y2 > $0.y1 }
    }

    /// One frame: the composite and the background bands.
    func compose() {
        pixman_image_composite32(PIXMAN_OP_SRC, source, nil, target, sourceOrigin.x, sourceOrigin.y, 0, 0,
                                 Int32(dest.x0), Int32(dest.y0), Int32(dest.x1 - dest.x0), Int32(dest.y1 - dest.y0))
        if !boxes.isEmpty {
            pixman_image_fill_boxes(PIXMAN_OP_SRC, target, &background, Int32(boxes.count), &boxes)
        }
    }
}
