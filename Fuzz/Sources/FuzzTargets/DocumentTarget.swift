import FlickCore
import FlickDocument
import FlickDocumentSamples
import Foundation

/// A document file's untrusted bytes through flickd-render's input path (docs/documents.md):
/// `DocumentKind.sniff`, then poppler (a PDF, from its bytes), librsvg (an SVG, default limits,
/// no base file) or a PNG/JPEG page (its header read, gdk-pixbuf decoding it when a tile is drawn,
/// at most 4 MiB of pixels under the 16 MiB `memoryMB` here) behind `PageSources.open`, `Document` (every page's size, `DocumentLayout`), the
/// line the helper would send first, tiles drawn at three scales, and every page's links with the
/// `links` lines that carry them.
///
/// The layout is small (pages 96 px wide, at most 200 of them) so an input costs its parsing,
/// not its pixels. Checks: a refusal is a `DocumentError` naming the file, its message starting
/// with the name, a page (when given) at least 1; an accepted document has a page size per page,
/// each finite and above 0, a layout within 2²⁴ px whose rectangles lie in the content, and a
/// `provide` line that is one JSON object whose `width`/`height` are the layout's and whose page
/// runs add up to the page count; tiles draw (or say they cannot) without touching a byte outside
/// their rows; every link lies on its page with a finite area, leads to a page the document has
/// (or is said missing), and travels in lines under the limit that are JSON.
enum DocumentTarget {
    static let name = "fuzz.doc"

