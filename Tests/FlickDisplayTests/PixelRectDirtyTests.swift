@testable import FlickDisplay
import Testing

/// The out-of-date parts a scan-out band keeps (`PixelRect.merging`): exact for repeats,
/// bounded for the rest.
@Suite struct PixelRectDirtyTests {
    func tile(_ column: Int, _ row: Int) -> PixelRect {
        PixelRect(x0: column * 256, y0: row * 256, x1: column * 256 + 256, y1: row * 256 + 256)
    }

    @Test func theSameTilesRedrawnFrameAfterFrameStayOneRectangleEach() {
        var dirty: [PixelRect] = []
        let scattered = (0..<40).map { tile($0 % 10 * 2, $0 / 10 * 2) }
        for _ in 0..<30 { dirty = PixelRect.merging(dirty, scattered) }
        #expect(dirty == scattered)
    }

    @Test func aRectangleInsideOneKeptAddsNothingAndOnesInsideANewOneGo() {
        let big = PixelRect(x0: 0, y0: 0, x1: 512, y1: 512)
        #expect(PixelRect.merging([big], [tile(1, 1), PixelRect(x0: 10, y0: 10, x1: 20, y1: 20)]) == [big])
        #expect(PixelRect.merging([tile(0, 0), tile(1, 1), tile(3, 3)], [big]) == [tile(3, 3), big])
        #expect(PixelRect.merging([tile(0, 0)], [PixelRect(x0: 5, y0: 5, x1: 5, y1: 9)]) == [tile(0, 0)])
    }

    @Test func pastTheLimitOneRectangleHoldsThemAll() {
        let many = (0..<9).map { tile($0, $0) }
        #expect(PixelRect.merging([], many, limit: 8) == [PixelRect(x0: 0, y0: 0, x1: 9 * 256, y1: 9 * 256)])
        #expect(PixelRect.merging([], Array(many.prefix(8)), limit: 8) == Array(many.prefix(8)))
    }
}
