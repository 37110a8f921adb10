import CCairo
import FlickCore

/// One file's pages, parsed: their sizes, and a page drawn onto a cairo context whose user space
/// is the page's points (origin at its top-left). A PDF (`PDFPages`) or an SVG (`SVGPage`).
public protocol PageSource: AnyObject {
    /// Each page's size in points, in order.
    var pageSizes: [DocumentPageSize] { get }
    /// Draws page `index` (0-based) onto `context`; false when it cannot (a page found broken
    /// only now): its tiles are answered undrawn.
    func draw(page index: Int, on context: OpaquePointer) -> Bool
    /// The links on page `index` (0-based in this source), in the page's points from its
    /// top-left, a target page counted in this source too (`Document` makes both the whole
    /// document's, and a target outside this source's pages `missing`).
    func links(page index: Int) -> [PageLink]
}

extension PageSource {
    /// No links: an image page has none.
    public func links(page index: Int) -> [PageLink] { [] }
}

/// Opens a document file's bytes as the kind they are.
public enum PageSources {
    /// Parses `bytes` (the file `name`) as a PDF, an SVG, or a PNG or JPEG page, by their first
    /// bytes; an image's pixels go to `images` when drawn, at most `limit` bytes of them.
    /// - Throws: `DocumentError`: `notADocument` for none of them, or the parser's refusal.
    public static func open(_ bytes: [UInt8], name: String, images: DecodedImages, limit: Int) throws(DocumentError) -> any PageSource {
        if isImage(bytes.prefix(8), name: name) { return try ImagePage(.memory(bytes), name: name, images: images, limit: limit) }
        switch DocumentKind.sniff(bytes) {
        case .pdf: return try PDFPages(bytes, name: name)
        case .svg: return try SVGPage(bytes, name: name)
        case nil:
            throw DocumentError(file: name, reason: .notADocument,
                                detail: "is neither a PDF (no %PDF- header in its first 1024 bytes) nor an SVG (no <svg> element first) "
                                    + "nor a PNG or JPEG image")
        }
    }

    /// Opens the file behind `fd` (read from offset 0, never by a path): an image page reads it
    /// again when decoded (a folder of photos is not held in memory); a PDF or an SVG is read
    /// whole, at most `limit` bytes.
    /// - Throws: `DocumentError` naming the file.
    public static func open(fd: Int32, name: String, images: DecodedImages, limit: Int) throws(DocumentError) -> any PageSource {
        let size = try DocumentBytes.size(fd: fd, name: name)
        let file = ImageBytes.descriptor(fd, size: size)
        if isImage(file.read(offset: 0, count: 8), name: name) {
            return try ImagePage(file, name: name, images: images, limit: limit)
        }
        return try open(DocumentBytes.read(fd: fd, name: name, limit: limit), name: name, images: images, limit: limit)
    }

    /// Whether a file is an image page: a PNG or JPEG by its first bytes, and not named as a
    /// document (`menu.pdf` holding a PNG is a file that claims to be a PDF and is not: refused).
    private static func isImage(_ head: some Collection<UInt8>, name: String) -> Bool {
        let lower = name.lowercased()
        return ImageHeader.sniff(head) != nil && !lower.hasSuffix(".pdf") && !lower.hasSuffix(".svg")
    }
}

extension String {
    /// Without the blanks and line ends the libraries' messages end with (libxml2's `\n`).
    func trimmingBlanksAndNewlines() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
