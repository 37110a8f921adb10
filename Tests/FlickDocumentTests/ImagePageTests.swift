import CCairo
import FlickCore
@testable import FlickDocument
import FlickDocumentSamples
import Testing

/// PNG and JPEG pages among a PDF's (a folder mixing them, docs/documents.md): their tiles at
/// zoom 1, 0.25 and 4 against the image painted by cairo straight from cairo's own PNG reader (and
/// the JPEG decoded apart from the helper's conversion), with `TileComparisonTests`' tolerance (a
/// channel off by at most 2 of 255 on at most 0.1 % of a tile's pixels; the background exact);
/// damaged and oversized images; the decoded pages' budget.
struct ImagePageTests {
    /// A 640 × 900 pt PDF page, a 640 × 450 PNG and a 320 × 225 JPEG: 1280 px wide pages 1800,
    /// 900 and 900 px high, 16 px apart, every corner on a whole pixel at scale 0.25.
    func mixed(_ scratch: Scratch) throws -> (document: Document, direct: (Int) -> DirectPage, surfaces: [OpaquePointer]) {
        #expect(SamplePDF.write(to: scratch.file("a.pdf"), pages: [(640, 900)]))
        try SampleImages.writePNG(to: scratch.file("b.png"), width: 640, height: 450)
        try SampleImages.writeJPEG(to: scratch.file("c.jpg"), width: 320, height: 225)
        let pdf = try scratch.read("a.pdf")
        let document = try Document(files: [("a.pdf", pdf), ("b.png", try scratch.read("b.png")), ("c.jpg", try scratch.read("c.jpg"))],
                                    options: TileComparisonTests.options())
        let png = try SampleImages.cairoSurface(png: scratch.file("b.png")), jpeg = try SampleImages.cairoSurface(jpeg: scratch.file("c.jpg"))
        let direct: (Int) -> DirectPage = { page in [DirectPage.pdf(bytes: pdf, index: 0), .image(surface: png), .image(surface: jpeg)][page] }
        return (document, direct, [png, jpeg])
    }

