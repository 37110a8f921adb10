import FlickCore
import FlickDisplay
import FlickDocument
import FlickDocumentSamples
import Testing

/// The helper's tiles at zoom 1, 0.25 and 4 — the tiles flickd asks for at those zooms, from
/// `TileGrid` for the document's size and detail — against each page drawn directly by poppler
/// or librsvg at the tile's scale into a plain cairo surface.
///
/// Pages here are sized so every paper's corner falls on a whole pixel of every level compared
/// (1280 px wide pages 1800 px high, 16 px apart: multiples of 4), so the two drawings share a
/// pixel grid and may differ only where the helper's transform (scale, then the tile's and the
/// paper's offsets) and the reference's (one offset, then the scale) round differently in the
/// last bits of a Double. Tolerance: a channel may differ by at most 2 of 255 on at most 0.1 % of
/// a tile's pixels; the background around pages must be exact.
struct TileComparisonTests {
    static let background: UInt32 = 0x10_18_20
    static let pages = Array(repeating: (width: 640.0, height: 900.0), count: 3)

    static func options(_ width: Int = 1280) -> RenderOptions {
        var options = RenderOptions(socket: 3, documents: [], pageWidth: width)
        options.gap = 16
        options.detailMax = 2
        options.background = background
        return options
    }

    /// Draws each of `tiles` with the helper's code and compares it with the direct drawing.
    func compare(_ document: Document, _ tiles: [AskedTile], direct: (Int) -> DirectPage) throws {
        #expect(!tiles.isEmpty)
        var pixels = [UInt8](repeating: 0xAB, count: 256 * 256 * 4)
        for tile in tiles {
            let job = tile.job
            let drawn = pixels.withUnsafeMutableBytes { document.draw(job, into: $0.baseAddress!, background: Self.background) }
            #expect(drawn, "\(tile.key)")
            let difference = try pixels.withUnsafeBytes { raw in
                try TileDifference.of(raw.baseAddress!, stride: job.stride, asked: tile, layout: document.layout,
                                      background: Self.background, tolerance: 2) { page in
                    try direct(page).window(tile, paper: document.layout.pages[page], points: document.pageSizes[page])
                }
            }
            #expect(difference.different * 1000 <= difference.compared, "\(tile.key) at scale \(tile.scale): \(difference)")
        }
    }

    func samplePDF() throws -> (Document, [UInt8]) {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("menu.pdf"), pages: Self.pages))
        let bytes = try scratch.read("menu.pdf")
        return (try Document(files: [("menu.pdf", bytes)], options: Self.options()), bytes)
    }

    @Test func pdfTilesAtZoomOneMatchPopplerAtScaleOne() throws {
        let (document, bytes) = try samplePDF()
        #expect(document.layout.size == DocumentLayout.PixelSize(width: 1280, height: 3 * 1800 + 2 * 16))
        let detail = document.layout.detail(maximum: 2)
        // The first row, the row across the first gap (1800…1816), the last (shorter) row.
        let tiles = try AskedTile.at(zoom: 1, size: document.layout.size, detail: detail) { [0, 7, 21].contains($0.row) }
        #expect(tiles.allSatisfy { $0.scale == 1 })
        try compare(document, tiles) { .pdf(bytes: bytes, index: $0) }
    }

    @Test func pdfTilesAtAQuarterMatchPopplerAtAQuarter() throws {
        let (document, bytes) = try samplePDF()
        let tiles = try AskedTile.at(zoom: 0.25, size: document.layout.size, detail: document.layout.detail(maximum: 2))
        #expect(tiles.allSatisfy { $0.scale == 0.25 })
        #expect(tiles.count == 2 * 6)  // 320 × 1358 px
        try compare(document, tiles) { .pdf(bytes: bytes, index: $0) }
    }

    @Test func pdfTilesAtZoomFourAreDrawnAtScaleFour() throws {
        let (document, bytes) = try samplePDF()
        let detail = document.layout.detail(maximum: 2)
        #expect(detail == 2)
        // Zoom 4 asks for the finest level, drawn at scale 4: text drawn again, not stretched.
        let tiles = try AskedTile.at(zoom: 4, size: document.layout.size, detail: detail) {
            ($0.row == 1 || $0.row == 28) && $0.column % 4 == 1
        }
        #expect(tiles.allSatisfy { $0.scale == 4 })
        try compare(document, tiles) { .pdf(bytes: bytes, index: $0) }
    }

    @Test func svgTilesAtEveryZoomMatchLibrsvg() throws {
        let bytes = Array(SampleSVG.floorPlan().utf8)
        let document = try Document(files: [("plan.svg", bytes)], options: Self.options())
        #expect(document.pageSizes == [DocumentPageSize(width: 800, height: 600)])
        #expect(document.layout.size == DocumentLayout.PixelSize(width: 1280, height: 960))
        let detail = document.layout.detail(maximum: 2)
        for zoom in [1.0, 0.25, 4.0] {
            let tiles = try AskedTile.at(zoom: zoom, size: document.layout.size, detail: detail) { $0.row % 3 == 0 && $0.column % 3 == 0 }
            #expect(tiles.allSatisfy { $0.scale == zoom })
            try compare(document, tiles) { _ in .svg(bytes: bytes) }
        }
    }

    @Test func pagedTilesShowEachPageInItsCell() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("menu.pdf"), pages: Self.pages))
        let bytes = try scratch.read("menu.pdf")
        var options = Self.options()
        options.cell = DocumentLayout.PixelSize(width: 1280, height: 800)
        let document = try Document(files: [("menu.pdf", bytes)], options: options)
        // 640 × 900 pt fitted into 1264 × 784: 557.5… → 558 × 784, at x = 361 in each 800-px cell.
        #expect(document.layout.pages.map(\.origin.y) == [8, 808, 1608])
        let tiles = try AskedTile.at(zoom: 1, size: document.layout.size, detail: document.layout.detail(maximum: 2)) { $0.column == 1 }
        try compare(document, tiles) { .pdf(bytes: bytes, index: $0) }
    }
}
