import FlickCore
import Testing
@testable import FlickDisplay

/// A pattern image with the size and background used by these tests.
private func pattern(_ width: Int, _ height: Int) throws -> PixelBuffer {
    try #require(TestPattern.make(PixelSize(width: width, height: height)))
}

private let background = Color(rgb: 0x336699)

@Test func zoomOneIntegerOffsetIsAnExactCrop() throws {
    let content = try pattern(300, 200)
    let view = PixelSize(width: 120, height: 80)
    let state = RenderState(boundsSize: view.size, contentOffset: Point(x: 37, y: 51),
                            contentSize: Size(width: 300, height: 200), background: background)
    let frame = try renderOnce(state, content: content, panel: view)
    for y in 0..<view.height {
        for x in 0..<view.width where frame[x, y] != content[x + 37, y + 51] {
            Issue.record("pixel (\(x), \(y)) is \(frame[x, y]), expected \(content[x + 37, y + 51])")
            return
        }
    }
}

@Test func contentEndingInsideTheViewLeavesBackgroundAroundIt() throws {
    let content = try pattern(100, 60)
    let view = PixelSize(width: 120, height: 80)
    // Rubber-banded past the end on x and before the start on y.
    let state = RenderState(boundsSize: view.size, contentOffset: Point(x: 10, y: -12),
                            contentSize: Size(width: 100, height: 60), background: background)
    let frame = try renderOnce(state, content: content, panel: view)
    #expect(frame[0, 11] == background.pixel)
    #expect(frame[0, 12] == content[10, 0])
    #expect(frame[89, 71] == content[99, 59])
    #expect(frame[90, 40] == background.pixel)
    #expect(frame[50, 72] == background.pixel)
}

/// Checks ramp pixels of a zoomed frame against the continuous ramp at the mapped position.
private func checkZoomedRamp(zoom: Double, offset: Point) throws {
    let size = PixelSize(width: 256, height: 256)
    let content = try pattern(size.width, size.height)
    let view = PixelSize(width: 160, height: 120)
    let state = RenderState(boundsSize: view.size, contentOffset: offset, zoomScale: zoom,
                            contentSize: size.size, background: background)
    let frame = try renderOnce(state, content: content, panel: view)
    var checked = 0
    for y in stride(from: 1, to: view.height - 1, by: 3) {
        for x in stride(from: 1, to: view.width - 1, by: 3) {
            // Continuous source position in pixel-index units (pixel centres at integers).
            let u = (Double(x) + 0.5 + offset.x) / zoom - 0.5, v = (Double(y) + 0.5 + offset.y) / zoom - 0.5
            let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
            guard x0 >= 1, y0 >= 1, x0 + 2 < size.width, y0 + 2 < size.height else { continue }
            // Only where all bilinear taps are ramp pixels (not grid, marker or corner).
            let taps = [(x0, y0), (x0 + 1, y0), (x0, y0 + 1), (x0 + 1, y0 + 1)]
            guard taps.allSatisfy({ channels(TestPattern.pixel(x: $0.0, y: $0.1, size: size)).b == 0x80 }) else { continue }
            let got = channels(frame[x, y])
            let red = u * 255 / Double(size.width - 1), green = v * 255 / Double(size.height - 1)
            #expect(abs(Double(got.r) - red) <= 2.5, "red at (\(x), \(y)) zoom \(zoom)")
            #expect(abs(Double(got.g) - green) <= 2.5, "green at (\(x), \(y)) zoom \(zoom)")
            #expect(got.b == 0x80)
            checked += 1
        }
    }
    #expect(checked > 200, "too few ramp samples (\(checked))")
}

@Test func zoomTwoSamplesWhereTheMathsSays() throws {
    try checkZoomedRamp(zoom: 2, offset: Point(x: 83.5, y: 41.25))
}

@Test func zoomHalfSamplesWhereTheMathsSays() throws {
    try checkZoomedRamp(zoom: 0.5, offset: Point(x: -12.5, y: 3))
}

@Test func zoomTwoMagnifiesTheCornerMarker() throws {
    let content = try pattern(256, 256)
    let view = PixelSize(width: 160, height: 120)
    let state = RenderState(boundsSize: view.size, zoomScale: 2, contentSize: Size(width: 256, height: 256))
    let frame = try renderOnce(state, content: content, panel: view)
    // The 16-pixel red square now spans 32 view pixels.
    #expect(frame[30, 30] == TestPattern.topLeft)
    #expect(frame[1, 1] == TestPattern.topLeft)
    #expect(frame[34, 20] != TestPattern.topLeft)
}

@Test func rubberBandedAboveTheTopShowsBackground() throws {
    let content = try pattern(256, 256)
    let view = PixelSize(width: 160, height: 120)
    let state = RenderState(boundsSize: view.size, contentOffset: Point(x: 20, y: -40), zoomScale: 2,
                            contentSize: Size(width: 256, height: 256), background: background)
    let frame = try renderOnce(state, content: content, panel: view)
    for y in 0..<40 {
        for x in 0..<view.width where frame[x, y] != background.pixel {
            Issue.record("pixel (\(x), \(y)) above the content is not background")
            return
        }
    }
    // Row 40 is the content's first row: the red corner square (x 20…31 maps to content 10…15).
    #expect(frame[2, 40] == TestPattern.topLeft)
    #expect(frame[2, 60] == TestPattern.topLeft)
}

@Test(arguments: PanelRotation.allCases)
func rotationPutsTheMarkedCornerWhereExpected(rotation: PanelRotation) throws {
    let panel = PixelSize(width: 160, height: 100)
    let logical = rotation.logicalSize(panel: panel)
    let content = try pattern(logical.width, logical.height)
    let state = RenderState(boundsSize: logical.size, contentSize: logical.size.self)
    let frame = try renderOnce(state, content: content, panel: panel, rotation: rotation)
    let (x, y): (Int, Int) = switch rotation {
    case .none: (3, 3)
    case .clockwise90: (panel.width - 4, 3)
    case .clockwise180: (panel.width - 4, panel.height - 4)
    case .clockwise270: (3, panel.height - 4)
    }
    #expect(frame[x, y] == TestPattern.topLeft, "red corner at (\(x), \(y))")
    // And the whole frame is the pattern, turned: logical (lx, ly) at its rotated position.
    for ly in 0..<logical.height {
        for lx in 0..<logical.width {
            let (px, py): (Int, Int) = switch rotation {
            case .none: (lx, ly)
            case .clockwise90: (logical.height - 1 - ly, lx)
            case .clockwise180: (logical.width - 1 - lx, logical.height - 1 - ly)
            case .clockwise270: (ly, logical.width - 1 - lx)
            }
            if frame[px, py] != content[lx, ly] {
                Issue.record("\(rotation): logical (\(lx), \(ly)) not at physical (\(px), \(py))")
                return
            }
        }
    }
}

@Test func rotatedAndZoomedKeepsTheCorner() throws {
    let panel = PixelSize(width: 160, height: 100)
    let content = try pattern(200, 200)
    let state = RenderState(boundsSize: Size(width: 100, height: 160), zoomScale: 2, contentSize: Size(width: 200, height: 200))
    let frame = try renderOnce(state, content: content, panel: panel, rotation: .clockwise90)
    #expect(frame[panel.width - 20, 20] == TestPattern.topLeft)
}
