import FlickCore
import Testing
@testable import FlickDisplay

// The benchmark's hot-path rewrites (row-wise test pattern, row-copy compose at zoom 1, the
// indicator loop, the opaque PNG swizzle) must draw exactly what the plain definitions draw.

@Test(arguments: [PixelSize(width: 1, height: 1), PixelSize(width: 20, height: 10), PixelSize(width: 31, height: 33),
                  PixelSize(width: 130, height: 75), PixelSize(width: 300, height: 200)])
func testPatternRowsEqualThePixelFunction(size: PixelSize) throws {
    let image = try #require(TestPattern.make(size))
    for y in 0..<size.height {
        for x in 0..<size.width where image[x, y] != TestPattern.pixel(x: x, y: y, size: size) {
            Issue.record("(\(x), \(y)) of \(size)")
            return
        }
    }
}

@Test func zoomOneCopiesTheVisibleRowsExactly() throws {
    let content = try #require(TestPattern.make(PixelSize(width: 300, height: 200)))
    let target = try #require(PixelBuffer(width: 64, height: 48))
    let state = RenderState(boundsSize: Size(width: 64, height: 48), contentOffset: Point(x: 37.4, y: 121.6),
                            contentSize: Size(width: 300, height: 200), background: .white)
    Compositor().compose(state, content: content, into: target)
    for y in 0..<48 {
        for x in 0..<64 where target[x, y] != content[x + 37, y + 122] {
            Issue.record("(\(x), \(y))")
            return
        }
    }
}

@Test func zoomOneAtAnEdgeFillsTheRestWithBackground() throws {
    let content = try #require(TestPattern.make(PixelSize(width: 300, height: 200)))
    let target = try #require(PixelBuffer(width: 64, height: 48))
    let state = RenderState(boundsSize: Size(width: 64, height: 48), contentOffset: Point(x: -10, y: 170),
                            contentSize: Size(width: 300, height: 200), background: .white)
    Compositor().compose(state, content: content, into: target)
    #expect(target[5, 5] == Color.white.pixel)
    #expect(target[20, 40] == Color.white.pixel)    // below the content's bottom (200 − 170 = 30 rows)
    #expect(target[20, 10] == content[10, 180])
}

@Test func indicatorBodyAndEndsMatchTheBlendOfTheirCoverage() throws {
    // Each pixel: alpha × the whole capsule's coverage; colour: the body's and the border's mixed
    // by how much of that the body's capsule (inset by the border) covers.
    for (scheme, background) in [(IndicatorStyle.Scheme.black, Color.white), (.default, .white), (.default, .black)] {
        let target = try #require(PixelBuffer(width: 120, height: 200))
        target.fill(background.pixel)
        let state = RenderState(boundsSize: Size(width: 120, height: 200), contentOffset: Point(x: 0, y: 300),
                                contentSize: Size(width: 120, height: 2000), indicatorOpacity: 1, background: background)
        var style = IndicatorStyle()
        style.scheme = scheme
        let bar = try #require(ScrollIndicators.bars(for: state, style: style).first)
        Compositor(indicatorStyle: style).compose(state, content: nil, into: target)
        let f = bar.frame, b = style.borderWidth
        let inner = Rect(x: f.minX + b, y: f.minY + b, width: f.size.width - 2 * b, height: f.size.height - 2 * b)
        for y in Int(f.minY)..<Int(f.maxY.rounded(.up)) {
            for x in Int(f.minX)..<Int(f.maxX.rounded(.up)) {
                let outer = ScrollIndicators.coverage(x: x, y: y, frame: f)
                let core = min(outer, ScrollIndicators.coverage(x: x, y: y, frame: inner))
                let alpha = UInt32((bar.alpha * outer * 255).rounded())
                let level = outer == 0 ? 0 : UInt32((255 * (1 - core / outer)).rounded())  // black body, white border
                let expected = alpha == 0 ? background.pixel : blend(level * 0x010101, over: background.pixel, alpha: alpha)
                #expect(target[x, y] == expected, "\(scheme) on \(background): (\(x), \(y))")
            }
        }
    }
}

@Test func opaquePNGDecodesToTheSamePixels() throws {
    let dir = makeTemporaryDirectory()
    let image = try #require(TestPattern.make(PixelSize(width: 70, height: 40)))
    try PNGCodec.write(image, to: dir + "/opaque.png")
    let content = try Content.load(file: dir + "/opaque.png", pixelBudget: 10_000)
    #expect(content.image!.format == .xrgb8888)
    for y in 0..<40 { for x in 0..<70 where content.image![x, y] != image[x, y] { Issue.record("(\(x), \(y))"); return } }
}

@Test func widenedRowsEqualTheByteWiseDefinition() {
    // Every count around the four-pixel step, apart and in decodeOpaqueRows' in-place layout.
    var seed: UInt32 = 7
    for count in 0...13 {
        let rgb = (0..<count * 3).map { _ -> UInt8 in seed = seed &* 1_103_515_245 &+ 12_345; return UInt8(seed >> 24) }
        let expected = (0..<count).map { (x: Int) -> UInt32 in
            let r = UInt32(rgb[3 * x]), g = UInt32(rgb[3 * x + 1]), b = UInt32(rgb[3 * x + 2])
            return 0xFF00_0000 | r << 16 | g << 8 | b
        }
        var apart = [UInt32](repeating: 0, count: count)
        rgb.withUnsafeBytes { src in apart.withUnsafeMutableBytes { PNGCodec.widen(src.baseAddress!, into: $0.baseAddress!, count: count) } }
        #expect(apart == expected, "count \(count), apart")
        var row = [UInt32](repeating: 0, count: count + 1)
        row.withUnsafeMutableBytes { raw in
            (raw.baseAddress! + count).copyMemory(from: rgb, byteCount: rgb.count)
            PNGCodec.widen(raw.baseAddress! + count, into: raw.baseAddress!, count: count)
        }
        #expect(Array(row.prefix(count)) == expected, "count \(count), in place")
    }
}

@Test func aDamagedImageChunkIsStillRefused() throws {
    // The Adler-32 of the inflated data is not checked (PNGCodec.decode): the chunk CRC-32 is.
    let dir = makeTemporaryDirectory()
    let image = try #require(TestPattern.make(PixelSize(width: 64, height: 64)))
    var png = try PNGCodec.encode(image)
    let idat = try #require((0..<png.count - 4).first { png[$0..<$0 + 4].elementsEqual("IDAT".utf8) })
    png[idat + 40] ^= 0x01
    writeBytes(png, to: dir + "/damaged.png")
    #expect(throws: ContentError.self) { try Content.load(file: dir + "/damaged.png", pixelBudget: 10_000) }
}

@Test func largeBuffersAreZeroAndOnHugePageBoundaries() throws {
    // Over 4 MiB a buffer is its own mapping (PixelBuffer.mapHugeAligned); an odd size checks
    // the rounding to whole pages, and many in a row that nothing leaks or double-frees.
    for round in 0..<40 {
        let buffer = try #require(PixelBuffer(width: 1021 + round, height: 1031))
        #expect(Int(bitPattern: buffer.pixels) % (2 << 20) == 0)
        for (x, y) in [(0, 0), (1020 + round, 1030), (500, 517)] {
            #expect(buffer[x, y] == 0)
            buffer[x, y] = 0xFF12_3456
            #expect(buffer[x, y] == 0xFF12_3456)
        }
    }
    let small = try #require(PixelBuffer(width: 100, height: 100))
    #expect(small[99, 99] == 0)
}
