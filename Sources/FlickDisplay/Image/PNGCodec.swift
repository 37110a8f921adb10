import FlickCore
import FlickSystem
import CSpng
import Glibc

/// PNG decoding and encoding through libspng.
///
/// Decoding is hardened against hostile files: the image size is checked against the caller's
/// pixel budget from the header, before any pixel memory is allocated, and chunk sizes are capped
/// (`spng_set_image_limits`, `spng_set_chunk_limits`).
public enum PNGCodec {
    /// The largest chunk accepted (bytes); real images use far smaller ones.
    static let chunkSizeLimit = 16 << 20
    /// The most memory spent caching ancillary chunks (bytes).
    static let chunkCacheLimit = 64 << 20

    /// Decodes a PNG into premultiplied `argb8888` pixels (`xrgb8888` when fully opaque).
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - path: the file name, used only in errors.
    ///   - pixelBudget: the most pixels the image may have.
    /// - Throws: `ContentError` naming `path`.
    public static func decode(_ data: [UInt8], path: String, pixelBudget: Int) throws -> PixelBuffer {
        // zlib's Adler-32 of the inflated bytes was the largest single cost of a decode (15 %,
        // Debian's zlib has no SIMD Adler-32); the chunks' CRC-32, still checked, already covers
        // every compressed byte of the file, so a damaged file is still refused.
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else {
            throw ContentError(path: path, reason: .outOfMemory(width: 0, height: 0))
        }
        defer { spng_ctx_free(ctx) }
        let side = UInt32(clamping: min(pixelBudget, 1 << 16))
        spng_set_image_limits(ctx, side, side)
        spng_set_chunk_limits(ctx, chunkSizeLimit, chunkCacheLimit)
        return try data.withUnsafeBytes { raw in
            func fail(_ code: Int32) -> ContentError { ContentError(path: path, reason: reason(for: code)) }
            var code = spng_set_png_buffer(ctx, raw.baseAddress, raw.count)
            guard code == 0 else { throw fail(code) }
            var ihdr = spng_ihdr()
            code = spng_get_ihdr(ctx, &ihdr)
            guard code == 0 else { throw fail(code) }
            let width = Int(ihdr.width), height = Int(ihdr.height)
            guard width * height <= pixelBudget else {
                throw ContentError(path: path, reason: .overPixelBudget(width: width, height: height, budget: pixelBudget))
            }
            var length = 0
            code = spng_decoded_image_size(ctx, Int32(SPNG_FMT_RGBA8.rawValue), &length)
            guard code == 0 else { throw fail(code) }
            // Alpha only when the file can carry it: an alpha colour type or a tRNS chunk.
            var trns = spng_trns()
            let hasAlpha = ihdr.color_type == 4 || ihdr.color_type == 6 || spng_get_trns(ctx, &trns) == 0
            guard let buffer = PixelBuffer(width: width, height: height, format: hasAlpha ? .argb8888 : .xrgb8888),
                  length == buffer.stride * height else {
                throw ContentError(path: path, reason: .outOfMemory(width: width, height: height))
            }
            if !hasAlpha && ihdr.color_type == 2 && ihdr.bit_depth == 8 && ihdr.interlace_method == 0 {
                try decodeOpaqueRows(ctx, into: buffer, fail: fail)
                return buffer
            }
            code = spng_decode_image(ctx, buffer.pixels, length, Int32(SPNG_FMT_RGBA8.rawValue),
                                     Int32(SPNG_DECODE_TRNS.rawValue))
            guard code == 0 else { throw fail(code) }
            premultiplyRGBAToARGB(buffer)
            return buffer
        }
    }

