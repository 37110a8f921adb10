import CCairo
import CRsvg
import FlickCore

/// An SVG through librsvg: one page, its intrinsic size in CSS px (96 per inch) counted as points.
/// Loaded with librsvg's default limits (not `RSVG_HANDLE_FLAG_UNLIMITED`: a billion-laughs file
/// is refused) and no base file, so no reference outside the document is resolved or loaded.
final class SVGPage: PageSource {
    /// librsvg's document (measured for links in `SVGLinks.swift`).
    let handle: UnsafeMutablePointer<RsvgHandle>
    let pageSizes: [DocumentPageSize]
    /// The file's name, for what its links' messages say.
    let name: String
    /// Its `<a>` elements found before loading, each with an id librsvg measures it by.
    let scan: SVGLinkScan
    /// Its links once measured: on the first `links(page:)`, as measuring is costly and most
    /// pages are never asked.
    var measuredLinks: [PageLink]?

    /// The most links an SVG's page has: the first ones in the file.
    static let linkLimit = 1000
    /// The most sibling visits measuring an SVG's links may take (`SVGLinkScan`): about 0.3 s
    /// of librsvg 2.54 on a desktop x86-64 core, the time of a few dozen tiles.
    static let linkBudget = 4_000_000

    init(_ bytes: [UInt8], name: String) throws(DocumentError) {
        self.name = name
        // Before librsvg loads them: the ids it measures links by go into its copy of the bytes.
        scan = SVGLinkScan(bytes, limit: Self.linkLimit, budget: Self.linkBudget)
        let data = scan.loadable(bytes)
        let stream = g_memory_input_stream_new_from_bytes(data)
        g_bytes_unref(data)
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        var failure: UnsafeMutablePointer<GError>?
        guard let handle = rsvg_handle_new_from_stream_sync(stream, nil, RSVG_HANDLE_FLAGS_NONE, nil, &failure) else {
            throw Self.refusal(failure, name: name, when: "is not an SVG librsvg can read")
        }
        self.handle = handle
        rsvg_handle_set_dpi(handle, 96)
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            // Only a viewBox (or nothing): the viewBox's size is the page's.
            var hasWidth: gboolean = 0, hasHeight: gboolean = 0, hasViewBox: gboolean = 0
            var w = RsvgLength(), h = RsvgLength(), box = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &w, &hasHeight, &h, &hasViewBox, &box)
            guard hasViewBox != 0 else {
                g_object_unref(UnsafeMutableRawPointer(handle))
                throw DocumentError(file: name, reason: .unsupported,
                                    detail: "has no size of its own: its <svg> element needs a width and height, or a viewBox")
            }
            (width, height) = (box.width, box.height)
        }
        pageSizes = [DocumentPageSize(width: width, height: height)]
        // A file over librsvg's limits (too many elements or references: billion laughs) often
        // loads and fails only when drawn; a draw now, on a 1×1 surface, finds it before the first
        // tile, so it is a `documentError` and not a page of undrawn tiles.
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1) else { return }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { return }
        defer { cairo_destroy(context) }
        if width.isFinite, height.isFinite, width > 0, height > 0 { cairo_scale(context, 1 / width, 1 / height) }
        var probe = RsvgRectangle(x: 0, y: 0, width: width, height: height)
        guard rsvg_handle_render_document(handle, context, &probe, &failure) != 0 else {
            throw Self.refusal(failure, name: name, when: "cannot be drawn")
        }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    func draw(page index: Int, on context: OpaquePointer) -> Bool {
        guard index == 0, let size = pageSizes.first else { return false }
        var viewport = RsvgRectangle(x: 0, y: 0, width: size.width, height: size.height)
        var failure: UnsafeMutablePointer<GError>?
        let drawn = rsvg_handle_render_document(handle, context, &viewport, &failure) != 0
        if let failure { g_error_free(failure) }
        return drawn && cairo_status(context).rawValue == 0
    }

    /// librsvg's refusal: over its limits is `tooComplex`, anything else `notADocument`.
    private static func refusal(_ failure: UnsafeMutablePointer<GError>?, name: String, when: String) -> DocumentError {
        defer { if let failure { g_error_free(failure) } }
        let said = failure.flatMap { $0.pointee.message.map { String(cString: $0).trimmingBlanksAndNewlines() } } ?? "librsvg refused it"
        let words = said.lowercased()
        if words.contains("limit") || words.contains("exceeded") || words.contains("too many") || words.contains("loop") || words.contains("amplification") {
            return DocumentError(file: name, reason: .tooComplex, detail: "is over librsvg's limits: \(said)")
        }
        return DocumentError(file: name, reason: .notADocument, detail: "\(when): \(said)")
    }
}