    @Test func imagePagesMatchTheImagePaintedByCairoAtEveryZoom() throws {
        let scratch = try Scratch()
        let (document, direct, surfaces) = try mixed(scratch)
        defer { for surface in surfaces { cairo_surface_destroy(surface) } }
        #expect(document.pageSizes == [DocumentPageSize(width: 640, height: 900), DocumentPageSize(width: 640, height: 450),
                                       DocumentPageSize(width: 320, height: 225)])
        #expect(document.layout.pages.map(\.origin.y) == [0, 1816, 2732])
        #expect(document.layout.size == DocumentLayout.PixelSize(width: 1280, height: 3632))
        let detail = document.layout.detail(maximum: 2)
        // Rows across the PDF page's end, both images and the gap between them.
        let rows: [Double: Set<Int>] = [1: [7, 8, 10, 11, 13], 0.25: [0, 1, 2, 3], 4: [28, 29, 46, 48]]
        for zoom in [1.0, 0.25, 4.0] {
            let tiles = try AskedTile.at(zoom: zoom, size: document.layout.size, detail: detail) {
                rows[zoom]?.contains($0.row) == true && (zoom != 4 || $0.column % 5 == 0)
            }
            #expect(tiles.allSatisfy { $0.scale == zoom })
            try TileComparisonTests().compare(document, tiles, direct: direct)
        }
    }

    @Test func aDamagedImageHasItsTilesUndrawnAndTheOtherPagesDraw() throws {
        let scratch = try Scratch()
        try SampleImages.writePNG(to: scratch.file("b.png"), width: 640, height: 450)
        try SampleImages.writeJPEG(to: scratch.file("c.jpg"), width: 320, height: 225)
        let png = try scratch.read("b.png"), jpeg = try scratch.read("c.jpg")
        // The headers (and sizes) intact, the pixels cut in half: found only when decoded.
        let document = try Document(files: [("b.png", Array(png.prefix(png.count / 2))), ("c.jpg", Array(jpeg.prefix(jpeg.count / 2))),
                                            ("d.png", png)], options: TileComparisonTests.options())
        #expect(document.layout.pages.count == 3)
        var pixels = [UInt8](repeating: 0, count: 256 * 256 * 4)
        for (page, expected) in [(0, false), (1, false), (2, true), (0, false)] {
            let y = document.layout.pages[page].origin.y + 100
            let job = TileJob(scale: 1, x: 256, y: y, pixelWidth: 256, pixelHeight: 256, stride: 1024)
            let drawn = pixels.withUnsafeMutableBytes { document.draw(job, into: $0.baseAddress!, background: 0x10_18_20) }
            #expect(drawn == expected, "page \(page)")
        }
    }

    @Test(arguments: [("cut.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], "no IHDR chunk"),
                      ("cut.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46], "no frame header (SOF)")] as [(String, [UInt8], String)])
    func anImageCutInItsHeaderIsRefusedAsTruncated(name: String, bytes: [UInt8], words: String) throws {
        let error = #expect(throws: DocumentError.self) { try Document(files: [(name, bytes)], options: TileComparisonTests.options()) }
        #expect(error?.reason == .truncated && error?.file == name && error?.message.contains(words) == true, "\(String(describing: error))")
    }

    @Test func anImageWhosePixelsWouldPassAQuarterOfTheMemoryLimitIsRefusedAtOnce() throws {
        // 20000 × 20000 × 4 bytes = 1.6 GB decoded, against 512 MiB / 4.
        let header = SampleImages.pngHeader(width: 20_000, height: 20_000)
        let error = #expect(throws: DocumentError.self) { try Document(files: [("huge.png", header)], options: TileComparisonTests.options()) }
        #expect(error?.reason == .outOfMemory && error?.message.contains("20000 × 20000 pixels") == true, "\(String(describing: error))")
    }

    @Test(arguments: [(0x7FFF_FFFF, 0x7FFF_FFFF), (0x656E_6473, 0x7472_6561), (1, 0x7FFF_FFFF), (40_000, 1)] as [(UInt32, UInt32)])
    func anImageWhoseHeaderSaysSidesPastWhatCairoDrawsIsRefusedNotOverflowed(width: UInt32, height: UInt32) throws {
        // Found by the document fuzzer: the width times the height passed Int.max before the sides were checked.
        let header = SampleImages.pngHeader(width: width, height: height)
        let error = #expect(throws: DocumentError.self) { try Document(files: [("huge.png", header)], options: TileComparisonTests.options()) }
        #expect(error?.reason == .outOfMemory && error?.message.contains("\(width) × \(height) pixels") == true, "\(String(describing: error))")
    }

    @Test func decodedPagesStayWithinTheirBudgetLeastRecentlyDrawnFirstOut() throws {
        let scratch = try Scratch()
        try SampleImages.writePNG(to: scratch.file("p.png"), width: 100, height: 100)
        let png = try scratch.read("p.png")
        let one = 100 * 100 * 4
        let images = DecodedImages(budget: 3 * one)
        let pages = try (0..<5).map { i throws(DocumentError) in try ImagePage(.memory(png), name: "p\(i).png", images: images, limit: 1 << 26) }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8), let cr = cairo_create(surface) else { throw TestFailure("no surface") }
        defer { cairo_destroy(cr); cairo_surface_destroy(surface) }
        for page in pages { #expect(page.draw(page: 0, on: cr)) }
        #expect(images.bytes == 3 * one)
        // Pages 2, 3, 4 are kept; drawing 2 again decodes nothing, drawing 0 lets 3 go.
        #expect(pages[2].draw(page: 0, on: cr) && images.bytes == 3 * one)
        #expect(pages[0].draw(page: 0, on: cr))
        #expect(images.surface(for: ObjectIdentifier(pages[3])) == nil && images.surface(for: ObjectIdentifier(pages[4])) != nil)
        #expect(images.bytes == 3 * one)
        // One page over the whole budget is kept alone while its tiles are drawn.
        let small = DecodedImages(budget: one / 2)
        let big = try ImagePage(.memory(png), name: "big.png", images: small, limit: 1 << 26)
        #expect(big.draw(page: 0, on: cr) && small.bytes == one)
    }
}
