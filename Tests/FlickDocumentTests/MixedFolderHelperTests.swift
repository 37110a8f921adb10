import CCairo
import FlickCore
import FlickDocument
import FlickDocumentSamples
import Testing

/// The built flickd-render, seccomp filter and all, on a folder mixing a PDF, a PNG, a JPEG and a
/// JPEG cut short (docs/documents.md, "What a document is"): gdk-pixbuf's loaders decode under
/// the filter, the images' tiles match the image painted by cairo, the damaged one's tiles are
/// answered undrawn and the helper goes on.
@Suite(.serialized) struct MixedFolderHelperTests {
    @Test func aFolderMixingAPDFAndImagesIsProvidedAndItsImagePagesDrawn() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("a.pdf"), pages: [(640, 900)]))
        try SampleImages.writePNG(to: scratch.file("b.png"), width: 640, height: 450)
        try SampleImages.writeJPEG(to: scratch.file("c.jpg"), width: 320, height: 225)
        let jpeg = try scratch.read("c.jpg")
        try scratch.write("d.jpg", Array(jpeg.prefix(jpeg.count / 2)))
        let png = try SampleImages.cairoSurface(png: scratch.file("b.png")), decoded = try SampleImages.cairoSurface(jpeg: scratch.file("c.jpg"))
        defer { cairo_surface_destroy(png); cairo_surface_destroy(decoded) }
        let session = try ProviderExchangeTests.Session(
            ["a.pdf", "b.png", "c.jpg", "d.jpg"].map(scratch.file),
            arguments: ["--page-width", "1280", "--gap", "16", "--direction", "vertical", "--background", "#101820",
                        "--detail-max", "2", "--tile-size", "256", "--slots", "4", "--max-pages", "2000", "--memory-mb", "512"])
        let document = session.provide["document"] as? [String: Any]
        #expect(document?["files"] as? [String] == ["a.pdf", "b.png", "c.jpg", "d.jpg"])
        #expect((document?["pages"] as? [[Double]]) == [[640, 900, 1], [640, 450, 1], [320, 225, 2]])
        let sizes = [DocumentPageSize(width: 640, height: 900), DocumentPageSize(width: 640, height: 450),
                     DocumentPageSize(width: 320, height: 225), DocumentPageSize(width: 320, height: 225)]
        let layout = try DocumentLayout(pages: sizes, direction: .vertical, pageWidth: 1280, gap: 16, maxPages: 2000)
        #expect(session.provide["height"] as? Int == layout.size.height && layout.pages.map(\.origin.y) == [0, 1816, 2732, 3648])

        // Zoom 1: a row across the PNG page, one across the JPEG; zoom 4: inside the PNG.
        for (zoom, row) in [(1.0, 8), (1.0, 12), (4.0, 30)] {
            let tiles = try AskedTile.at(zoom: zoom, size: layout.size, detail: 2) { $0.row == row && $0.column < 4 }
            for (slot, tile) in tiles.enumerated() { session.request(10 + slot, tile, slot: slot) }
            for _ in tiles { #expect(try session.answer().drawn) }
            for (slot, tile) in tiles.enumerated() {
                let difference = try TileDifference.of(session.pool + slot * 262_144, stride: tile.job.stride, asked: tile, layout: layout,
                                                       background: 0x10_18_20, tolerance: 2) { page in
                    guard page == 1 || page == 2 else { throw TestFailure("row \(row) meets page \(page)") }
                    return try DirectPage.image(surface: page == 1 ? png : decoded).window(tile, paper: layout.pages[page], points: sizes[page])
                }
                #expect(difference.different * 1000 <= difference.compared, "\(tile.key) at zoom \(zoom): \(difference)")
            }
        }
        // The JPEG cut short: its tiles undrawn, and the helper still answers after them.
        let cut = try AskedTile.at(zoom: 1, size: layout.size, detail: 2) { $0.row == 15 && $0.column < 2 }
        for (slot, tile) in cut.enumerated() { session.request(20 + slot, tile, slot: slot) }
        for _ in cut { #expect(try session.answer().drawn == false) }
        let again = try AskedTile.at(zoom: 1, size: layout.size, detail: 2) { $0.row == 8 && $0.column == 0 }
        session.request(30, again[0], slot: 0)
        let answer = try session.answer()
        #expect(answer.request == 30 && answer.drawn)
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
    }
}
