import FlickDocument
import FlickDocumentSamples
import Foundation
import Testing

/// An SVG's `<a>` elements as the helper finds them (expat, before librsvg loads the bytes) and
/// measures them (librsvg, by id, with the page as the viewport).
struct SVGLinkTests {
    static let options = RenderOptions(socket: 3, documents: [], pageWidth: 1280)

    @Test func linksAreMeasuredOnThePageWithOrWithoutAnIdOfTheirOwn() throws {
        let document = try Document(files: [("plan.svg", Array(SampleSVG.linkedPlan().utf8))], options: Self.options)
        #expect(document.pageSizes == [.init(width: 800, height: 600)])
        let links = document.links(page: 0)
        // Every length of the plan's viewBox doubles on the page.
        #expect(areNear(links, [
            PageLink(page: 0, x: 40, y: 40, width: 120, height: 60, target: .page(0, x: 380, y: 40)),
            PageLink(page: 0, x: 200, y: 40, width: 120, height: 60, target: .uri("https://example.com/menu")),
            PageLink(page: 0, x: 580, y: 480, width: 40, height: 40, target: .page(0, x: 40, y: 300)),
            PageLink(page: 0, x: 40, y: 200, width: 80, height: 40, target: .missing("no element with id \"nowhere\" in plan.svg")),
            PageLink(page: 0, x: 400, y: 400, width: 80, height: 80, target: .page(0, x: 380, y: 40)),
        ]), "\(links)")
        // Measured once: the same links again.
        #expect(document.links(page: 0) == links)
        #expect(document.links(page: 1).isEmpty)
    }

    @Test func theInsertedIdsChangeNothingDrawn() throws {
        let bytes = Array(SampleSVG.linkedPlan().utf8)
        let document = try Document(files: [("plan.svg", bytes)], options: Self.options)
        let tiles = try AskedTile.at(zoom: 1, size: document.layout.size, detail: document.layout.detail(maximum: 2))
        try TileComparisonTests().compare(document, tiles) { _ in .svg(bytes: bytes) }
    }

    @Test func aFileInAnEncodingExpatRefusesHasNoLinksAndIsStillDrawn() throws {
        let document = try Document(files: [("plan.svg", SampleSVG.windows1252Plan())], options: Self.options)
        #expect(document.links(page: 0).isEmpty)
        let pixels = try PagePixels(document, page: 0)
        #expect(pixels[20, 30] == 0)  // the rect the link would have covered, black
    }

    /// Where the bytes at expat's position are not the `<a` as written (an entity's
    /// replacement), no id can go in; an `<a>` whose id an earlier element has cannot be found by
    /// it: such links are left out, and nothing breaks.
    @Test func aLinkNoIdCanBeWrittenForIsLeftOutWithoutHarm() throws {
        let entity = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [<!ENTITY door '<a href="https://example.com/door"><rect x="100" y="20" width="30" height="40"/></a>'>]>
            <svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">&door;<a href="https://example.com/exit"><rect x="200" y="20" width="30" height="40"/></a>
            <rect id="twice" x="0" y="0" width="5" height="5"/><a id="twice" href="https://example.com/twice"><rect x="300" y="20" width="30" height="40"/></a></svg>
            """
        let entities = try Document(files: [("plan.svg", Array(entity.utf8))], options: Self.options)
        #expect(areNear(entities.links(page: 0), [PageLink(page: 0, x: 200, y: 20, width: 30, height: 40, target: .uri("https://example.com/exit"))]),
                "\(entities.links(page: 0))")
    }

    @Test func aPageWithoutLinksHasNone() throws {
        let document = try Document(files: [("plan.svg", Array(SampleSVG.floorPlan().utf8))], options: Self.options)
        #expect(document.links(page: 0).isEmpty)
    }

    /// 5000 links in rows: the first 1000 kept, measured in a fraction of a second.
    @Test func fiveThousandLinksInRowsAreCappedAtAThousand() throws {
        let started = ContinuousClock.now
        let document = try Document(files: [("seats.svg", Array(SampleSVG.manyLinks(5000, rows: true).utf8))], options: Self.options)
        let links = document.links(page: 0)
        let took = ContinuousClock.now - started
        #expect(links.count == 1000)
        #expect(links.first.map { $0.isNear(PageLink(page: 0, x: 0, y: 0, width: 10, height: 10, target: .page(0, x: 20, y: 0))) } == true)
        #expect(links.last.map { $0.isNear(PageLink(page: 0, x: 1980, y: 180, width: 10, height: 10, target: .page(0, x: 0, y: 200))) } == true)
        #expect(took < .seconds(3), "\(took)")
        print("5000 links in rows: \(links.count) kept, \(took) to open and measure")
    }

    /// 5000 links side by side, the costliest to measure: fewer kept, in a bounded time.
    @Test func fiveThousandFlatLinksAreMeasuredWithinTheBudget() throws {
        let started = ContinuousClock.now
        let document = try Document(files: [("seats.svg", Array(SampleSVG.manyLinks(5000, rows: false).utf8))], options: Self.options)
        let opened = ContinuousClock.now
        let links = document.links(page: 0)
        let measured = ContinuousClock.now
        #expect(links.count > 100 && links.count < 1000, "\(links.count)")
        #expect(links.first.map { $0.isNear(PageLink(page: 0, x: 0, y: 0, width: 10, height: 10, target: .page(0, x: 20, y: 0))) } == true)
        #expect(measured - opened < .seconds(3), "\(measured - opened)")
        print("5000 flat links: \(links.count) kept, opened in \(opened - started), measured in \(measured - opened)")
    }
}
