import FlickCore
import Testing
@testable import FlickDisplay

/// A tall pattern scrolled vertically in a 120×400 view; only the vertical bar can show.
private func tallScene(offsetY: Double, opacity: Double) throws -> (frame: PixelBuffer, content: PixelBuffer) {
    let content = try #require(TestPattern.make(PixelSize(width: 120, height: 2000)))
    let state = RenderState(boundsSize: Size(width: 120, height: 400), contentOffset: Point(x: 0, y: offsetY),
                            contentSize: Size(width: 120, height: 2000), indicatorOpacity: opacity)
    return (try renderOnce(state, content: content, panel: PixelSize(width: 120, height: 400), style: blackIndicators), content)
}

/// The rows of column `x` that differ from the content scrolled by `offsetY`.
private func darkenedRows(_ frame: PixelBuffer, _ content: PixelBuffer, x: Int, offsetY: Int) -> [Int] {
    (0..<frame.height).filter { y in
        let source = y + offsetY
        return source < 0 || source >= content.height || frame[x, y] != content[x, source]
    }
}

@Test func indicatorDuringDragIsInPlaceAndProportional() throws {
    let (frame, content) = try tallScene(offsetY: 800, opacity: 1)
    // Track 394 px (3 px insets), visible 400 of 2000 → 78.8 px long; halfway → starts at 160.6.
    let rows = darkenedRows(frame, content, x: 115, offsetY: 800)
    #expect(rows.count >= 77 && rows.count <= 81, "bar length \(rows.count)")
    #expect(rows.first.map { abs($0 - 161) <= 1 } == true, "bar starts at \(String(describing: rows.first))")
    // The middle of the bar: black at alpha 0.45 over the content, exactly.
    let alpha = UInt32((0.45 * 255).rounded())
    #expect(frame[115, 200] == blend(0, over: content[115, 1000], alpha: alpha))
    // 3 px thick, 3 px from the right edge: columns 114…116 only.
    #expect(frame[113, 200] == content[113, 1000])
    #expect(frame[117, 200] == content[117, 1000])
    #expect(frame[114, 200] != content[114, 1000] && frame[116, 200] != content[116, 1000])
    // The rounded end is only partly covered, so lighter than the body.
    #expect(channels(frame[115, rows[0]]).g > channels(blend(0, over: content[115, rows[0] + 800], alpha: alpha)).g)
}

@Test func indicatorAtTheTopAndBottom() throws {
    let (top, content) = try tallScene(offsetY: 0, opacity: 1)
    #expect(darkenedRows(top, content, x: 115, offsetY: 0).first == 3)
    let (bottom, _) = try tallScene(offsetY: 1600, opacity: 1)
    #expect(darkenedRows(bottom, content, x: 115, offsetY: 1600).last == 396)
}

@Test func indicatorShrinksWhenRubberBanded() throws {
    let content = try #require(TestPattern.make(PixelSize(width: 120, height: 2000)))
    let panel = PixelSize(width: 120, height: 400)
    var state = RenderState(boundsSize: panel.size, contentOffset: Point(x: 0, y: -60),
                            contentSize: Size(width: 120, height: 2000), indicatorOpacity: 1, background: .white)
    let with = try renderOnce(state, content: content, panel: panel, style: blackIndicators)
    state.indicatorOpacity = 0
    let without = try renderOnce(state, content: content, panel: panel, style: blackIndicators)
    let bar = (0..<panel.height).filter { with[115, $0] != without[115, $0] }
    // 78.8 − 60 px of overshoot ≈ 19 px, pinned to the top of the track.
    #expect(bar.count >= 17 && bar.count <= 21, "rubber-banded bar length \(bar.count)")
    #expect(bar.first == 3)
    // Far past the edge it is a dot, as long as it is thick.
    state.contentOffset.y = -300
    state.indicatorOpacity = 1
    let dot = ScrollIndicators.bars(for: state, style: blackIndicators)
    #expect(dot.first?.frame.size.height == 3)
    // A dot has no straight part; drawn in either style, it stays inside its frame, at half
    // coverage or more in its middle (a replay once trapped on the empty straight range).
    for style in [blackIndicators, IndicatorStyle()] {
        let bar = try #require(ScrollIndicators.bars(for: state, style: style).first)
        var drawn: [(Int, Int)] = []
        ScrollIndicators.forEachPixel(of: bar, style: style, within: PixelRect(x0: 0, y0: 0, x1: 120, y1: 400)) { x, y, _ in
            drawn.append((x, y))
        }
        #expect(!drawn.isEmpty)
        #expect(drawn.allSatisfy { Double($0.0) >= bar.frame.minX.rounded(.down) && Double($0.0) < bar.frame.maxX
                && Double($0.1) >= bar.frame.minY.rounded(.down) && Double($0.1) < bar.frame.maxY }, "\(drawn)")
    }
}

@Test func indicatorGoneAtZeroOpacity() throws {
    let (frame, content) = try tallScene(offsetY: 800, opacity: 0)
    #expect(darkenedRows(frame, content, x: 115, offsetY: 800).isEmpty)
    #expect(darkenedRows(frame, content, x: 114, offsetY: 800).isEmpty)
}

@Test func indicatorAlphaFollowsOpacity() throws {
    let (frame, content) = try tallScene(offsetY: 800, opacity: 0.5)
    let alpha = UInt32((0.225 * 255).rounded())
    #expect(frame[115, 200] == blend(0, over: content[115, 1000], alpha: alpha))
}

@Test func bothBarsLeaveTheCornerFree() {
    let state = RenderState(boundsSize: Size(width: 300, height: 200), contentOffset: Point(x: 10, y: 10),
                            contentSize: Size(width: 900, height: 600), indicatorOpacity: 1)
    let bars = ScrollIndicators.bars(for: state, style: blackIndicators)
    #expect(bars.map(\.axis) == [.horizontal, .vertical])
    let h = bars[0].frame, v = bars[1].frame
    #expect(h.minY == 200 - 3 - 3 && h.size.height == 3)
    #expect(v.minX == 300 - 3 - 3 && v.size.width == 3)
    #expect(h.maxX <= 300 - 3 - 3 && v.maxY <= 200 - 3 - 3)
    // A third of each axis is visible.
    #expect(abs(h.size.width - (300 - 6 - 3) / 3) < 1e-9)
    #expect(abs(v.size.height - max(36, (200 - 6 - 3) / 3)) < 1e-9)
}

@Test func noBarForAnAxisThatFits() {
    let state = RenderState(boundsSize: Size(width: 300, height: 200), contentSize: Size(width: 300, height: 150),
                            indicatorOpacity: 1)
    #expect(ScrollIndicators.bars(for: state).isEmpty)
}
