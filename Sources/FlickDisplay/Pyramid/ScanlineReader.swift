import FlickSystem
import Glibc

/// An image read from the top, one row at a time, into memory the caller owns: what lets the
/// pyramid builder stream an image of any size.
protocol ScanlineReader: AnyObject {
    /// Columns.
    var width: Int { get }
    /// Rows.
    var height: Int { get }
    /// Whether rows carry alpha: 4 bytes a pixel (R, G, B, straight A), else 3 (R, G, B).
    var hasAlpha: Bool { get }
    /// Decodes the next row into `row` (`width × 3` or `width × 4` bytes).
    /// - Throws: `ContentError` naming the file (truncated, corrupt).
    func readRow(into row: UnsafeMutablePointer<UInt8>) throws
}

extension ScanlineReader {
    /// Bytes per pixel of a row.
    var channels: Int { hasAlpha ? 4 : 3 }
}

enum ScanlineReaders {
    /// Opens `path` as a PNG or a JPEG, judged by its first bytes, and reads its header.
    /// - Throws: `ContentError` naming `path`.
    static func open(_ path: String) throws -> any ScanlineReader {
        guard let file = fopen(path, "rbe") else { throw ContentError(path: path, reason: .unreadable(.current("fopen", path))) }
        var magic = [UInt8](repeating: 0, count: 8)
        let count = fread(&magic, 1, 8, file)
        if ferror(file) != 0 {
            let error = SystemError.current("fread", path)
            fclose(file)
            throw ContentError(path: path, reason: .unreadable(error))
        }
        rewind(file)
        if count == 0 {
            fclose(file)
            throw ContentError(path: path, reason: .empty)
        }
        if count == 8 && magic == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            return try PNGScanlines(file: file, path: path)
        }
        if count >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF {
            return try JPEGScanlines(file: file, path: path)
        }
        fclose(file)
        throw ContentError(path: path, reason: .unsupportedFormat)
    }
}
