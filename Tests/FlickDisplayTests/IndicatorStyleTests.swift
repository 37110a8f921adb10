import FlickCore
import Testing
@testable import FlickDisplay

// Issue 21, part 3: UIKit's three indicator styles, `scrollIndicatorInsets`, and the content
// inset in the bar's length and position. Every number below is worked out by hand from
// `ScrollIndicators.bars`' rule (docs/indicators.md), on a 120×400 view of 120×2000 content.

private let panel = PixelSize(width: 120, height: 400)

private func style(_ scheme: IndicatorStyle.Scheme, insets: EdgeInsets = .zero) -> IndicatorStyle {
    var s = IndicatorStyle()
    s.scheme = scheme
    s.insets = insets
    return s
}

/// The background alone (no content) with the bars of `state` over it.
private func frame(offsetY: Double, background: Color, style: IndicatorStyle, contentInset: EdgeInsets = .zero,
                   contentHeight: Double = 2000) throws -> PixelBuffer {
    var state = RenderState(boundsSize: panel.size, contentOffset: Point(x: 0, y: offsetY),
                            contentSize: Size(width: 120, height: contentHeight), indicatorOpacity: 1, background: background)
    state.contentInset = contentInset
    return try renderOnce(state, content: nil, panel: panel, style: style)
}

/// The rows of column `x` that are not the background.
private func barRows(_ f: PixelBuffer, x: Int, background: Color) -> [Int] {
    (0..<f.height).filter { f[x, $0] != background.pixel }
}

/// The largest difference of any channel between a pixel of the frame and the background.
private func contrast(_ f: PixelBuffer, against background: Color) -> Int {
    var most = 0
    let b = channels(background.pixel)
    for y in 0..<f.height {
        for x in 0..<f.width {
            let p = channels(f[x, y])
            most = max(most, abs(p.r - b.r), abs(p.g - b.g), abs(p.b - b.b))
        }
    }
    return most
}

@Test func theDefaultStyleIsADarkBarInALightBorderVisibleOnBlackAndOnWhite() throws {
    // 3 px body + 1 px border each side, 3 px from the right edge: x 112…116, body 113…115.
    let alpha = UInt32((0.45 * 255).rounded())
    let onBlack = try frame(offsetY: 800, background: .black, style: IndicatorStyle())
    #expect(onBlack[112, 200] == blend(0xFFFFFF, over: Color.black.pixel, alpha: alpha))  // the border: light
    #expect(onBlack[116, 200] == blend(0xFFFFFF, over: Color.black.pixel, alpha: alpha))
    #expect(onBlack[114, 200] == Color.black.pixel)                                       // the body: dark
    #expect(onBlack[111, 200] == Color.black.pixel && onBlack[117, 200] == Color.black.pixel)
    let onWhite = try frame(offsetY: 800, background: .white, style: IndicatorStyle())
    #expect(onWhite[114, 200] == blend(0, over: Color.white.pixel, alpha: alpha))
    #expect(onWhite[112, 200] == Color.white.pixel && onWhite[116, 200] == Color.white.pixel)
    // Out of the box (black background, default style) the bar shows: 0.45 × 255 = 115 levels.
    #expect(contrast(onBlack, against: .black) == 115 && contrast(onWhite, against: .white) == 115)
}

@Test func eachStyleIsVisibleWhereUIKitSaysItIs() throws {
    // UIKit: default "good against any content background", black against white, white against
    // black. A borderless bar of the background's own colour cannot show, and does not.
    let expected: [(IndicatorStyle.Scheme, Color, Int)] = [
        (.default, .black, 115), (.default, .white, 115),
        (.black, .white, 115), (.black, .black, 0),
        (.white, .black, 115), (.white, .white, 0),
    ]
    for (scheme, background, levels) in expected {
        let f = try frame(offsetY: 800, background: background, style: style(scheme))
        #expect(contrast(f, against: background) == levels, "\(scheme) on \(background)")
    }
    // Black and white are the thinner bars: 3 px, 3 px from the edge (the default is 5 px wide).
    let white = try frame(offsetY: 800, background: .black, style: style(.white))
    #expect((110..<120).filter { white[$0, 200] != Color.black.pixel } == [114, 115, 116])
}

