import FlickCore
import FlickDocument
import Testing

/// flickd-render's command line as flickd writes it (docs/documents.md, "Starting the helper").
struct RenderOptionsTests {
    @Test func theContractsExampleParses() throws {
        let options = try RenderOptions(arguments: ["--socket", "3", "--document", "4:menu.pdf", "--document", "5:plan.svg",
                                                    "--page-width", "1280", "--cell", "1280x800", "--gap", "16", "--direction", "vertical",
                                                    "--background", "#101820", "--detail-max", "2", "--tile-size", "256", "--slots", "16",
                                                    "--max-pages", "2000", "--memory-mb", "512"])
        #expect(options.socket == 3)
        #expect(options.documents == [.init(fd: 4, name: "menu.pdf"), .init(fd: 5, name: "plan.svg")])
        #expect(options.pageWidth == 1280 && options.cell == DocumentLayout.PixelSize(width: 1280, height: 800))
        #expect(options.gap == 16 && options.direction == .vertical && options.background == 0x10_18_20)
        #expect(options.detailMax == 2 && options.tileSize == 256 && options.slots == 16 && options.maxPages == 2000 && options.memoryMB == 512)
    }

    @Test func leftOutFlagsTakeTheirDefaults() throws {
        let options = try RenderOptions(arguments: ["--socket", "3", "--document", "4:a:b.pdf", "--page-width", "800", "--direction", "horizontal"])
        #expect(options.documents == [.init(fd: 4, name: "a:b.pdf")])  // only the first colon separates
        #expect(options.cell == nil && options.gap == 0 && options.direction == .horizontal && options.background == 0)
        #expect(options.detailMax == 0 && options.tileSize == 256 && options.slots == 16 && options.maxPages == 2000 && options.memoryMB == 512)
    }

    @Test func refusalsNameTheFlag() {
        func refused(_ arguments: [String]) -> String? {
            do {
                _ = try RenderOptions(arguments: ["--socket", "3", "--document", "4:a.pdf", "--page-width", "800"] + arguments)
                return nil
            } catch { return error.flag }
        }
        #expect(refused([]) == nil)
        #expect(refused(["--cell", "1280"]) == "--cell")
        #expect(refused(["--cell", "0x800"]) == "--cell")
        #expect(refused(["--gap", "4097"]) == "--gap")
        #expect(refused(["--direction", "diagonal"]) == "--direction")
        #expect(refused(["--background", "#12345"]) == "--background")
        #expect(refused(["--background", "101820"]) == "--background")
        #expect(refused(["--background", "#10182g"]) == "--background")
        #expect(refused(["--detail-max", "4"]) == "--detail-max")
        #expect(refused(["--tile-size", "32"]) == "--tile-size")
        #expect(refused(["--slots", "65"]) == "--slots")
        #expect(refused(["--max-pages", "0"]) == "--max-pages")
        #expect(refused(["--memory-mb", "abc"]) == "--memory-mb")
        #expect(refused(["--document", "4"]) == "--document")
        #expect(refused(["--document", "5:dir/a.pdf"]) == "--document")
        #expect(refused(["--document", "2:a.pdf"]) == "--document")  // stderr is never a document
        #expect(refused(["--document", "4:b.pdf"]) == "--document")  // a descriptor given twice
        #expect(refused(["--page-width"]) == "--page-width")
        #expect(refused(["--verbose", "1"]) == "--verbose")
        #expect((try? RenderOptions(arguments: ["--document", "4:a.pdf", "--page-width", "800"])) == nil)
        #expect((try? RenderOptions(arguments: ["--socket", "3", "--page-width", "800"])) == nil)
        #expect((try? RenderOptions(arguments: ["--socket", "3", "--document", "4:a.pdf"])) == nil)
    }

    @Test func aRefusalIsOneLineWithTheUsageKind() {
        let error = RenderUsageError(flag: "--gap", expected: "a whole number from 0 to 4096", found: "-1")
        #expect(error.description == "flickd-render: --gap: expected a whole number from 0 to 4096, got -1")
        #expect(error.kind == .usage)
    }
}

