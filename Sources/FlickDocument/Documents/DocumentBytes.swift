import FlickSystem
import Glibc

/// What a document file is, by its first bytes (never by its name).
public enum DocumentKind: String, Hashable, Sendable {
    /// `%PDF-` within the first 1024 bytes (where PDF readers look for the header).
    case pdf
    /// XML whose first element is `<svg`, after an optional byte-order mark, blanks, an XML
    /// declaration, comments and a doctype.
    case svg

    /// The kind of `bytes`, or `nil` for neither.
    public static func sniff(_ bytes: [UInt8]) -> DocumentKind? {
        let header = Array("%PDF-".utf8)
        let window = bytes.prefix(1024)
        if window.count >= header.count {
            for start in 0...(window.count - header.count) where window[start] == header[0] {
                if Array(window[start..<(start + header.count)]) == header { return .pdf }
            }
        }
        return looksLikeSVG(bytes) ? .svg : nil
    }

    /// Whether the first element of `bytes` (within the first 64 KiB) is `svg`.
    private static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let end = min(bytes.count, 65_536)
        func skipBlanks() { while i < end, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        func starts(_ text: String) -> Bool { bytes[i..<end].starts(with: Array(text.utf8)) }
        /// Moves past the next `close`.
        func skip(past close: String) -> Bool {
            while i < end, !starts(close) { i += 1 }
            guard i < end else { return false }
            i += close.utf8.count
            return true
        }
        /// Moves past the `>` that closes the `<` at `i` (a doctype's internal subset nests).
        func skipNested() -> Bool {
            var depth = 0
            while i < end {
                if bytes[i] == UInt8(ascii: "<") { depth += 1 }
                if bytes[i] == UInt8(ascii: ">") { depth -= 1 }
                i += 1
                if depth == 0 { return true }
            }
            return false
        }
        while true {
            skipBlanks()
            if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else if starts("<!DOCTYPE") || starts("<!doctype") {
                guard skipNested() else { return false }
            } else {
                guard starts("<svg"), i + 4 < end else { return false }
                return [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(bytes[i + 4])
            }
        }
    }
}

/// A document file's bytes, read from the descriptor flickd passed (from offset 0, whatever the
/// descriptor's position: `pread`), never from a path.
public enum DocumentBytes {
    /// Reads the whole file behind `fd`, at most `limit` bytes.
    /// - Throws: `DocumentError` (`unsupported` for a file over `limit`, `truncated` when it
    ///   cannot be read: the descriptor names no regular file, or the read fails).
    public static func read(fd: Int32, name: String, limit: Int) throws(DocumentError) -> [UInt8] {
        let size = try size(fd: fd, name: name)
        guard size <= limit else {
            throw DocumentError(file: name, reason: .outOfMemory,
                                detail: "is \(size) bytes; at most \(limit) fit in the helper's memory (content.render_memory_mb)")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return pread(fd, base + done, size - done, off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                let why = got == 0 ? "ends at byte \(done) of \(size)" : SystemError.current("pread", name).message
                throw DocumentError(file: name, reason: .truncated, detail: "cannot be read: \(why)")
            }
            done += got
        }
        return bytes
    }

    /// The size of the regular file behind `fd`.
    /// - Throws: `DocumentError` (`truncated` when `fstat` fails, `notADocument` for no regular file).
    static func size(fd: Int32, name: String) throws(DocumentError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw DocumentError(file: name, reason: .truncated, detail: "cannot be read: \(SystemError.current("fstat", name).message)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw DocumentError(file: name, reason: .notADocument, detail: "is not a regular file")
        }
        return Int(info.st_size)
    }
}
