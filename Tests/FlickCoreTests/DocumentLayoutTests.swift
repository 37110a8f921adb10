import FlickCore
import Testing

/// `DocumentLayout`: the one computation of where a document's pages lie, shared by flickd and
/// flickd-render (docs/documents.md, "Layout").
struct DocumentLayoutTests {
    let a4 = DocumentPageSize(width: 595.28, height: 841.89)
    let letterLandscape = DocumentPageSize(width: 792, height: 612)

    @Test func continuousVerticalStacksPagesWithGapsBetween() throws {
        let layout = try DocumentLayout(pages: [a4, letterLandscape, a4], direction: .vertical, pageWidth: 1280, gap: 16, maxPages: 10)
        // 841.89 × 1280 / 595.28 = 1810.3 → 1810; 612 × 1280 / 792 = 989.09 → 989.
        #expect(layout.pages == [Rect(x: 0, y: 0, width: 1280, height: 1810),
                                 Rect(x: 0, y: 1826, width: 1280, height: 989),
                                 Rect(x: 0, y: 2831, width: 1280, height: 1810)])
        #expect(layout.size == DocumentLayout.PixelSize(width: 1280, height: 4641))
    }

    @Test func continuousHorizontalPlacesPagesSideBySideAsTallAsTheTallest() throws {
        let layout = try DocumentLayout(pages: [letterLandscape, a4], direction: .horizontal, pageWidth: 1000, gap: 10, maxPages: 10)
        // 612 × 1000 / 792 = 772.7 → 773; 841.89 × 1000 / 595.28 = 1414.3 → 1414.
        #expect(layout.pages == [Rect(x: 0, y: 0, width: 1000, height: 773), Rect(x: 1010, y: 0, width: 1000, height: 1414)])
        #expect(layout.size == DocumentLayout.PixelSize(width: 2010, height: 1414))
    }

    @Test func heightsRoundHalfAwayFromZeroAndAreAtLeastOnePixel() throws {
        // 1 × 2.5 → 2.5 px at width 1 → 3 (half away from zero, not to even); 1000 × 1 at 100 px → 0.1 → 1.
        let half = try DocumentLayout(pages: [DocumentPageSize(width: 2, height: 5)], direction: .vertical, pageWidth: 1, gap: 0, maxPages: 1)
        #expect(half.size == DocumentLayout.PixelSize(width: 1, height: 3))
        let thin = try DocumentLayout(pages: [DocumentPageSize(width: 1000, height: 1)], direction: .vertical, pageWidth: 100, gap: 0, maxPages: 1)
        #expect(thin.pages == [Rect(x: 0, y: 0, width: 100, height: 1)])
        let quarter = try DocumentLayout(pages: [DocumentPageSize(width: 4, height: 1)], direction: .vertical, pageWidth: 10, gap: 0, maxPages: 1)
        #expect(quarter.size.height == 3)  // 2.5 → 3
    }

    @Test func pagedFitsEachPageIntoItsCellInsetByHalfTheGapAndCentred() throws {
        let cell = DocumentLayout.PixelSize(width: 1280, height: 800)
        let layout = try DocumentLayout(pages: [a4, letterLandscape], direction: .vertical, pageWidth: 1280, cell: cell, gap: 16, maxPages: 10)
        #expect(layout.size == DocumentLayout.PixelSize(width: 1280, height: 1600))
        // A4 in 1264 × 784: height-bound, 784 × 595.28 / 841.89 = 554.35 → 554 wide, centred: x = (1280 − 554) / 2.
        #expect(layout.pages[0] == Rect(x: 363, y: 8, width: 554, height: 784))
        // Letter landscape: 784 high → 1014.6 wide (fits 1264) → 1015 × 784 in the second cell.
        #expect(layout.pages[1] == Rect(x: 132, y: 808, width: 1015, height: 784))
        let sideways = try DocumentLayout(pages: [a4, a4, a4], direction: .horizontal, pageWidth: 1280, cell: cell, gap: 16, maxPages: 10)
        #expect(sideways.size == DocumentLayout.PixelSize(width: 3840, height: 800))
        #expect(sideways.pages.map(\.origin.x) == [363, 1643, 2923])
        // Every page lies inside its own cell: bounds-sized paging lands on pages.
        for (i, page) in sideways.pages.enumerated() {
            #expect(page.origin.x >= Double(i * 1280) && page.origin.x + page.size.width <= Double((i + 1) * 1280))
        }
    }

    @Test func aGapWiderThanTheCellLeavesOnePixel() throws {
        let layout = try DocumentLayout(pages: [a4], direction: .vertical, pageWidth: 10, cell: .init(width: 10, height: 10), gap: 40, maxPages: 1)
        #expect(layout.pages == [Rect(x: 4, y: 4, width: 1, height: 1)])
    }

    @Test func pageAtAnOffsetCountsTheGapWithThePageBefore() throws {
        let layout = try DocumentLayout(pages: [a4, letterLandscape, a4], direction: .vertical, pageWidth: 1280, gap: 16, maxPages: 10)
        #expect(layout.page(at: -50) == 0)
        #expect(layout.page(at: 0) == 0)
        #expect(layout.page(at: 1815) == 0)  // in the gap after page 0
        #expect(layout.page(at: 1826) == 1)
        #expect(layout.page(at: 2830.9) == 1)
        #expect(layout.page(at: 2831) == 2)
        #expect(layout.page(at: 1e9) == 2)
        let paged = try DocumentLayout(pages: [a4, a4], direction: .horizontal, pageWidth: 1280, cell: .init(width: 1280, height: 800), gap: 16, maxPages: 10)
        #expect(paged.page(at: 1279) == 0 && paged.page(at: 1280) == 1)
    }

    @Test func pagesInARectAreThoseWhosePaperMeetsIt() throws {
        let layout = try DocumentLayout(pages: [a4, letterLandscape, a4], direction: .vertical, pageWidth: 1280, gap: 16, maxPages: 10)
        #expect(layout.pages(in: Rect(x: 0, y: 0, width: 256, height: 256)) == 0..<1)
        #expect(layout.pages(in: Rect(x: 0, y: 1800, width: 256, height: 256)) == 0..<2)  // straddles the gap
        #expect(layout.pages(in: Rect(x: 0, y: 1810, width: 256, height: 16)).isEmpty)  // the gap alone
        #expect(layout.pages(in: Rect(x: 0, y: 1000, width: 10, height: 3000)) == 0..<3)
        #expect(layout.pages(in: Rect(x: 0, y: 5000, width: 10, height: 10)).isEmpty)
        #expect(layout.pages(in: Rect(x: 0, y: 100, width: 10, height: 0)).isEmpty)
        #expect(layout.pages(in: Rect(x: 0, y: .nan, width: 10, height: 10)).isEmpty)
        let sideways = try DocumentLayout(pages: [a4, a4], direction: .horizontal, pageWidth: 100, gap: 10, maxPages: 10)
        #expect(sideways.pages(in: Rect(x: 95, y: 0, width: 20, height: 1)) == 0..<2)
        #expect(sideways.pages(in: Rect(x: 100, y: 0, width: 10, height: 1)).isEmpty)
    }

    @Test func aHundredThousandPagesFindTheirPageByBinarySearch() throws {
        let layout = try DocumentLayout(pages: Array(repeating: DocumentPageSize(width: 100, height: 100), count: 100_000),
                                        direction: .vertical, pageWidth: 100, gap: 10, maxPages: 100_000)
        #expect(layout.size.height == 100_000 * 110 - 10)
        #expect(layout.page(at: 54_321 * 110 + 105) == 54_321)
        #expect(layout.pages(in: Rect(x: 0, y: 54_321 * 110 + 105, width: 1, height: 10)) == 54_322..<54_323)
    }

    @Test func detailIsLoweredUntilTheFinestLevelFits() throws {
        let tall = try DocumentLayout(pages: [DocumentPageSize(width: 1, height: 4000)], direction: .vertical, pageWidth: 1000, gap: 0, maxPages: 1)
        #expect(tall.size.height == 4_000_000)
        #expect(tall.detail(maximum: 3) == 2)  // 4 × 4 000 000 ≤ 16 777 216 < 8 × 4 000 000
        #expect(tall.detail(maximum: 1) == 1)
        #expect(tall.detail(maximum: -1) == 0)
        let small = try DocumentLayout(pages: [a4], direction: .vertical, pageWidth: 1280, gap: 0, maxPages: 1)
        #expect(small.detail(maximum: 9) == 3)
    }

    @Test func refusalsNameWhatIsWrongAndThePage() throws {
        func refusal(_ pages: [DocumentPageSize], direction: DocumentDirection = .vertical, pageWidth: Int = 1280,
                     cell: DocumentLayout.PixelSize? = nil, gap: Int = 16, maxPages: Int = 2000) -> DocumentLayoutError? {
            do {
                _ = try DocumentLayout(pages: pages, direction: direction, pageWidth: pageWidth, cell: cell, gap: gap, maxPages: maxPages)
                return nil
            } catch { return error }
        }
        #expect(refusal([]) == .noPages)
        #expect(refusal(Array(repeating: a4, count: 10_000)) == .tooManyPages(count: 10_000, maximum: 2000))
        #expect(refusal([a4, DocumentPageSize(width: 0, height: 10)]) == .invalidPageSize(page: 2, width: 0, height: 10))
        #expect(refusal([DocumentPageSize(width: -1, height: 10)])?.page == 1)
        #expect(refusal([DocumentPageSize(width: .nan, height: 10)])?.page == 1)
        #expect(refusal([a4, DocumentPageSize(width: 10, height: .infinity)])?.page == 2)
        let long = refusal([a4, a4, DocumentPageSize(width: 1, height: 100_000)])
        #expect(long == .pageTooLarge(page: 3, width: 1, height: 100_000, pageWidth: 1280, length: 128_000_000))
        #expect(long?.message(page: "menu.pdf: page 3")
                == "menu.pdf: page 3 is 1 × 100000 pt; laid out 1280 px wide it would be 128000000 px long (at most 16777216)")
        #expect(refusal([DocumentPageSize(width: 1e-300, height: 1e300)])?.page == 1)  // an infinite length
        // Pages of 1810 px, 1826 apart: page 9188 is the first to end past 2^24 (9188 × 1826 − 16 > 16 777 216).
        let many = refusal(Array(repeating: a4, count: 9270), maxPages: 10_000)
        guard case let .contentTooLarge(page, end)? = many else { Issue.record("got \(String(describing: many))"); return }
        #expect(page == 9188 && end == 9188 * 1826 - 16)
        #expect(refusal(Array(repeating: a4, count: 9187), maxPages: 10_000) == nil)
        let sideways = refusal(Array(repeating: a4, count: 20_000), direction: .horizontal, pageWidth: 1000, gap: 0, maxPages: 20_000)
        #expect(sideways == .contentTooLarge(page: 16_778, end: 16_778_000))
        let cells = refusal(Array(repeating: a4, count: 21_000), cell: .init(width: 1280, height: 800), maxPages: 30_000)
        #expect(cells == .contentTooLarge(page: 20_972, end: 20_972 * 800))
        // The settings' ranges.
        #expect(refusal([a4], pageWidth: 0)?.page == nil && refusal([a4], pageWidth: 0) != nil)
        #expect(refusal([a4], pageWidth: 16_777_217) != nil)
        #expect(refusal([a4], gap: -1) != nil && refusal([a4], gap: 4097) != nil && refusal([a4], gap: 4096) == nil)
        #expect(refusal([a4], cell: .init(width: 0, height: 800)) != nil)
        #expect(refusal([a4], maxPages: 0) != nil)
    }

    @Test func errorsRenderAsOneSentence() {
        #expect(DocumentLayoutError.noPages.description == "the document has no pages")
        #expect(DocumentLayoutError.tooManyPages(count: 10_000, maximum: 2000).description
                == "the document has 10000 pages (at most 2000: content.document_max_pages)")
        #expect(DocumentLayoutError.invalidPageSize(page: 4, width: 0, height: 841.89).description
                == "page 4 is 0 × 841.89 pt; expected a width and height greater than 0")
    }
}
