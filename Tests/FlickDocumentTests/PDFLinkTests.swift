import FlickCore
import FlickDocument
import FlickDocumentSamples
import Testing

/// A PDF's links as the helper reads them through poppler: areas flipped from PDF points (y up
/// from the bottom) to the page's points from its top-left, on turned and cropped pages too;
/// destinations named or not, in this file or another, and those that lead nowhere.
struct PDFLinkTests {
    static let options = RenderOptions(socket: 3, documents: [], pageWidth: 1280)

    /// A cairo menu, second in a document after a one-page intro: its links, and the
    /// destinations they lead to, on pages 1… of the document. (Another file: `handBuiltLinks`.)
    func menu() throws -> Document {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("intro.pdf"), pages: [(595, 842)]))
        let links: [SamplePDF.Link] = [
            .init(page: 0, x: 50, y: 100, width: 200, height: 40, target: .destination("desserts")),
            .init(page: 0, x: 50, y: 300, width: 200, height: 40, target: .uri("https://example.com/menu?lang=en&day=1")),
            // On the last page, smaller than the others: flipped with its own height.
            .init(page: 2, x: 30, y: 500, width: 120, height: 30.5, target: .page(0, x: 0, y: 0)),
            .init(page: 2, x: 200, y: 20, width: 80, height: 20, target: .page(1, x: 100, y: 200)),
        ]
        #expect(SamplePDF.writeWithLinks(to: scratch.file("menu.pdf"), pages: [(595, 842), (595, 842), (420, 595)], links: links,
                                         destinations: [.init(name: "desserts", page: 2, x: 60, y: 150)]))
        return try Document(files: [("intro.pdf", scratch.read("intro.pdf")), ("menu.pdf", scratch.read("menu.pdf"))], options: Self.options)
    }

    @Test func everyKindOfCairoLinkIsFoundWhereItWasDrawnAndLeadsWhereItSaid() throws {
        let document = try menu()
        let first = document.links(page: 1)
        let expected = [
            PageLink(page: 1, x: 50, y: 100, width: 200, height: 40, target: .page(3, x: 60, y: 150)),
            PageLink(page: 1, x: 50, y: 300, width: 200, height: 40, target: .uri("https://example.com/menu?lang=en&day=1")),
        ]
        #expect(areNear(first, expected), "\(first)")
        let last = document.links(page: 3)
        #expect(areNear(last, [PageLink(page: 3, x: 30, y: 500, width: 120, height: 30.5, target: .page(1, x: 0, y: 0)),
                               PageLink(page: 3, x: 200, y: 20, width: 80, height: 20, target: .page(2, x: 100, y: 200))]), "\(last)")
        #expect(document.links(page: 0).isEmpty && document.links(page: 2).isEmpty)
        #expect(document.links(page: 4).isEmpty && document.links(page: -1).isEmpty)
    }

    @Test func aNamedDestinationNobodyDefinedIsMissing() throws {
        let scratch = try Scratch()
        let links: [SamplePDF.Link] = [.init(page: 0, x: 10, y: 10, width: 50, height: 50, target: .destination("nowhere"))]
        // cairo writes a link to a name it has no destination for (it says so on stderr).
        #expect(SamplePDF.writeWithLinks(to: scratch.file("menu.pdf"), pages: [(595, 842)], links: links))
        let document = try Document(files: [("menu.pdf", scratch.read("menu.pdf"))], options: Self.options)
        let found = document.links(page: 0)
        #expect(found.count == 1)
        #expect(found.first?.target == .missing("no destination named \"nowhere\" in menu.pdf"), "\(found)")
    }

    @Test func handBuiltLinksPastTheLastPageNamedActionsAndOtherFiles() throws {
        let document = try Document(files: [("links.pdf", SamplePDF.handBuiltLinks())], options: Self.options)
        #expect(document.pageSizes == [.init(width: 600, height: 800), .init(width: 800, height: 600), .init(width: 500, height: 600)])
        let first = document.links(page: 0)
        // The JavaScript link and the one without an area are left out.
        #expect(areNear(first, [
            PageLink(page: 0, x: 100, y: 50, width: 100, height: 50,
                     target: .missing("a link on page 1 of links.pdf leads to a page it does not have")),
            PageLink(page: 0, x: 100, y: 150, width: 100, height: 50, target: .page(1, x: nil, y: nil)),
            PageLink(page: 0, x: 100, y: 250, width: 100, height: 50, target: .file("menu-2.pdf", page: nil)),
            PageLink(page: 0, x: 100, y: 450, width: 100, height: 50, target: .file("wines.pdf", page: 1)),
        ]), "\(first)")
        // The turned page: [100 100 200 150] of the unturned paper is x 100…150, y 100…200 shown.
        // Its target, the cropped page, at (200, 500) less the crop box's corner (50, 100),
        // flipped with its 600 pt.
        let turned = document.links(page: 1)
        #expect(areNear(turned, [PageLink(page: 1, x: 100, y: 100, width: 50, height: 100, target: .page(2, x: 150, y: 200))]), "\(turned)")
        // The cropped page: NextPage on the last page leads nowhere; a position on the turned
        // page cannot be placed (poppler-glib does not tell which way it turns).
        let cropped = document.links(page: 2)
        #expect(areNear(cropped, [
            PageLink(page: 2, x: 100, y: 350, width: 100, height: 50, target: .page(0, x: 120, y: 160)),
            PageLink(page: 2, x: 250, y: 150, width: 100, height: 50, target: .missing("page 4 of links.pdf does not exist")),
            PageLink(page: 2, x: 250, y: 450, width: 100, height: 50, target: .page(1, x: nil, y: nil)),
        ]), "\(cropped)")
    }

    /// The areas of the turned and the cropped page hold the blue box drawn under them: the flip
    /// agrees with how poppler draws the page, not only with arithmetic.
    @Test func aLinkAreaCoversWhatIsDrawnUnderItOnTurnedAndCroppedPages() throws {
        let document = try Document(files: [("links.pdf", SamplePDF.handBuiltLinks())], options: Self.options)
        for page in [1, 2] {
            let link = try #require(document.links(page: page).first)
            let pixels = try PagePixels(document, page: page)
            let blue: UInt32 = 0x00_00_FF
            #expect(pixels[link.x + 2, link.y + 2] == blue && pixels[link.x + link.width - 2, link.y + link.height - 2] == blue,
                    "page \(page): \(link)")
            #expect(pixels[link.x - 2, link.y + 2] != blue && pixels[link.x + 2, link.y - 2] != blue, "page \(page): \(link)")
            #expect(pixels[link.x + link.width + 2, link.y + link.height - 2] != blue, "page \(page): \(link)")
            #expect(pixels[link.x + link.width - 2, link.y + link.height + 2] != blue, "page \(page): \(link)")
        }
    }
}

/// A page drawn by the helper's own tile code at one pixel per point: pixel (i, j) shows the
/// page's point (i + ½, j + ½).
struct PagePixels {
    let width: Int, height: Int
    private let pixels: [UInt32]

    init(_ document: Document, page: Int) throws {
        let paper = document.layout.pages[page], points = document.pageSizes[page]
        width = Int(points.width.rounded(.up))
        height = Int(points.height.rounded(.up))
        let job = TileJob(scale: points.width / paper.size.width, x: paper.origin.x, y: paper.origin.y, pixelWidth: width,
                          pixelHeight: height, stride: width * 4)
        var pixels = [UInt32](repeating: 0, count: width * height)
        guard pixels.withUnsafeMutableBytes({ document.draw(job, into: $0.baseAddress!, background: 0x10_18_20) }) else {
            throw TestFailure("page \(page) was not drawn")
        }
        self.pixels = pixels.map { $0 & 0xFF_FFFF }
    }

    /// The colour at the page's point (`x`, `y`), 0xRRGGBB; nil off the page.
    subscript(x: Double, y: Double) -> UInt32? {
        let i = Int(x), j = Int(y)
        guard x >= 0, y >= 0, i < width, j < height else { return nil }
        return pixels[j * width + i]
    }
}
