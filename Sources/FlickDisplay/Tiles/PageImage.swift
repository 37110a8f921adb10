import CPixman

/// A page's image and where it lands in the content (from the image's full size, whatever
/// size it was decoded at): a folder's page, or a big image's preview.
struct PageImage {
    let image: PixelBuffer
    let frame: PixelRect

    /// Draws the image into a tile holding `rect` of a level `scale` times full size.
    func draw(into buffer: PixelBuffer, at rect: PixelRect, scale: Double) {
        // Image pixels per content pixel (below 1 for a preview or a reduced page: enlarged).
        let fx = Double(image.width) / Double(frame.width), fy = Double(image.height) / Double(frame.height)
        let originX = Double(rect.x0) / scale - Double(frame.x0), originY = Double(rect.y0) / scale - Double(frame.y0)
        // Tile pixel → content → image pixel.
        let toImage = Affine(a: fx / scale, tx: originX * fx, d: fy / scale, ty: originY * fy)
        // Where the image lands in the tile, clipped to it.
        func edge(_ v: Double) -> Int { Int(min(max(v.rounded(), -1), Double(1 << 24))) }
        let x0 = max(0, edge(Double(frame.x0) * scale) - rect.x0), y0 = max(0, edge(Double(frame.y0) * scale) - rect.y0)
        let x1 = min(rect.width, edge(Double(frame.x1) * scale) - rect.x0)
        let y1 = min(rect.height, edge(Double(frame.y1) * scale) - rect.y0)
        guard x1 > x0, y1 > y0 else { return }
        let exact = fx == 1 && fy == 1 && scale == 1
        // Each tile draws through its own pixman image over the shared pixels: an image carries
        // its transform, and tiles are made on several threads at once.
        guard let source = pixman_image_create_bits(image.format.pixman, Int32(image.width), Int32(image.height),
                                                    image.pixels.assumingMemoryBound(to: UInt32.self),
                                                    Int32(image.stride)) else { return }
        defer { pixman_image_unref(source) }
        if !exact, var transform = toImage.pixman {
            pixman_image_set_transform(source, &transform)
            pixman_image_set_filter(source, PIXMAN_FILTER_GOOD, nil, 0)
        }
        pixman_image_set_repeat(source, PIXMAN_REPEAT_PAD)
        let op = image.format == PixelFormat.argb8888 ? PIXMAN_OP_OVER : PIXMAN_OP_SRC
        let sx = exact ? x0 + rect.x0 - frame.x0 : x0, sy = exact ? y0 + rect.y0 - frame.y0 : y0
        pixman_image_composite32(op, source, nil, buffer.image, Int32(sx), Int32(sy), 0, 0,
                                 Int32(x0), Int32(y0), Int32(x1 - x0), Int32(y1 - y0))
    }
}
