import FlickSystem
import Glibc

/// Where an image page's bytes come from each time it is decoded: the descriptor flickd passed
/// (read again with `pread`, so a folder of hundreds of photos is not held in memory), or bytes
/// already in memory (the tests, the fuzz target).
public enum ImageBytes: Sendable {
    /// A regular file's descriptor and its size.
    case descriptor(Int32, size: Int)
    /// The whole file.
    case memory([UInt8])

    /// The file's size in bytes.
    var size: Int {
        switch self {
        case let .descriptor(_, size): size
        case let .memory(bytes): bytes.count
        }
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file or when a read fails).
    func read(offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        switch self {
        case let .memory(bytes):
            return Array(bytes[offset..<(offset + wanted)])
        case let .descriptor(fd, _):
            var bytes = [UInt8](repeating: 0, count: wanted)
            var done = 0
            while done < wanted {
                let got = bytes.withUnsafeMutableBytes { buffer in
                    guard let base = buffer.baseAddress else { return 0 }
                    return pread(fd, base + done, wanted - done, off_t(offset + done))
                }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                done += got
            }
            return Array(bytes[..<done])
        }
    }
}

/// A PNG or JPEG page's kind and size in pixels, read from its header alone (the pixels are
/// decoded only when a tile needs them).
public struct ImageHeader: Hashable, Sendable {
    /// The two kinds of image a folder's pages may be.
    public enum Kind: String, Hashable, Sendable {
        /// `\x89PNG\r\n\x1A\n`.
        case png
        /// `\xFF\xD8\xFF`.
        case jpeg
    }

    /// The image's kind.
    public var kind: Kind
    /// Its size in pixels.
    public var width: Int, height: Int

    /// The kind `bytes` (a file's first bytes) start with, or `nil` for neither.
    public static func sniff(_ bytes: some Collection<UInt8>) -> Kind? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return nil
    }

    /// Reads the header of `file` (`name` in messages).
    /// - Throws: `DocumentError` (`truncated`) when the header ends early or holds no size.
    static func read(_ file: ImageBytes, name: String) throws(DocumentError) -> ImageHeader {
        let head = file.read(offset: 0, count: 32)
        switch sniff(head) {
        case .png:
            // The first chunk is IHDR: its width and height, big-endian, at bytes 16 and 20.
            guard head.count >= 24, Array(head[12..<16]) == Array("IHDR".utf8) else {
                throw DocumentError(file: name, reason: .truncated, detail: "is a PNG cut short or damaged: no IHDR chunk after its signature")
            }
            return try sized(.png, bigEndian(head, 16, 4), bigEndian(head, 20, 4), name: name)
        case .jpeg:
            return try jpeg(file, name: name)
        case nil:
            throw DocumentError(file: name, reason: .notADocument, detail: "is neither a PNG nor a JPEG by its first bytes")
        }
    }

    /// Walks a JPEG's markers to its start of frame (SOF0…SOF15 but DHT, JPG and DAC), which
    /// holds the height and width; APPn segments (Exif, thumbnails) before it are skipped unread.
    private static func jpeg(_ file: ImageBytes, name: String) throws(DocumentError) -> ImageHeader {
        var offset = 2
        // A marker and its segment's length per step: 65 536 steps pass any sane header.
        for _ in 0..<65_536 {
            let marker = file.read(offset: offset, count: 9)
            guard marker.count >= 4, marker[0] == 0xFF else { break }
            let code = marker[1]
            if code == 0xFF { offset += 1; continue }  // fill bytes
            if code == 0x01 || (0xD0...0xD7).contains(code) { offset += 2; continue }  // no length
            let length = bigEndian(marker, 2, 2)
            if (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                guard marker.count >= 9, length >= 7 else { break }
                return try sized(.jpeg, bigEndian(marker, 7, 2), bigEndian(marker, 5, 2), name: name)
            }
            guard code != 0xDA, code != 0xD9, length >= 2 else { break }  // scan data or the end before a frame
            offset += 2 + length
        }
        throw DocumentError(file: name, reason: .truncated, detail: "is a JPEG cut short or damaged: no frame header (SOF) giving its size")
    }

    /// Whether `bytes` (the whole file) run to the image's end: a PNG's chunks to `IEND`, a
    /// JPEG's segments and scans to EOI. gdk-pixbuf hands back a file cut short as a whole image
    /// without an error (its missing rows blank), so this is how a damaged page is told.
    static func isComplete(_ bytes: [UInt8], kind: Kind) -> Bool {
        switch kind {
        case .png:
            var offset = 8
            while offset + 12 <= bytes.count {
                let length = bigEndian(bytes, offset, 4)
                if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IEND".utf8) { return true }
                offset += 12 + length
            }
            return false
        case .jpeg:
            var offset = 2
            var inScan = false
            while offset + 1 < bytes.count {
                guard bytes[offset] == 0xFF else {
                    // Only entropy-coded data lies between markers, and only in a scan.
                    guard inScan else { return false }
                    offset += 1
                    continue
                }
                let code = bytes[offset + 1]
                switch code {
                case 0xD9: return true
                case 0xFF: offset += 1  // fill bytes
                case 0x00, 0xD0...0xD7: offset += 2  // a stuffed 0xFF or a restart, inside a scan
                case 0x01: offset += 2
                default:
                    guard offset + 3 < bytes.count else { return false }
                    offset += 2 + bigEndian(bytes, offset + 2, 2)
                    inScan = code == 0xDA
                }
            }
            return false
        }
    }

    private static func sized(_ kind: Kind, _ width: Int, _ height: Int, name: String) throws(DocumentError) -> ImageHeader {
        guard width > 0, height > 0 else {
            throw DocumentError(file: name, reason: .truncated, detail: "is a \(kind.rawValue.uppercased()) of \(width) × \(height) pixels: damaged")
        }
        return ImageHeader(kind: kind, width: width, height: height)
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        bytes[at..<(at + count)].reduce(0) { $0 << 8 | Int($1) }
    }
}
