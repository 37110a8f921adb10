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
}

/// Opens a document file's bytes as the kind they are.
public enum PageSources {
    /// Parses `bytes` (the file `name`) as a PDF or an SVG, by their first bytes.
    /// - Throws: `DocumentError`: `notADocument` for neither, or the parser's refusal.
    public static func open(_ bytes: [UInt8], name: String) throws(DocumentError) -> any PageSource {
        switch DocumentKind.sniff(bytes) {
        case .pdf: try PDFPages(bytes, name: name)
        case .svg: try SVGPage(bytes, name: name)
        case nil:
            throw DocumentError(file: name, reason: .notADocument,
                                detail: "is neither a PDF (no %PDF- header in its first 1024 bytes) nor an SVG (no <svg> element first)")
        }
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
