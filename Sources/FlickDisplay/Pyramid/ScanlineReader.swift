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
    /// Passes over the next `count` rows (there must be as many left) without giving them.
    /// - Throws: `ContentError` naming the file (truncated, corrupt).
    func skipRows(_ count: Int) throws
}

extension ScanlineReader {
    /// Bytes per pixel of a row.
    var channels: Int { hasAlpha ? 4 : 3 }

    /// Decodes the rows and drops them: a format that cannot skip must decode what it passes.
    func skipRows(_ count: Int) throws {
        guard count > 0 else { return }
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * channels)
        defer { row.deallocate() }
        for _ in 0..<count { try readRow(into: row) }
    }
}

enum ScanlineReaders {
    /// Opens `path` as a PNG, a JPEG or a WebP, judged by its first bytes, and reads its header.
    /// - Parameter covering: a JPEG's rows may be scaled by its IDCT as far as they still cover
    ///   the size this gives for its full size (`JPEGScanlines`); other formats give the full size.
    /// - Throws: `ContentError` naming `path`.
    static func open(_ path: String, covering: ((PixelSize) -> PixelSize)? = nil) throws -> any ScanlineReader {
        guard let file = fopen(path, "rbe") else { throw ContentError(path: path, reason: .unreadable(.current("fopen", path))) }
        var magic = [UInt8](repeating: 0, count: ImageFormat.signatureLength)
        let count = fread(&magic, 1, magic.count, file)
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
        switch ImageFormat(signature: magic.prefix(count)) {
        case .png: return try PNGScanlines(file: file, path: path)
        case .jpeg: return try JPEGScanlines(file: file, path: path, covering: covering)
        case .webp: return try WebPScanlines(file: file, path: path)
        case nil:
            fclose(file)
            throw ContentError(path: path, reason: .unsupportedFormat)
        }
    }
}
