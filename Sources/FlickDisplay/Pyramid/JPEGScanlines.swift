import CJPEGRows
import Glibc

/// A JPEG read row by row through libjpeg's scanline API (libjpeg-turbo decodes one band of
/// 8 or 16 rows, an iMCU row, at a time), as RGB.
final class JPEGScanlines: ScanlineReader {
    let width: Int
    let height: Int
    let hasAlpha = false
    private let path: String
    private let file: UnsafeMutablePointer<FILE>
    private let rows: OpaquePointer

    /// The most pixels of a progressive JPEG: libjpeg keeps every coefficient of a progressive
    /// file (about 2–3 bytes a pixel) until the last scan, so a bigger one would not stream.
    static let progressivePixelLimit = 16 << 20

    /// Takes `file` (closed on deinit) and reads the header.
    /// - Throws: `ContentError` naming `path`.
    init(file: UnsafeMutablePointer<FILE>, path: String) throws {
        self.path = path
        self.file = file
        var message = [CChar](repeating: 0, count: 256)
        guard let rows = jpeg_rows_open(file, &message, message.count) else {
            fclose(file)
            throw ContentError(path: path, reason: Self.reason(Self.text(message)))
        }
        self.rows = rows
        width = Int(jpeg_rows_width(rows))
        height = Int(jpeg_rows_height(rows))
        if jpeg_rows_progressive(rows) != 0 && width * height > Self.progressivePixelLimit {
            throw ContentError(path: path, reason: .notStreamable(
                "a progressive JPEG of \(width)x\(height) would be held whole in memory (the limit is \(Self.progressivePixelLimit) pixels); save it as baseline"))
        }
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

    /// The NUL-terminated message CJPEGRows wrote.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libjpeg says a short file is a "Premature end of JPEG file" (JWRN_JPEG_EOF).
    private static func reason(_ text: String) -> ContentError.Reason {
        text.contains("Premature end") ? .truncated(detail: text) : .corrupt(detail: text)
    }
}
