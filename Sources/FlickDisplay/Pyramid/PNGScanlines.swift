import CSpng
import FlickSystem
import Glibc

/// A PNG read row by row with libspng's progressive decoding, straight from the file: memory
/// is a row or two and zlib's window, whatever the image's size.
final class PNGScanlines: ScanlineReader {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    private let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let ctx: OpaquePointer
    /// Rows decoded as RGBA that must be stored as RGB (opaque files other than 8-bit RGB:
    /// grey, palette, 16-bit), else nil: 8-bit RGB decodes straight into the caller's row.
    private let rgbaRow: UnsafeMutablePointer<UInt8>?
    private var rowsRead = 0

    /// Takes `file` (closed on deinit) and reads the header.
    /// - Throws: `ContentError` naming `path`.
    init(file: UnsafeMutablePointer<FILE>, path: String) throws {
        self.path = path
        self.file = file
        // As PNGCodec: the chunks' CRC-32 still covers every compressed byte.
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else {
            fclose(file)
            throw ContentError(path: path, reason: .outOfMemory(width: 0, height: 0))
        }
        self.ctx = ctx
        func fail(_ reason: ContentError.Reason) -> ContentError {
            spng_ctx_free(ctx)
            fclose(file)
            return ContentError(path: path, reason: reason)
        }
        let side = UInt32(TileGrid.maxSide)
        spng_set_image_limits(ctx, side, side)
        spng_set_chunk_limits(ctx, PNGCodec.chunkSizeLimit, PNGCodec.chunkCacheLimit)
        var code = spng_set_png_file(ctx, file)
        var ihdr = spng_ihdr()
        if code == 0 { code = spng_get_ihdr(ctx, &ihdr) }
        guard code == 0 else { throw fail(Self.reason(for: code)) }
        guard ihdr.interlace_method == 0 else {
            throw fail(.notStreamable("an interlaced (Adam7) PNG needs the whole image in memory; save it without interlacing"))
        }
        width = Int(ihdr.width)
        height = Int(ihdr.height)
        var trns = spng_trns()
        hasAlpha = ihdr.color_type == 4 || ihdr.color_type == 6 || spng_get_trns(ctx, &trns) == 0
        let direct = !hasAlpha && ihdr.color_type == 2 && ihdr.bit_depth == 8
        let format = direct ? SPNG_FMT_RGB8 : SPNG_FMT_RGBA8
        var flags = Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        if hasAlpha { flags |= Int32(SPNG_DECODE_TRNS.rawValue) }
        code = spng_decode_image(ctx, nil, 0, Int32(format.rawValue), flags)
        guard code == 0 else { throw fail(Self.reason(for: code)) }
        rgbaRow = direct || hasAlpha ? nil : .allocate(capacity: width * 4)
    }

    deinit {
        rgbaRow?.deallocate()
        spng_ctx_free(ctx)
        fclose(file)
    }

    func readRow(into row: UnsafeMutablePointer<UInt8>) throws {
        let target = rgbaRow ?? row
        let code = spng_decode_row(ctx, target, width * (rgbaRow == nil ? channels : 4))
        rowsRead += 1
        guard code == 0 || (code == Int32(SPNG_EOI.rawValue) && rowsRead == height) else {
            throw ContentError(path: path, reason: Self.reason(for: code))
        }
        if let rgba = rgbaRow {
            for x in 0..<width {
                row[3 * x] = rgba[4 * x]; row[3 * x + 1] = rgba[4 * x + 1]; row[3 * x + 2] = rgba[4 * x + 2]
            }
        }
    }

    private static func reason(for code: Int32) -> ContentError.Reason {
        let text = String(cString: spng_strerror(code))
        switch code {
        case SPNG_IO_EOF.rawValue, Int32(SPNG_EOF.rawValue): return .truncated(detail: text)
        case SPNG_IO_ERROR.rawValue: return errno != 0 ? .unreadable(.current("fread", "PNG stream")) : .corrupt(detail: text)
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue):
            return .corrupt(detail: "dimensions over the accepted \(TileGrid.maxSide): \(text)")
        default: return .corrupt(detail: text)
        }
    }
}