@Test func indicatorInsetsMoveAndShortenTheTrack() throws {
    let insets = EdgeInsets(top: 20, left: 0, bottom: 30, right: 10)
    // Track: 400 − 20 − 30 − 2 × 3 = 344 px from y = 23; 400/2000 of it = 68.8 px long;
    // across: 120 − 10 − 3 − 3 = 104, so columns 104…106.
    let top = try frame(offsetY: 0, background: .white, style: style(.black, insets: insets))
    let rows = barRows(top, x: 105, background: .white)
    #expect(rows.first == 23 && rows.last == 91)            // 23 + 68.8 = 91.8
    #expect(barRows(top, x: 103, background: .white).isEmpty && barRows(top, x: 107, background: .white).isEmpty)
    #expect(barRows(top, x: 104, background: .white) == rows && barRows(top, x: 106, background: .white) == rows)
    // At the end the bar ends at the track's end: 400 − 30 − 3 = 367 (rows up to 366).
    let bottom = try frame(offsetY: 1600, background: .white, style: style(.black, insets: insets))
    let end = barRows(bottom, x: 105, background: .white)
    #expect(end.last == 366 && end.first == 298)            // 367 − 68.8 = 298.2
    // Both bars: the horizontal one runs along the bottom inset, short of the right inset and the corner.
    let state = RenderState(boundsSize: panel.size, contentSize: Size(width: 600, height: 2000), indicatorOpacity: 1)
    let bars = ScrollIndicators.bars(for: state, style: style(.black, insets: insets))
    #expect(bars.map(\.axis) == [.horizontal, .vertical])
    #expect(bars[0].frame == Rect(x: 3, y: 400 - 30 - 3 - 3, width: 36, height: 3))   // track 101 px: 101/5 < 36
    #expect(bars[1].frame == Rect(x: 104, y: 23, width: 3, height: 341 * 400 / 2000))  // track 344 − 3
}

@Test func theContentInsetIsScrollableSpaceInTheBarsLengthAndPosition() throws {
    let inset = EdgeInsets(top: 100, left: 0, bottom: 100, right: 0)
    // Offsets −100…1700 (2200 px of content and insets): 394 × 400/2200 = 71.64 px long.
    // Halfway (800): y = 3 + ½ × (394 − 71.64) = 164.18 … 235.82; without the inset it would
    // be 78.8 px from 160.6.
    let middle = barRows(try frame(offsetY: 800, background: .white, style: style(.black), contentInset: inset),
                         x: 115, background: .white)
    #expect(middle.first == 164 && middle.last == 235)
    let plain = barRows(try frame(offsetY: 800, background: .white, style: style(.black)), x: 115, background: .white)
    #expect(plain.first == 160 && plain.last == 239)
    // At −100 the view is at the top of the inset range: the bar is whole at the track's top,
    // not rubber-banded (it would be 100 px past the edge without the inset).
    let top = barRows(try frame(offsetY: -100, background: .white, style: style(.black), contentInset: inset),
                      x: 115, background: .white)
    #expect(top.first == 3 && top.last == 74)                // 3 + 71.64
    // 60 px past that it shrinks by 60: 11.64 px.
    let past = barRows(try frame(offsetY: -160, background: .white, style: style(.black), contentInset: inset),
                       x: 115, background: .white)
    #expect(past.first == 3 && past.last == 14)
    // Content that fits is scrollable through its inset, and shows a bar: 394 × 400/500 = 315.2.
    let fits = barRows(try frame(offsetY: 0, background: .white, style: style(.black),
                                 contentInset: EdgeInsets(bottom: 100), contentHeight: 400), x: 115, background: .white)
    #expect(fits.first == 3 && fits.last == 318)
}

@Test func aTrackInsetAwayShowsNoBar() {
    let state = RenderState(boundsSize: panel.size, contentSize: Size(width: 120, height: 2000), indicatorOpacity: 1)
    #expect(ScrollIndicators.bars(for: state, style: style(.black, insets: EdgeInsets(top: 200, bottom: 200))).isEmpty)
}

@Test func indicatorStripsMakeRoomForTheInsetAndTheBorder() {
    let view = PixelSize(width: 1024, height: 768)
    var s = style(.default, insets: EdgeInsets(top: 0, left: 0, bottom: 7, right: 40))
    // 40 + 3 + (3 + 2) = 48 px deep on the right; the bottom's 7 + 8 stays at the 32 px minimum.
    #expect(IndicatorStrips.rect(for: .vertical, view: view, style: s) == PixelRect(x0: 1024 - 48, y0: 0, x1: 1024, y1: 768))
    #expect(IndicatorStrips.rect(for: .horizontal, view: view, style: s) == PixelRect(x0: 0, y0: 768 - 32, x1: 1024, y1: 768))
    s.scheme = .white
    #expect(IndicatorStrips.rect(for: .vertical, view: view, style: s) == PixelRect(x0: 1024 - 46, y0: 0, x1: 1024, y1: 768))
}