    /// Decodes a plain 8-bit RGB image row by row as RGB (libspng's fastest output: no
    /// per-pixel conversion of its own) and widens each row to `xrgb8888` in place. Content
    /// loading is most of the time to the first frame, and this halves libspng's share.
    private static func decodeOpaqueRows(_ ctx: OpaquePointer, into buffer: PixelBuffer,
                                         fail: (Int32) -> ContentError) throws {
        var code = spng_decode_image(ctx, nil, 0, Int32(SPNG_FMT_RGB8.rawValue), Int32(SPNG_DECODE_PROGRESSIVE.rawValue))
        guard code == 0 else { throw fail(code) }
        let width = buffer.width
        for y in 0..<buffer.height {
            let row = buffer.pixels + y * buffer.stride
            // RGB goes in the row's last three quarters: widening from the left never writes
            // over bytes not yet read (word x ends before RGB pixel x + 1 begins).
            // Raw (untyped) accesses: the bytes and the words share memory.
            let rgb = row + width
            code = spng_decode_row(ctx, rgb, width * 3)
            guard code == 0 || (code == Int32(SPNG_EOI.rawValue) && y == buffer.height - 1) else { throw fail(code) }
            widen(rgb, into: row, count: width)
        }
    }

    /// Writes `count` RGB byte triples as `xrgb8888` words; `words` may start before `rgb` in
    /// the same memory as long as word *x* ends before triple *x* + 4 begins (it does for
    /// `decodeOpaqueRows`' layout). Four pixels at a time from three 32-bit loads: a third of
    /// the loads of a byte-wise loop.
    @inline(__always)
    static func widen(_ rgb: UnsafeRawPointer, into words: UnsafeMutableRawPointer, count: Int) {
        var x = 0
        while x + 4 <= count {
            let a = UInt32(littleEndian: rgb.loadUnaligned(fromByteOffset: 3 * x, as: UInt32.self))      // r0 g0 b0 r1
            let b = UInt32(littleEndian: rgb.loadUnaligned(fromByteOffset: 3 * x + 4, as: UInt32.self))  // g1 b1 r2 g2
            let c = UInt32(littleEndian: rgb.loadUnaligned(fromByteOffset: 3 * x + 8, as: UInt32.self))  // b2 r3 g3 b3
            let p0 = (a & 0xFF) << 16 | (a & 0xFF00) | (a >> 16) & 0xFF
            let p1 = (a >> 24) << 16 | (b & 0xFF) << 8 | (b >> 8) & 0xFF
            let p2 = (b >> 16 & 0xFF) << 16 | (b >> 24) << 8 | (c & 0xFF)
            let p3 = (c >> 8 & 0xFF) << 16 | (c >> 16 & 0xFF) << 8 | c >> 24
            words.storeBytes(of: 0xFF00_0000 | p0, toByteOffset: 4 * x, as: UInt32.self)
            words.storeBytes(of: 0xFF00_0000 | p1, toByteOffset: 4 * x + 4, as: UInt32.self)
            words.storeBytes(of: 0xFF00_0000 | p2, toByteOffset: 4 * x + 8, as: UInt32.self)
            words.storeBytes(of: 0xFF00_0000 | p3, toByteOffset: 4 * x + 12, as: UInt32.self)
            x += 4
        }
        while x < count {
            let r = UInt32(rgb.load(fromByteOffset: 3 * x, as: UInt8.self))
            let g = UInt32(rgb.load(fromByteOffset: 3 * x + 1, as: UInt8.self))
            let b = UInt32(rgb.load(fromByteOffset: 3 * x + 2, as: UInt8.self))
            words.storeBytes(of: 0xFF00_0000 | r << 16 | g << 8 | b, toByteOffset: 4 * x, as: UInt32.self)
            x += 1
        }
    }

