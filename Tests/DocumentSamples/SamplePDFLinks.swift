import CCairo

/// PDFs with links: written by cairo's tags (`cairo_tag_begin`, cairo ≥ 1.16), and by hand for
/// what cairo will not write (a link past the last page, named actions, a turned page).
extension SamplePDF {
    /// A link `writeWithLinks` puts on a page: its area in the page's points from the top-left
    /// (cairo's user space), and where it leads.
    public struct Link: Sendable {
        /// Where a link leads, as cairo's link tag says it.
        public enum Target: Sendable {
            /// A named destination of the document (`dest='name'`).
            case destination(String)
            /// Page `page` (0-based) at (`x`, `y`) in its points from its top-left (`page=N pos=[x y]`).
            /// cairo 1.16 writes no destination for a page after the link's own: only earlier ones.
            case page(Int, x: Double, y: Double)
            /// A URI (`uri='…'`).
            case uri(String)
        }
        // No other file: cairo 1.16 refuses `file='…' page=N` (a tag error at the page's end)
        // and writes `file='…'` alone as a GoToR poppler cannot read. `handBuiltLinks` has one.

        /// The page (0-based) the link is on.
        public var page: Int
        /// The link's area.
        public var x: Double, y: Double, width: Double, height: Double
        /// Where it leads.
        public var target: Target

        /// Creates a link.
        public init(page: Int, x: Double, y: Double, width: Double, height: Double, target: Target) {
            self.page = page
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.target = target
        }
    }

    /// A named destination `writeWithLinks` puts on a page: `name` at (`x`, `y`) of page `page`
    /// (0-based), in its points from the top-left.
    public struct Destination: Sendable {
        public var name: String
        public var page: Int
        public var x: Double, y: Double

        /// Creates a destination.
        public init(name: String, page: Int, x: Double, y: Double) {
            self.name = name
            self.page = page
            self.x = x
            self.y = y
        }
    }

    /// Writes `write`'s menu pages to `path` with `links` (each a tinted box over its area, the
    /// clickable region exactly that area) and named `destinations`.
    /// - Returns: false when cairo could not write it (a tag it refuses puts it in an error).
    @discardableResult
    public static func writeWithLinks(to path: String, pages: [(width: Double, height: Double)], links: [Link],
                                      destinations: [Destination] = [], title: String = "Menu") -> Bool {
        guard let first = pages.first, let surface = cairo_pdf_surface_create(path, first.width, first.height) else { return false }
        defer { cairo_surface_destroy(surface) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, "2026-01-01T00:00:00Z")
        for (index, page) in pages.enumerated() {
            cairo_pdf_surface_set_size(surface, page.width, page.height)
            guard let cr = cairo_create(surface) else { return false }
            draw(page: index, width: page.width, height: page.height, title: title, on: cr)
            for destination in destinations where destination.page == index {
                cairo_tag_begin(cr, CAIRO_TAG_DEST, "name='\(destination.name)' x=\(destination.x) y=\(destination.y)")
                cairo_tag_end(cr, CAIRO_TAG_DEST)
            }
            for link in links where link.page == index {
                cairo_tag_begin(cr, CAIRO_TAG_LINK, "\(attributes(link.target)) rect=[\(link.x) \(link.y) \(link.width) \(link.height)]")
                cairo_set_source_rgba(cr, 0.2, 0.4, 0.9, 0.3)
                cairo_rectangle(cr, link.x, link.y, link.width, link.height)
                cairo_fill(cr)
                cairo_tag_end(cr, CAIRO_TAG_LINK)
            }
            cairo_show_page(cr)
            let status = cairo_status(cr)
            cairo_destroy(cr)
            guard status == CAIRO_STATUS_SUCCESS else { return false }
        }
        cairo_surface_finish(surface)
        return cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
    }

