import CSpng
import FlickSystem
import Glibc

/// Writes a PNG file row by row (libspng's progressive encoding), so an image of any size is
/// written with one row in memory: the map generator's 30000×30000 PNG needs no 3.6 GB buffer.
public final class PNGStreamWriter {
    /// The file being written.
    public let path: String
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Whether rows carry straight (not premultiplied) alpha: RGBA, else RGB.
    public let alpha: Bool
    private let ctx: OpaquePointer
    private let file: UnsafeMutablePointer<FILE>
    private var rowsWritten = 0
    private var closed = false

    /// Creates (or truncates) `path` and writes the PNG header.
    ///
    /// - Parameters:
    ///   - compressionLevel: zlib's level, 0–9.
    /// - Throws: `PNGWriteError` naming `path`.
    public init(path: String, width: Int, height: Int, alpha: Bool = false, compressionLevel: Int32 = 6) throws {
        self.path = path
        self.width = width
        self.height = height
        self.alpha = alpha
        guard width > 0, height > 0, width < Int(Int32.max), height < Int(Int32.max) else {
            throw PNGWriteError(path: path, reason: .encode("invalid size \(width)x\(height)"))
        }
        guard let file = fopen(path, "wbe") else { throw PNGWriteError(path: path, reason: .io(.current("fopen", path))) }
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            fclose(file)
            throw PNGWriteError(path: path, reason: .encode("out of memory"))
        }
        self.file = file
        self.ctx = ctx
        var ihdr = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                             color_type: UInt8(alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue : SPNG_COLOR_TYPE_TRUECOLOR.rawValue),
                             compression_method: 0, filter_method: 0, interlace_method: 0)
        do {
            try check(spng_set_png_file(ctx, file))
            try check(spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, compressionLevel))
            try check(spng_set_ihdr(ctx, &ihdr))
            try check(spng_encode_image(ctx, nil, 0, Int32(SPNG_FMT_PNG.rawValue),
                                        Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)))
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Writes the next row: `width × 3` bytes (× 4 with `alpha`).
    /// - Throws: `PNGWriteError` naming the file (libspng's message, or the write's).
    public func write(row: UnsafeRawPointer) throws {
        precondition(!closed && rowsWritten < height, "row \(rowsWritten + 1) of a \(height)-row PNG")
        let code = spng_encode_row(ctx, row, width * (alpha ? 4 : 3))
        rowsWritten += 1
        // The last row ends the image: libspng says so with SPNG_EOI.
        if code == Int32(SPNG_EOI.rawValue) && rowsWritten == height { return }
        try check(code)
    }

    /// Closes the file once every row is written.
    /// - Throws: `PNGWriteError` when rows are missing or the file could not be flushed.
    public func finish() throws {
        guard rowsWritten == height else {
            close()
            throw PNGWriteError(path: path, reason: .encode("\(rowsWritten) of \(height) rows written"))
        }
        spng_ctx_free(ctx)
        closed = true
        // fclose flushes stdio's buffer: a full disk shows here, not before.
        if fclose(file) != 0 { throw PNGWriteError(path: path, reason: .io(.current("fclose", path))) }
    }

    private func close() {
        guard !closed else { return }
        closed = true
        spng_ctx_free(ctx)
        fclose(file)
    }

    private func check(_ code: Int32) throws {
        guard code != 0 else { return }
        if code == Int32(SPNG_IO_ERROR.rawValue), errno != 0 { throw PNGWriteError(path: path, reason: .io(.current("write", path))) }
        throw PNGWriteError(path: path, reason: .encode(String(cString: spng_strerror(code))))
    }
}
