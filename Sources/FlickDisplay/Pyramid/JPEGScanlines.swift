import CJPEGRows
import Glibc

/// A JPEG read row by row through libjpeg's scanline API (libjpeg-turbo decodes one band of
/// 8 or 16 rows, an iMCU row, at a time), as RGB.
final class JPEGScanlines: ScanlineReader {
    let width: Int
    let height: Int
    let hasAlpha = false
    /// The image's size, of which the rows may be a scaled version.
    let fullSize: PixelSize
    private let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let rows: OpaquePointer

    /// The most pixels of a progressive JPEG: libjpeg keeps every coefficient of a progressive
    /// file (about 2–3 bytes a pixel) until the last scan, so a bigger one would not stream.
    static let progressivePixelLimit = 16 << 20

    /// Takes `file` (closed on deinit), reads the header and starts decoding.
    /// - Parameter covering: when given, the rows are the image scaled by the IDCT (1/2, 1/4,
    ///   1/8: libjpeg-turbo's DCT scaling) as far as they still cover the size it gives for the
    ///   image's full size.
    /// - Throws: `ContentError` naming `path`.
    init(file: UnsafeMutablePointer<FILE>, path: String, covering: ((PixelSize) -> PixelSize)? = nil) throws {
        self.path = path
        self.file = file
        var message = [CChar](repeating: 0, count: 256)
        guard let rows = jpeg_rows_open(file, &message, message.count) else {
            fclose(file)
            throw ContentError(path: path, reason: Self.reason(Self.text(message)))
        }
        self.rows = rows
        let full = PixelSize(width: Int(jpeg_rows_image_width(rows)), height: Int(jpeg_rows_image_height(rows)))
        fullSize = full
        // Checked before starting: starting a progressive file reads all of it into memory.
        if jpeg_rows_progressive(rows) != 0 && full.area > Self.progressivePixelLimit {
            (width, height) = (full.width, full.height)
            throw ContentError(path: path, reason: .notStreamable(
                "a progressive JPEG of \(full) would be held whole in memory (the limit is \(Self.progressivePixelLimit) pixels); save it as baseline"))
        }
        let denominator = covering.map { ReducedDecoder.dctDenominator(full, covering: $0(full)) } ?? 1
        guard jpeg_rows_start(rows, Int32(denominator), &message, message.count) == 0 else {
            (width, height) = (full.width, full.height)
            throw ContentError(path: path, reason: Self.reason(Self.text(message)))
        }
        width = Int(jpeg_rows_width(rows))
        height = Int(jpeg_rows_height(rows))
    }

    deinit {
        jpeg_rows_close(rows)
        fclose(file)
    }

    func readRow(into row: UnsafeMutablePointer<UInt8>) throws {
        var message = [CChar](repeating: 0, count: 256)
        var pointer: UnsafeMutablePointer<UInt8>? = row
        let count = jpeg_rows_read(rows, &pointer, 1, &message, message.count)
        guard count == 1 else {
            throw ContentError(path: path, reason: count < 0 ? Self.reason(Self.text(message))
                                                           : .truncated(detail: "no more rows"))
        }
    }

    func skipRows(_ count: Int) throws {
        var message = [CChar](repeating: 0, count: 256)
        var left = count
        while left > 0 {
            let skipped = Int(jpeg_rows_skip(rows, Int32(clamping: left), &message, message.count))
            if skipped < 0 { throw ContentError(path: path, reason: Self.reason(Self.text(message))) }
            if skipped == 0 { throw ContentError(path: path, reason: .truncated(detail: "no more rows")) }
            left -= skipped
        }
    }

    /// The NUL-terminated message CJPEGRows wrote.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libjpeg says a short file is a "Premature end of JPEG file" (JWRN_JPEG_EOF).
    private static func reason(_ text: String) -> ContentError.Reason {
        text.contains("Premature end") ? .truncated(detail: text) : .corrupt(detail: text)
    }
}
