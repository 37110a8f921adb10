import CPixman
import CTurboJPEG
import FlickSystem
import Glibc

/// Decodes an image reduced to fit a size, in memory bounded by that size, not the image's:
/// a page's preview, and a page over the pixel budget.
///
/// A JPEG is decoded by libjpeg-turbo's scaled DCT (1/2 … 1/8: the smallest scale still at
/// least the size asked), then reduced by pixman if still larger. Anything else (a PNG, or a
/// JPEG that even at 1/8 is over `pixelBudget`) is streamed a row at a time
/// (`ScanlineReaders`, as the pyramid builder reads) and box-averaged by a whole factor, so
/// only the result and one row are held.
public enum ReducedDecoder {
    /// The image at `path` reduced (never enlarged) to fit `fit`, keeping its aspect, with its
    /// full size.
    /// - Parameters:
    ///   - fit: the largest size wanted (each side at least 1).
    ///   - pixelBudget: the most pixels an intermediate decode may hold.
    ///   - maxFileBytes: the largest file read whole (a larger JPEG is streamed).
    /// - Throws: `ContentError` naming `path`.
    public static func decode(at path: String, fitting fit: PixelSize, pixelBudget: Int,
                              maxFileBytes: Int) throws -> (image: PixelBuffer, fullSize: PixelSize) {
        let fit = PixelSize(width: max(1, fit.width), height: max(1, fit.height))
        // Only a JPEG is read whole (the DCT scales it); a PNG or WebP is streamed, never read whole.
        if case .success(let magic) = FileIO.read(path, limit: ImageFormat.signatureLength, truncating: true),
           ImageFormat(signature: magic) == .jpeg,
           case .success(let data) = FileIO.read(path, limit: maxFileBytes),
           let scaled = try scaledJPEG(data, path: path, fitting: fit, pixelBudget: pixelBudget) {
            return (try reduce(scaled.image, toFit: fit, path: path), scaled.fullSize)
        }
        return try streamed(path, fitting: fit)
    }

    /// The largest IDCT scale denominator (1, 2, 4 or 8) whose scaled image, each side rounded
    /// up as libjpeg and TJSCALED round, still covers `target`.
    static func dctDenominator(_ full: PixelSize, covering target: PixelSize) -> Int {
        var denominator = 1
        while denominator < 8, (full.width + denominator * 2 - 1) / (denominator * 2) >= target.width,
              (full.height + denominator * 2 - 1) / (denominator * 2) >= target.height {
            denominator *= 2
        }
        return denominator
    }

    /// The size `full` takes fitted into `fit` (never enlarged), each side at least 1.
    public static func fitted(_ full: PixelSize, into fit: PixelSize) -> PixelSize {
        let scale = min(1, Double(fit.width) / Double(max(1, full.width)), Double(fit.height) / Double(max(1, full.height)))
        return PixelSize(width: max(1, Int((Double(full.width) * scale).rounded(.down))),
                         height: max(1, Int((Double(full.height) * scale).rounded(.down))))
    }