    /// Rewrites RGBA bytes in place as premultiplied native `0xAARRGGBB` words.
    ///
    private static func premultiplyRGBAToARGB(_ buffer: PixelBuffer) {
        if buffer.format == .xrgb8888 {
            // Opaque: a branch-free swap of red and blue that the compiler vectorises.
            for y in 0..<buffer.height {
                let row = buffer.row(y)
                for x in 0..<buffer.width {
                    let rgba = UInt32(littleEndian: row[x])
                    row[x] = 0xFF00_0000 | (rgba & 0xFF) << 16 | (rgba & 0xFF00) | (rgba >> 16) & 0xFF
                }
            }
            return
        }
        for y in 0..<buffer.height {
            let row = buffer.row(y)
            for x in 0..<buffer.width {
                // Bytes R, G, B, A in memory read as the word 0xAABBGGRR on little-endian.
                let rgba = UInt32(littleEndian: row[x])
                let r = rgba & 0xFF, g = (rgba >> 8) & 0xFF, b = (rgba >> 16) & 0xFF, a = rgba >> 24
                if a == 255 {
                    row[x] = 0xFF00_0000 | r << 16 | g << 8 | b
                } else {
                    // Rounded x·a/255 without a division.
                    func mul(_ c: UInt32) -> UInt32 { let t = c * a + 128; return (t + (t >> 8)) >> 8 }
                    row[x] = a << 24 | mul(r) << 16 | mul(g) << 8 | mul(b)
                }
            }
        }
    }

