@testable import FlickCore
import Testing

/// A tap on a document's link follows it instead of reaching the content: to its page, animated
/// as `page N` is, or said for the app; a tap beside every link is the content's as before.
struct DocumentLinkTests {
    /// Three A4 pages 800 px wide, 16 px apart, vertically: 841.89 × 800 / 595.28 = 1131.4 px high.
    static let points = Size(width: 595.28, height: 841.89)
    static let scale = 800 / 595.28
    static func pages(paging: Bool = false) -> DocumentLinks {
        let height = points.height * scale
        return DocumentLinks(pages: (0..<3).map { i in
            DocumentLinks.Page(frame: Rect(x: 0, y: Double(i) * (height + 16), width: 800, height: height), points: points)
        }, paging: paging)
    }

    /// A 100 × 20 pt link at (100, 200) pt going to `target`.
    static func link(_ target: DocumentLink.Target) -> DocumentLink {
        DocumentLink(rect: Rect(x: 100, y: 200, width: 100, height: 20), target: target)
    }

    @Test func pointsBecomeContentCoordinatesOnTheirPage() throws {
        var links = Self.pages()
        links.add(page: 1, links: [Self.link(.uri("https://example.com"))])
        let area = try #require(links.areas.first)
        let top = 841.89 * Self.scale + 16
        #expect(abs(area.rect.origin.x - 100 * Self.scale) < 1e-9 && abs(area.rect.origin.y - (top + 200 * Self.scale)) < 1e-9)
        #expect(abs(area.rect.size.width - 100 * Self.scale) < 1e-9 && abs(area.rect.size.height - 20 * Self.scale) < 1e-9)
        #expect(links.hit(Point(x: 150 * Self.scale, y: top + 210 * Self.scale), slop: 0) == area)
        #expect(links.hit(Point(x: 150 * Self.scale, y: 210 * Self.scale), slop: 0) == nil, "page 0 has no link there")
        // Beside it: within the slop, the nearest; beyond it, none.
        #expect(links.hit(Point(x: 150 * Self.scale, y: top + 220 * Self.scale + 5), slop: 8) == area)
        #expect(links.hit(Point(x: 150 * Self.scale, y: top + 220 * Self.scale + 9), slop: 8) == nil)
    }

    @Test func aLinkToAPageGoesToItsPositionOrItsCornerWhenPaging() throws {
        var links = Self.pages()
        links.add(page: 0, links: [Self.link(.page(2, x: nil, y: 100)), Self.link(.page(1, x: nil, y: nil))])
        let top2 = 2 * (841.89 * Self.scale + 16)
        // The later of two overlapping links is the one on top.
        #expect(links.hit(Point(x: 150 * Self.scale, y: 210 * Self.scale), slop: 0)?.destination == Point(x: 0, y: 841.89 * Self.scale + 16))
        #expect(links.areas[0].destination.map { abs($0.y - (top2 + 100 * Self.scale)) < 1e-9 } == true)
        var paged = Self.pages(paging: true)
        paged.add(page: 0, links: [Self.link(.page(2, x: 30, y: 100))])
        #expect(paged.areas[0].destination == Point(x: 0, y: top2))
    }

    @Test func linksOfAMissingPageOrWithoutAreaAreLeftOutAndTheLimitHolds() {
        var links = Self.pages()
        links.add(page: 3, links: [Self.link(.uri("x"))])
        links.add(page: 0, links: [DocumentLink(rect: Rect(x: 1, y: 1, width: 0, height: 5), target: .uri("x"))])
        #expect(links.areas.isEmpty)
        #expect(DocumentLinks().hit(Point(x: 0, y: 0), slop: 100) == nil)
    }

    /// The recogniser over the three pages, links on page 0.
    private func harness(_ links: [DocumentLink]) -> GestureHarness {
        var h = GestureHarness(content: Size(width: 800, height: 3 * 841.89 * Self.scale + 32),
                               scroll: { try $0.setZoomScaleLimits(minimum: 1, maximum: 4) })
        var table = Self.pages()
        table.add(page: 0, links: links)
        h.recognizer.links = table
        return h
    }

    private func tap(_ h: inout GestureHarness, _ x: Double, _ y: Double) {
        h.down(1, x, y); h.send(); h.advance(ms: 60); h.up(1); h.send()
    }

    @Test func aTapOnALinkToAPageScrollsThereAnimatedAndTheContentHearsNoTap() throws {
        var h = harness([Self.link(.page(2, x: nil, y: 100))])
        tap(&h, 150 * Self.scale, 210 * Self.scale)
        h.advance(ms: 100)
        #expect(h.view.isAnimating, "animated, as page N is")
        h.settle()
        let out = h.take()
        let top2 = 2 * (841.89 * Self.scale + 16)
        #expect(abs(h.view.contentOffset.y - (top2 + 100 * Self.scale)) < 1e-6)
        #expect(GestureHarness.taps(out) == 0)
        #expect(!GestureHarness.content(out).contains { if case .tap = $0 { true } else { false } })
        let gestures = GestureHarness.gestures(out)
        #expect(gestures.contains { if case let .link(_, area) = $0 { area.page == 0 && area.target == .page(2, x: nil, y: 100) } else { false } }, "\(gestures)")
    }

    @Test func aTapOnAURIIsOnlySaidAndATapBesideIsTheContents() {
        var h = harness([Self.link(.uri("https://example.com/menu"))])
        tap(&h, 150 * Self.scale, 210 * Self.scale)
        h.settle()
        var out = h.take()
        #expect(h.view.contentOffset == Point(x: 0, y: 0))
        #expect(GestureHarness.gestures(out).contains { if case let .link(_, area) = $0 { area.target == .uri("https://example.com/menu") && area.destination == nil } else { false } })
        #expect(GestureHarness.taps(out) == 0)
        h.advance(ms: 1000)
        tap(&h, 600, 400)
        h.settle()
        out = h.take()
        #expect(GestureHarness.taps(out) == 1)
        #expect(!GestureHarness.gestures(out).contains { if case .link = $0 { true } else { false } })
    }

    @Test func theSlopIsInScreenPixelsAtAnyZoom() {
        var h = harness([Self.link(.uri("u"))])
        let t = h.now
        _ = h.recognizer.update(at: t) { try? $0.setZoomScale(4, contentOffset: Point(x: 0, y: 0), animated: false, at: t) }
        #expect(h.view.zoomScale == 4 && h.view.contentOffset == Point(x: 0, y: 0))
        // 6 screen px below the link's bottom edge at zoom 4: 1.5 content px.
        let bottom = 220 * Self.scale * 4
        tap(&h, 150 * Self.scale * 4, bottom + 6)
        h.settle()
        #expect(GestureHarness.gestures(h.take()).contains { if case .link = $0 { true } else { false } })
        h.advance(ms: 1000)
        tap(&h, 150 * Self.scale * 4, bottom + 12)
        h.settle()
        #expect(GestureHarness.taps(h.take()) == 1)
    }
}