/// What a file is, by its first bytes; and the lines the helper writes.
struct DocumentKindTests {
    @Test func pdfsAreFoundByTheirHeaderWithinTheFirstKilobyte() {
        #expect(DocumentKind.sniff(Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(DocumentKind.sniff(Array(repeating: 0x20, count: 1000) + Array("%PDF-1.4".utf8)) == .pdf)
        #expect(DocumentKind.sniff(Array(repeating: 0x20, count: 1020) + Array("%PDF-1.4".utf8)) == nil)
        #expect(DocumentKind.sniff(Array("%PDF".utf8)) == nil)
        #expect(DocumentKind.sniff([]) == nil)
    }

    @Test func svgsAreFoundByTheirFirstElement() {
        #expect(DocumentKind.sniff(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(DocumentKind.sniff([0xEF, 0xBB, 0xBF] + Array("\n <?xml version=\"1.0\"?>\n<!-- plan -->\n<svg>".utf8)) == .svg)
        #expect(DocumentKind.sniff(Array("<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY a \"<b>\">]><svg\twidth=\"1\">".utf8)) == .svg)
        #expect(DocumentKind.sniff(Array("<html><svg></svg></html>".utf8)) == nil)
        #expect(DocumentKind.sniff(Array("<svgx>".utf8)) == nil)
        #expect(DocumentKind.sniff(Array("<?xml version=\"1.0\"".utf8)) == nil)
        #expect(DocumentKind.sniff(Array("<!-- never closed <svg>".utf8)) == nil)
    }

    @Test func linesAreJSONWithNamesEscaped() {
        let error = DocumentError(file: "m\"e\\n\u{1}.pdf", page: 2, reason: .truncated, detail: "is damaged")
        #expect(HelperMessages.documentError(error)
                == "{\"id\":1,\"cmd\":\"documentError\",\"file\":\"m\\\"e\\\\n\\u0001.pdf\",\"page\":2,\"reason\":\"truncated\","
                + "\"message\":\"m\\\"e\\\\n\\u0001.pdf: is damaged\"}\n")
        #expect(HelperMessages.tile(7, drawn: true) == "{\"cmd\":\"tile\",\"request\":7}\n")
        #expect(HelperMessages.tile(8, drawn: false) == "{\"cmd\":\"tile\",\"request\":8,\"drawn\":false}\n")
    }

    @Test func pageSizesTravelInRunsAndReadBackToTheSameBits() throws {
        var options = RenderOptions(socket: 3, documents: [], pageWidth: 1280)
        options.gap = 16
        let letter = Array(SampleSVGText.sized(612, 792).utf8), a4 = Array(SampleSVGText.sized(595.2756, 841.8898).utf8)
        let document = try Document(files: [("a.svg", letter), ("b.svg", letter), ("c.svg", a4)], options: options)
        // librsvg reads lengths as 32-bit floats: 595.2756 becomes 595.2755737304688, which is
        // what travels, digit for digit, so flickd lays out exactly what the helper did.
        let sizes = document.pageSizes
        #expect(sizes.count == 3 && sizes[0] == DocumentPageSize(width: 612, height: 792) && sizes[1] == sizes[0])
        let line = HelperMessages.provide(document, tileSize: 256, slots: 16, detail: 2)
        let runs = "[[612,792,2],[\(sizes[2].width),\(sizes[2].height),1]]"
        #expect(line.contains("\"document\":{\"files\":[\"a.svg\",\"b.svg\",\"c.svg\"],\"pages\":\(runs)}"), "\(line)")
        #expect(Double("\(sizes[2].width)")?.bitPattern == sizes[2].width.bitPattern)
        #expect(line.hasPrefix("{\"id\":1,\"cmd\":\"provide\",\"width\":1280,\"height\":\(document.layout.size.height),"))
    }
}

/// An SVG of a given size, for sizes that are not whole numbers.
enum SampleSVGText {
    static func sized(_ width: Double, _ height: Double) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\"><rect width=\"10\" height=\"10\"/></svg>"
    }
}