    private static func reason(for code: Int32) -> ContentError.Reason {
        let text = String(cString: spng_strerror(code))
        switch code {
        case SPNG_IO_EOF.rawValue, Int32(SPNG_EOF.rawValue): return .truncated(detail: text)
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue):
            return .corrupt(detail: "dimensions over the accepted limit: \(text)")
        default: return .corrupt(detail: text)
        }
    }

    /// Encodes pixels as an 8-bit RGB PNG (RGBA when the buffer is `.argb8888`).
    ///
    /// - Returns: the PNG file's bytes.
    /// - Throws: `PNGWriteError` with `path` `"<memory>"` when libspng fails.
    public static func encode(_ buffer: PixelBuffer, compressionLevel: Int32 = 1) throws -> [UInt8] {
        let alpha = buffer.format == .argb8888
        let channels = alpha ? 4 : 3
        var rows = [UInt8](repeating: 0, count: buffer.width * buffer.height * channels)
        var i = 0
        for y in 0..<buffer.height {
            let row = buffer.row(y)
            for x in 0..<buffer.width {
                let p = row[x]
                var r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF
                let a = p >> 24
                if alpha && a != 255 && a != 0 {
                    // Back to straight alpha, as PNG stores it.
                    r = min(255, (r * 255 + a / 2) / a); g = min(255, (g * 255 + a / 2) / a); b = min(255, (b * 255 + a / 2) / a)
                }
                rows[i] = UInt8(r); rows[i + 1] = UInt8(g); rows[i + 2] = UInt8(b)
                if alpha { rows[i + 3] = UInt8(a) }
                i += channels
            }
        }
        return try rows.withUnsafeBytes { bytes in
            try encodeRows(width: buffer.width, height: buffer.height, alpha: alpha, compressionLevel: compressionLevel) { y in
                UnsafeRawPointer(bytes.baseAddress! + y * buffer.width * channels)
            }
        }
    }

    /// Encodes 8-bit RGB (or straight RGBA) rows, asked for one at a time from the top, as a
    /// PNG in memory; the rows need not be contiguous (the pyramid builder's tiles are windows
    /// of a wider band).
    ///
    /// - Parameter row: the bytes of row `y`, `width × 3` (× 4 with `alpha`).
    /// - Returns: the PNG file's bytes.
    /// - Throws: `PNGWriteError` with `path` `"<memory>"` when libspng fails.
    static func encodeRows(width: Int, height: Int, alpha: Bool, compressionLevel: Int32,
                           filters: Int32 = Int32(SPNG_FILTER_CHOICE_ALL.rawValue),
                           row: (Int) -> UnsafeRawPointer) throws -> [UInt8] {
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw PNGWriteError(path: "<memory>", reason: .encode("out of memory"))
        }
        defer { spng_ctx_free(ctx) }
        func check(_ code: Int32) throws {
            if code != 0 { throw PNGWriteError(path: "<memory>", reason: .encode(String(cString: spng_strerror(code)))) }
        }
        try check(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1))
        try check(spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, compressionLevel))
        try check(spng_set_option(ctx, SPNG_FILTER_CHOICE, filters))
        var ihdr = spng_ihdr(width: UInt32(width), height: UInt32(height), bit_depth: 8,
                             color_type: UInt8(alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue : SPNG_COLOR_TYPE_TRUECOLOR.rawValue),
                             compression_method: 0, filter_method: 0, interlace_method: 0)
        try check(spng_set_ihdr(ctx, &ihdr))
        try check(spng_encode_image(ctx, nil, 0, Int32(SPNG_FMT_PNG.rawValue),
                                    Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)))
        let rowBytes = width * (alpha ? 4 : 3)
        for y in 0..<height {
            let code = spng_encode_row(ctx, row(y), rowBytes)
            // The last row ends the image: libspng says so with SPNG_EOI.
            guard code == 0 || (code == Int32(SPNG_EOI.rawValue) && y == height - 1) else { try check(code); return [] }
        }
        var length = 0
        var error: Int32 = 0
        guard let png = spng_get_png_buffer(ctx, &length, &error) else {
            try check(error == 0 ? Int32(SPNG_EINTERNAL.rawValue) : error)
            return []
        }
        defer { free(png) }
        return Array(UnsafeRawBufferPointer(start: png, count: length))
    }

    /// Encodes `buffer` and writes it into a file someone else opened and passed (a control
    /// client's `snapshot`): only a regular file open for writing, so a pipe or socket that is
    /// never read cannot hold the writer.
    ///
    /// - Parameters:
    ///   - fd: the open file; left open.
    ///   - name: how errors name it.
    /// - Throws: `PNGWriteError` naming `name`.
    public static func write(_ buffer: PixelBuffer, into fd: Int32, name: String) throws {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw PNGWriteError(path: name, reason: .notARegularFile)
        }
        let access = fcntl(fd, F_GETFL) & O_ACCMODE
        guard access == O_WRONLY || access == O_RDWR else { throw PNGWriteError(path: name, reason: .notWritable) }
        let bytes = try encode(buffer, naming: name)
        do {
            try writeWhole(bytes, to: fd, context: name)
        } catch {
            throw PNGWriteError(path: name, reason: .io(error))
        }
    }

    /// Encodes `buffer` and writes it to `path` (created or replaced).
    ///
    /// - Throws: `PNGWriteError` naming `path`.
    public static func write(_ buffer: PixelBuffer, to path: String) throws {
        let bytes = try encode(buffer, naming: path)
        if case .failure(let error) = FileIO.write(bytes, to: path) {
            throw PNGWriteError(path: path, reason: .io(error))
        }
    }

    /// `encode(_:)`, its error naming where the PNG was going.
    private static func encode(_ buffer: PixelBuffer, naming name: String) throws -> [UInt8] {
        do { return try encode(buffer) } catch var error as PNGWriteError {
            error.path = name
            throw error
        }
    }
}

/// Why a PNG could not be written.
public struct PNGWriteError: FlickError, Hashable, Sendable {
    /// The file that was being written.
    public var path: String
    /// What failed.
    public var reason: Reason

    /// What failed while writing a PNG.
    public enum Reason: Hashable, Sendable {
        /// libspng refused to encode (its message).
        case encode(String)
        /// Writing the file failed.
        case io(SystemError)
        /// A passed file is not a regular file (a pipe, a socket, a device).
        case notARegularFile
        /// A passed file was not opened for writing.
        case notWritable
    }

    public var context: ErrorContext {
        switch reason {
        case .encode(let message): ErrorContext(source: path, reason: "cannot encode PNG: \(message)")
        case .io(let error): ErrorContext(source: path, reason: "cannot write PNG: \(error.errnoDescription)")
        case .notARegularFile: ErrorContext(source: path, reason: "not a regular file", expected: "a file opened for writing")
        case .notWritable: ErrorContext(source: path, reason: "not opened for writing", expected: "a file opened for writing")
        }
    }

    public var kind: ErrorKind { .io }
}
