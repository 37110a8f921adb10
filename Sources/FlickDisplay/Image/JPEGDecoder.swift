import CTurboJPEG
import Glibc

/// JPEG decoding through libjpeg-turbo's TurboJPEG API.
public enum JPEGDecoder {
    /// Decodes a JPEG into `xrgb8888` pixels (TurboJPEG's `TJPF_BGRX` on little-endian).
    ///
    /// Warnings are errors (`TJFLAG_STOPONWARNING`), so a truncated file fails instead of showing
    /// grey; progressive scans are limited (`TJFLAG_LIMITSCANS`) against decompression bombs.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: the file name, used only in errors.
    ///   - pixelBudget: the most pixels the image may have; checked from the header first.
    /// - Throws: `ContentError` naming `path`.
    public static func decode(_ data: [UInt8], path: String, pixelBudget: Int) throws -> PixelBuffer {
        guard let handle = tjInitDecompress() else {
            throw ContentError(path: path, reason: .outOfMemory(width: 0, height: 0))
        }
        defer { tjDestroy(handle) }
        func message() -> String { String(cString: tjGetErrorStr2(handle)) }
        return try data.withUnsafeBytes { raw in
            let source = raw.bindMemory(to: UInt8.self).baseAddress
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, source, UInt(raw.count), &width, &height, &subsampling, &colorspace) == 0 else {
                throw ContentError(path: path, reason: classify(message()))
            }
            // A datastream of tables only (no frame header before the end) reads as 0x0.
            guard width > 0, height > 0 else {
                throw ContentError(path: path, reason: .corrupt(detail: "no image in the JPEG data (\(width)x\(height) pixels)"))
            }
            guard Int(width) * Int(height) <= pixelBudget else {
                throw ContentError(path: path, reason: .overPixelBudget(width: Int(width), height: Int(height), budget: pixelBudget))
            }
            if isCMYK(colorspace) { return try decodeCMYK(raw, path: path) }
            guard let buffer = PixelBuffer(width: Int(width), height: Int(height), format: .xrgb8888) else {
                throw ContentError(path: path, reason: .outOfMemory(width: Int(width), height: Int(height)))
            }
            let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
            guard tjDecompress2(handle, source, UInt(raw.count), buffer.pixels.assumingMemoryBound(to: UInt8.self),
                                width, Int32(buffer.stride), height, Int32(TJPF_BGRX.rawValue), flags) == 0 else {
                throw ContentError(path: path, reason: classify(message()))
            }
            return buffer
        }
    }

    /// Whether TurboJPEG's colourspace is CMYK or YCCK (a print file): TurboJPEG decodes those
    /// to CMYK only.
    static func isCMYK(_ colorspace: Int32) -> Bool {
        colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
    }

    /// A CMYK or YCCK JPEG in memory decoded through libjpeg's rows, which convert it to RGB
    /// (`CJPEGRows`, as the pyramid builder reads it).
    private static func decodeCMYK(_ raw: UnsafeRawBufferPointer, path: String) throws -> PixelBuffer {
        guard let base = raw.baseAddress, let file = fmemopen(UnsafeMutableRawPointer(mutating: base), raw.count, "r") else {
            throw ContentError(path: path, reason: .outOfMemory(width: 0, height: 0))
        }
        // The rows are read before `raw` goes: the stream reads it in place.
        return try ReducedDecoder.averaged(try JPEGScanlines(file: file, path: path), by: 1, path: path)
    }

    /// libjpeg reports a short file as "Premature end of JPEG file" (JWRN_JPEG_EOF).
    private static func classify(_ text: String) -> ContentError.Reason {
        text.contains("Premature end") ? .truncated(detail: text) : .corrupt(detail: text)
    }
}
