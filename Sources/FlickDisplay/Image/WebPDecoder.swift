import CWebP

/// WebP decoding through libwebp: a still image, or an animation's first frame placed on its
/// canvas (the rest transparent).
public enum WebPDecoder {
    /// Decodes a WebP file whole: `xrgb8888` when every pixel is opaque, else premultiplied
    /// `argb8888` (libwebp's `MODE_bgrA`, the same bytes on little-endian), straight into the
    /// buffer.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: the file name, used only in errors.
    ///   - pixelBudget: the most pixels the canvas may have; checked before any pixel memory.
    /// - Throws: `ContentError` naming `path`.
    public static func decode(_ data: [UInt8], path: String, pixelBudget: Int) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            let layout = try WebPLayout.read(raw, path: path)
            let canvas = layout.canvas
            guard canvas.area <= pixelBudget else {
                throw ContentError(path: path, reason: .overPixelBudget(width: canvas.width, height: canvas.height, budget: pixelBudget))
            }
            guard let buffer = PixelBuffer(width: canvas.width, height: canvas.height, format: layout.opaque ? .xrgb8888 : .argb8888) else {
                throw ContentError(path: path, reason: .outOfMemory(width: canvas.width, height: canvas.height))
            }
            var config = WebPDecoderConfig()
            guard WebPInitDecoderConfig(&config) != 0 else { throw ContentError(path: path, reason: .corrupt(detail: "libwebp's version")) }
            let frame = layout.frame
            config.output.colorspace = layout.opaque ? MODE_BGRA : MODE_bgrA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = (buffer.pixels + frame.y0 * buffer.stride + frame.x0 * 4).assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(buffer.stride)
            config.output.u.RGBA.size = buffer.stride * (frame.height - 1) + frame.width * 4
            let payload = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + layout.payload.lowerBound
            let status = WebPDecode(payload, layout.payload.count, &config)
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else { throw ContentError(path: path, reason: WebPLayout.reason(status, size: canvas)) }
            return DecodedImage(pixels: buffer, note: layout.note)
        }
    }
}