    static var options: RenderOptions {
        var options = RenderOptions(socket: 3, documents: [], pageWidth: 96)
        options.gap = 4
        options.maxPages = 200
        options.detailMax = 2
        // An image page may decode a quarter of it: an input costs its parsing, not its pixels.
        options.memoryMB = 16
        return options
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let document: Document
        do {
            document = try Document(files: [(name, Array(bytes))], options: options)
        } catch {
            fuzzCheck(error.file == name, "an error naming \(error.file)")
            fuzzCheck(error.message.hasPrefix(name + ": "), "a message without the file: \(error.message)")
            fuzzCheck(error.page.map { $0 >= 1 } ?? true, "page \(String(describing: error.page))")
            let line = HelperMessages.documentError(error)
            fuzzCheck((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
            return
        }
        let layout = document.layout, sizes = document.pageSizes
        fuzzCheck(!sizes.isEmpty && sizes.count == layout.pages.count && sizes.count <= 200, "\(sizes.count) pages")
        fuzzCheck(sizes.allSatisfy { $0.width.isFinite && $0.height.isFinite && $0.width > 0 && $0.height > 0 }, "page sizes \(sizes)")
        let most = DocumentLayout.maximumExtent
        fuzzCheck(layout.size.width >= 1 && layout.size.height >= 1 && layout.size.width <= most && layout.size.height <= most,
                  "content \(layout.size)")
        for page in layout.pages {
            fuzzCheck(page.origin.x >= 0 && page.origin.y >= 0 && page.origin.x + page.size.width <= Double(layout.size.width)
                      && page.origin.y + page.size.height <= Double(layout.size.height), "page \(page) outside \(layout.size)")
        }
        let line = HelperMessages.provide(document, tileSize: 64, slots: 4, detail: layout.detail(maximum: 2))
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        fuzzCheck(object?["width"] as? Int == layout.size.width && object?["height"] as? Int == layout.size.height, "provide: \(line)")
        let runs = (object?["document"] as? [String: Any])?["pages"] as? [[Double]]
        fuzzCheck(runs.map { $0.reduce(0) { $0 + ($1.count == 3 ? $1[2] : -1_000_000) } } == Double(sizes.count), "runs \(String(describing: runs))")
        draw(document)
        links(document)
    }

    /// Every page's links, checked, and the lines that carry them.
    private static func links(_ document: Document) {
        let count = document.pageSizes.count
        for page in 0..<count {
            let links = document.links(page: page)
            for link in links {
                fuzzCheck(link.page == page, "a link of page \(link.page) among page \(page)'s")
                fuzzCheck([link.x, link.y, link.width, link.height].allSatisfy(\.isFinite) && link.width > 0 && link.height > 0,
                          "link area \(link)")
                if case let .page(to, x, y) = link.target {
                    fuzzCheck((0..<count).contains(to), "a link to page \(to) of \(count)")
                    fuzzCheck([x, y].allSatisfy { $0?.isFinite ?? true }, "link position \(link)")
                }
            }
            for line in HelperMessages.links(page: page, links) {
                fuzzCheck(line.utf8.count < HelperMessages.linksLineLimit, "a links line of \(line.utf8.count) bytes")
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                fuzzCheck(object?["cmd"] as? String == "links" && object?["page"] as? Int == page, "links: \(line.prefix(200))")
            }
        }
    }

    /// Three 64-px tiles: the top-left at scale 1, 0.125 (many pages) and 4, in a buffer with a
    /// guard row after the tile that must stay untouched.
    private static func draw(_ document: Document) {
        let stride = 64 * 4 + 16
        var pixels = [UInt8](repeating: 0x5A, count: stride * 65)
        for scale in [1.0, 0.125, 4.0] {
            let job = TileJob(scale: scale, x: 0, y: 0, pixelWidth: 64, pixelHeight: 64, stride: stride)
            _ = pixels.withUnsafeMutableBytes { raw in raw.baseAddress.map { document.draw(job, into: $0, background: 0x102030) } }
            for row in 0..<64 {
                fuzzCheck(pixels[(row * stride + 256)..<(row * stride + stride)].allSatisfy { $0 == 0x5A }, "wrote past row \(row)")
            }
            fuzzCheck(pixels[(64 * stride)...].allSatisfy { $0 == 0x5A }, "wrote past the tile")
        }
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        let folder = NSTemporaryDirectory() + "flickd-fuzz-document-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func cairo(_ file: String, _ pages: [(width: Double, height: Double)]) {
            let path = folder + "/" + file
            if SamplePDF.write(to: path, pages: pages), let data = FileManager.default.contents(atPath: path) {
                out.append((file, Array(data)))
            }
        }
        cairo("menu.pdf", [(200, 280), (280, 200)])
        cairo("tall-page.pdf", [(1, 100_000)])
        if let menu = out.first?.1 { out.append(("truncated.pdf", Array(menu.prefix(menu.count / 2)))) }
        out.append(("encrypted.pdf", SamplePDF.encrypted()))
        out.append(("many-pages.pdf", SamplePDF.manyPages(300)))
        out.append(("text.pdf", SamplePDF.handBuilt([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length 66 >>\nstream\n0.2 0.4 0.8 rg 10 10 80 30 re f BT /F1 18 Tf 20 60 Td (Menu) Tj ET\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ])))
        out.append(("not-a-pdf.pdf", Array("Dear customer, our menu changes daily.\n".utf8)))
        let linked = folder + "/linked.pdf"
        if SamplePDF.writeWithLinks(to: linked, pages: [(200, 280), (200, 280)],
                                    links: [SamplePDF.Link(page: 1, x: 20, y: 20, width: 80, height: 20, target: .page(0, x: 10, y: 30)),
                                            SamplePDF.Link(page: 0, x: 20, y: 60, width: 80, height: 20, target: .uri("https://example.com/a")),
                                            SamplePDF.Link(page: 0, x: 20, y: 100, width: 80, height: 20, target: .destination("end"))],
                                    destinations: [SamplePDF.Destination(name: "end", page: 1, x: 0, y: 200)]),
           let data = FileManager.default.contents(atPath: linked) {
            out.append(("linked.pdf", Array(data)))
        }
        out.append(("links-by-hand.pdf", SamplePDF.handBuiltLinks()))
        out.append(("linked-plan.svg", Array(SampleSVG.linkedPlan().utf8)))
        out.append(("many-links.svg", Array(SampleSVG.manyLinks(300, rows: true).utf8)))
        out.append(("plan.svg", Array(SampleSVG.floorPlan(width: 200, height: 150).utf8)))
        out.append(("external-references.svg", Array(SampleSVG.externalReferences().utf8)))
        out.append(("entity-laughs.svg", Array(SampleSVG.entityLaughs().utf8)))
        out.append(("use-laughs.svg", Array(SampleSVG.useLaughs(levels: 4).utf8)))
        // Image pages: a whole PNG, and a JPEG of only its frame header (40 × 30, three components).
        let photo = folder + "/photo.png"
        if SamplePNG.writeRed(to: photo, width: 40, height: 30), let data = FileManager.default.contents(atPath: photo) {
            out.append(("photo.png", Array(data)))
        }
        out.append(("frame-header.jpg", [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x1E, 0x00, 0x28, 0x03,
                                         0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF, 0xD9]))
        return out
    }
}