    /// A scaled DCT decode, or `nil` when even 1/8 would be over `pixelBudget` or the file is
    /// CMYK.
    private static func scaledJPEG(_ data: [UInt8], path: String, fitting fit: PixelSize,
                                   pixelBudget: Int) throws -> (image: PixelBuffer, fullSize: PixelSize)? {
        guard let handle = tjInitDecompress() else { throw ContentError(path: path, reason: .outOfMemory(width: 0, height: 0)) }
        defer { tjDestroy(handle) }
        return try data.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling, &colorspace) == 0,
                  width > 0, height > 0 else {
                throw ContentError(path: path, reason: .corrupt(detail: String(cString: tjGetErrorStr2(handle))))
            }
            // libjpeg's rows convert CMYK to RGB, TurboJPEG does not: streamed.
            if JPEGDecoder.isCMYK(colorspace) { return nil }
            let full = PixelSize(width: Int(width), height: Int(height))
            let target = fitted(full, into: fit)
            let denominator = dctDenominator(full, covering: target)
            let w = (full.width + denominator - 1) / denominator, h = (full.height + denominator - 1) / denominator
            guard w * h <= pixelBudget else { return nil }
            guard let buffer = PixelBuffer(width: w, height: h, format: .xrgb8888) else {
                throw ContentError(path: path, reason: .outOfMemory(width: w, height: h))
            }
            let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
            guard tjDecompress2(handle, source, UInt(raw.count), buffer.pixels.assumingMemoryBound(to: UInt8.self),
                                Int32(w), Int32(buffer.stride), Int32(h), Int32(TJPF_BGRX.rawValue), flags) == 0 else {
                throw ContentError(path: path, reason: .corrupt(detail: String(cString: tjGetErrorStr2(handle))))
            }
            return (buffer, full)
        }
    }

    /// `image` reduced by pixman to `fit` if larger.
    private static func reduce(_ image: PixelBuffer, toFit fit: PixelSize, path: String) throws -> PixelBuffer {
        let target = fitted(image.size, into: fit)
        guard target != image.size else { return image }
        guard let out = PixelBuffer(width: target.width, height: target.height, format: image.format) else {
            throw ContentError(path: path, reason: .outOfMemory(width: target.width, height: target.height))
        }
        // Less than 2× down (the DCT did the rest): bilinear loses little.
        let toImage = Affine(a: Double(image.width) / Double(target.width), tx: 0,
                             d: Double(image.height) / Double(target.height), ty: 0)
        if var transform = toImage.pixman { pixman_image_set_transform(image.image, &transform) }
        pixman_image_set_filter(image.image, PIXMAN_FILTER_GOOD, nil, 0)
        pixman_image_set_repeat(image.image, PIXMAN_REPEAT_PAD)
        pixman_image_composite32(PIXMAN_OP_SRC, image.image, nil, out.image, 0, 0, 0, 0, 0, 0,
                                 Int32(target.width), Int32(target.height))
        return out
    }

    /// Rows streamed and averaged over `k`×`k` boxes, `k` the least whole factor that fits.
    private static func streamed(_ path: String, fitting fit: PixelSize) throws -> (image: PixelBuffer, fullSize: PixelSize) {
        let reader = try ScanlineReaders.open(path)
        let full = PixelSize(width: reader.width, height: reader.height)
        let k = max(1, (full.width + fit.width - 1) / fit.width, (full.height + fit.height - 1) / fit.height)
        return (try averaged(reader, by: k, path: path), full)
    }

    /// The image at `path` reduced as far as it still covers its fit into `view` (never
    /// enlarged), read streaming: a JPEG scaled by the IDCT first (1/2 … 1/8: `djpeg -scale`),
    /// then rows of any format box-averaged by a whole factor. Memory is the result and a row,
    /// never the file: what a big image's preview takes while its pyramid is built.
    /// - Returns: the reduced image and the image's full size.
    /// - Throws: `ContentError` naming `path`.
    public static func preview(at path: String, fittedInto view: PixelSize) throws -> (image: PixelBuffer, fullSize: PixelSize) {
        let view = PixelSize(width: max(1, view.width), height: max(1, view.height))
        let reader = try ScanlineReaders.open(path) { fitted($0, into: view) }
        let full = (reader as? JPEGScanlines)?.fullSize ?? PixelSize(width: reader.width, height: reader.height)
        let covering = fitted(full, into: view)
        let k = max(1, min(reader.width / covering.width, reader.height / covering.height))
        return (try averaged(reader, by: k, path: path), full)
    }

    /// `reader`'s rows averaged over `k`×`k` boxes (the last ones cut by the edges), premultiplied.
    static func averaged(_ reader: any ScanlineReader, by k: Int, path: String) throws -> PixelBuffer {
        let full = PixelSize(width: reader.width, height: reader.height)
        let w = (full.width + k - 1) / k, h = (full.height + k - 1) / k
        let format: PixelFormat = reader.hasAlpha ? .argb8888 : .xrgb8888
        guard let out = PixelBuffer(width: w, height: h, format: format) else {
            throw ContentError(path: path, reason: .outOfMemory(width: w, height: h))
        }
        let channels = reader.channels
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: full.width * channels)
        defer { row.deallocate() }
        // Premultiplied sums of one output row's boxes: B, G, R, A per output pixel.
        var sums = [UInt64](repeating: 0, count: w * 4)
        for oy in 0..<h {
            for i in sums.indices { sums[i] = 0 }
            let rows = min(k, full.height - oy * k)
            for _ in 0..<rows {
                try reader.readRow(into: row)
                for x in 0..<full.width {
                    let p = row + x * channels, o = (x / k) * 4
                    let a = channels == 4 ? UInt64(p[3]) : 255
                    sums[o] += UInt64(p[2]) * a
                    sums[o + 1] += UInt64(p[1]) * a
                    sums[o + 2] += UInt64(p[0]) * a
                    sums[o + 3] += a
                }
            }
            let target = out.row(oy)
            for ox in 0..<w {
                let count = UInt64(rows * min(k, full.width - ox * k)), o = ox * 4
                // Straight sums × alpha / 255 / count: premultiplied averages.
                let d = count * 255
                let b = UInt32((sums[o] + d / 2) / d), g = UInt32((sums[o + 1] + d / 2) / d)
                let r = UInt32((sums[o + 2] + d / 2) / d), a = UInt32((sums[o + 3] + count / 2) / count)
                target[ox] = (reader.hasAlpha ? a : 0xFF) << 24 | r << 16 | g << 8 | b
            }
        }
        return out
    }
}
