import FlickControl
import FlickCore
import FlickDisplay
import Glibc

/// The helper's arguments besides its files (docs/documents.md, "Starting the helper"): what
/// the layout and the tiles depend on. A reload that changes them starts the helper again.
struct RenderArguments: Hashable, Sendable {
    var pageWidth: Int
    /// The screen's size when paging is on.
    var cell: PixelSize?
    var gap: Int
    var direction: PageDirection
    var background: Color
    var detailMax: Int
    var tileSize = 256
    var slots = 16
    var maxPages: Int
    var memoryMegabytes: Int

    /// The arguments `configuration` gives for a screen of `view` pixels.
    init(configuration c: Configuration, view: PixelSize) {
        pageWidth = c.documentWidth > 0 ? c.documentWidth : view.width
        cell = c.paging ? view : nil
        gap = c.pageGap
        direction = c.pageDirection
        background = c.background
        detailMax = Self.detail(forMaximumZoom: c.maximumZoomScale)
        maxPages = c.documentMaxPages
        memoryMegabytes = c.renderMemoryMegabytes
    }

    /// min(3, ceil(log2(zoom))), at least 0: the levels above zoom 1 that keep text sharp.
    static func detail(forMaximumZoom zoom: Double) -> Int {
        guard zoom.isFinite, zoom > 1 else { return 0 }
        return min(3, max(0, Int(log2(zoom).rounded(.up))))
    }

    /// The command line after the executable, for documents named `names` (fds 4, 5, …).
    func line(names: [String]) -> [String] {
        var line = ["--socket", "3"]
        for (i, name) in names.enumerated() { line += ["--document", "\(4 + i):\(name)"] }
        line += ["--page-width", "\(pageWidth)"]
        if let cell { line += ["--cell", "\(cell.width)x\(cell.height)"] }
        let hex = String(background.pixel & 0xFF_FFFF, radix: 16)
        line += ["--gap", "\(gap)", "--direction", direction.rawValue,
                 "--background", "#" + String(repeating: "0", count: 6 - hex.count) + hex,
                 "--detail-max", "\(detailMax)", "--tile-size", "\(tileSize)", "--slots", "\(slots)",
                 "--max-pages", "\(maxPages)", "--memory-mb", "\(memoryMegabytes)"]
        return line
    }

    /// The pages of the document flickd-render declared in `provide`, laid out as flickd lays
    /// them out with these arguments (the helper and flickd must agree on every page's place),
    /// and the table its links go into as the helper sends them.
    /// - Throws: `LayoutMismatch` when they cannot be laid out, or come to another size than the
    ///   helper declared (a bug on one side: the document is not shown).
    func layOut(_ document: ControlDocumentDeclaration,
                declared: PixelSize) throws(LayoutMismatch) -> (pages: [Content.Page], links: DocumentLinks) {
        let sizes: [(width: Double, height: Double)]
        let layout: DocumentLayout
        do {
            sizes = try document.pageSizes(limit: maxPages)
            layout = try DocumentLayout(pages: sizes.map { DocumentPageSize(width: $0.width, height: $0.height) },
                                        direction: direction == .vertical ? .vertical : .horizontal,
                                        pageWidth: pageWidth,
                                        cell: cell.map { DocumentLayout.PixelSize(width: $0.width, height: $0.height) },
                                        gap: gap, maxPages: maxPages)
        } catch {
            throw LayoutMismatch(message: "flickd-render's pages cannot be laid out by flickd: \(error)")
        }
        guard layout.size.width == declared.width, layout.size.height == declared.height else {
            throw LayoutMismatch(message: "flickd-render declared \(declared.width)x\(declared.height), "
                                 + "flickd lays the same pages out as \(layout.size) (a bug)")
        }
        let links = DocumentLinks(pages: zip(layout.pages, sizes).map { DocumentLinks.Page(frame: $0, points: Size(width: $1.width, height: $1.height)) },
                                  paging: cell != nil)
        return (layout.pages.map { Content.Page(source: nil, frame: $0) }, links)
    }

    /// Why flickd will not show the pages flickd-render declared.
    struct LayoutMismatch: Error {
        /// What the journal says (`layoutMismatch`).
        var message: String
    }
}