    /// cairo's link attributes for `target` (its pages count from 1).
    private static func attributes(_ target: Link.Target) -> String {
        switch target {
        case let .destination(name): "dest='\(name)'"
        case let .page(page, x, y): "page=\(page + 1) pos=[\(x) \(y)]"
        case let .uri(uri): "uri='\(uri)'"
        }
    }

    /// Three pages by hand, for the links cairo does not write:
    /// - page 1, 600 × 800 pt: a link at [100 700 200 750] (PDF points, from the bottom-left)
    ///   to page 8 (`/Dest [7 /XYZ …]`: the file has 3), one at [100 600 200 650] doing
    ///   NextPage, one at [100 500 200 550] launching `menu-2.pdf`, one at [100 400 200 450]
    ///   running JavaScript, one with no area at [300 300 300 300] going to page 2, and one at
    ///   [100 300 200 350] to page 2 of `wines.pdf` (GoToR, its page 1 as the PDF counts);
    /// - page 2, the same paper turned a quarter (/Rotate 90: shown 800 × 600): a blue box and
    ///   a link, both at [100 100 200 150] of the unturned paper, to page 3 at (200, 500) of its
    ///   PDF points;
    /// - page 3, 600 × 800 pt cropped to [50 100 550 700] (shown 500 × 600): a blue box and a
    ///   link, both at [150 300 250 350], to page 1 at (120, 640) of its PDF points; a link at
    ///   [300 500 400 550] doing NextPage (it is the last), and one at [300 200 400 250] to page
    ///   2 at (10, 20).
    public static func handBuiltLinks() -> [UInt8] {
        let box = "0 0 1 rg 100 100 100 50 re f"
        let cropped = "0 0 1 rg 150 300 100 50 re f"
        return handBuilt([
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Annots [6 0 R 7 0 R 8 0 R 9 0 R 10 0 R 17 0 R] >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Rotate 90 /Contents 11 0 R /Annots [12 0 R] >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /CropBox [50 100 550 700] /Contents 13 0 R /Annots [14 0 R 15 0 R 16 0 R] >>",
            "<< /Type /Annot /Subtype /Link /Rect [100 700 200 750] /Border [0 0 0] /Dest [7 /XYZ 0 0 0] >>",
            "<< /Type /Annot /Subtype /Link /Rect [100 600 200 650] /Border [0 0 0] /A << /S /Named /N /NextPage >> >>",
            "<< /Type /Annot /Subtype /Link /Rect [100 500 200 550] /Border [0 0 0] /A << /S /Launch /F (menu-2.pdf) >> >>",
            "<< /Type /Annot /Subtype /Link /Rect [100 400 200 450] /Border [0 0 0] /A << /S /JavaScript /JS (app.alert\\(1\\)) >> >>",
            "<< /Type /Annot /Subtype /Link /Rect [300 300 300 300] /Border [0 0 0] /Dest [4 0 R /Fit] >>",
            "<< /Length \(box.utf8.count) >>\nstream\n\(box)\nendstream",
            "<< /Type /Annot /Subtype /Link /Rect [100 100 200 150] /Border [0 0 0] /Dest [5 0 R /XYZ 200 500 0] >>",
            "<< /Length \(cropped.utf8.count) >>\nstream\n\(cropped)\nendstream",
            "<< /Type /Annot /Subtype /Link /Rect [150 300 250 350] /Border [0 0 0] /Dest [3 0 R /XYZ 120 640 0] >>",
            "<< /Type /Annot /Subtype /Link /Rect [300 500 400 550] /Border [0 0 0] /A << /S /Named /N /NextPage >> >>",
            "<< /Type /Annot /Subtype /Link /Rect [300 200 400 250] /Border [0 0 0] /Dest [4 0 R /XYZ 10 20 0] >>",
            "<< /Type /Annot /Subtype /Link /Rect [100 300 200 350] /Border [0 0 0] /A << /S /GoToR /F (wines.pdf) /D [1 /XYZ null null 0] >> >>",
        ])
    }
}
