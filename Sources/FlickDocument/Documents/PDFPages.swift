import CPoppler
import FlickCore

/// A PDF's pages through poppler-glib, parsed from the file's bytes in memory.
final class PDFPages: PageSource {
    /// poppler's document (its links are read in `PDFLinks.swift`).
    let document: OpaquePointer
    /// The file's name, for what its links' messages say.
    let name: String
    let pageSizes: [DocumentPageSize]

    /// Parses `bytes`; only the page count and sizes are read now, a page's content when drawn.
    init(_ bytes: [UInt8], name: String) throws(DocumentError) {
        // GBytes copies the bytes; poppler keeps a reference to it for the document's life.
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(data) }
        var failure: UnsafeMutablePointer<GError>?
        guard let document = poppler_document_new_from_bytes(data, nil, &failure) else {
            throw Self.refusal(failure, name: name)
        }
        self.document = document
        self.name = name
        let count = Int(poppler_document_get_n_pages(document))
        var sizes: [DocumentPageSize] = []
        sizes.reserveCapacity(max(0, count))
        for index in 0..<max(0, count) {
            guard let page = poppler_document_get_page(document, Int32(index)) else {
                g_object_unref(UnsafeMutableRawPointer(document))
                throw DocumentError(file: name, page: index + 1, reason: .truncated, detail: "page \(index + 1) cannot be read")
            }
            var width = 0.0, height = 0.0
            poppler_page_get_size(page, &width, &height)
            g_object_unref(UnsafeMutableRawPointer(page))
            sizes.append(DocumentPageSize(width: width, height: height))
        }
        pageSizes = sizes
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(document)) }

    func draw(page index: Int, on context: OpaquePointer) -> Bool {
        guard index >= 0, index < pageSizes.count, let page = poppler_document_get_page(document, Int32(index)) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        poppler_page_render(page, context)
        return cairo_status(context).rawValue == 0
    }

    /// poppler's refusal as a `documentError` reason.
    private static func refusal(_ failure: UnsafeMutablePointer<GError>?, name: String) -> DocumentError {
        defer { if let failure { g_error_free(failure) } }
        let said = failure.flatMap { $0.pointee.message.map { String(cString: $0).trimmingBlanksAndNewlines() } } ?? "poppler refused it"
        guard let failure, failure.pointee.domain == poppler_error_quark() else {
            return DocumentError(file: name, reason: .notADocument, detail: "is not a PDF poppler can read: \(said)")
        }
        switch UInt32(bitPattern: failure.pointee.code) {
        case POPPLER_ERROR_ENCRYPTED.rawValue:
            return DocumentError(file: name, reason: .encrypted, detail: "is encrypted: it needs a password (\(said))")
        case POPPLER_ERROR_DAMAGED.rawValue, POPPLER_ERROR_BAD_CATALOG.rawValue:
            return DocumentError(file: name, reason: .truncated, detail: "is damaged or cut short: \(said)")
        default:
            return DocumentError(file: name, reason: .notADocument, detail: "is not a PDF poppler can read: \(said)")
        }
    }
}
