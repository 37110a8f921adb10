import CTurboJPEG
import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

/// A 64×48 image whose pixels differ per `variant`.
private func pageImage(_ variant: UInt32) throws -> PixelBuffer {
    let size = PixelSize(width: 64, height: 48)
    let image = try #require(TestPattern.make(size))
    for y in 0..<size.height {
        for x in 0..<size.width { image[x, y] ^= variant &* 0x0013_2537 & 0x00FF_FFFF }
    }
    return image
}

@Test func pngRoundTripIsExact() throws {
    let dir = makeTemporaryDirectory()
    let image = try pageImage(1)
    try PNGCodec.write(image, to: dir + "/a.png")
    let content = try Content.load(file: dir + "/a.png", pixelBudget: 10_000)
    #expect(content.size == Size(width: 64, height: 48))
    for y in 0..<48 { for x in 0..<64 where content.image![x, y] != image[x, y] { Issue.record("(\(x), \(y))"); return } }
}

@Test func pngWithAlphaIsPremultiplied() throws {
    let dir = makeTemporaryDirectory()
    let image = try #require(PixelBuffer(width: 2, height: 1, format: .argb8888))
    image[0, 0] = 0x8080_4000  // premultiplied: half-transparent (255, 128, 0)
    image[1, 0] = 0x0000_0000
    try PNGCodec.write(image, to: dir + "/alpha.png")
    let loaded = try Content.load(file: dir + "/alpha.png", pixelBudget: 10).image!
    #expect(loaded.format == .argb8888)
    #expect(loaded[0, 0] == 0x8080_4000)
    #expect(loaded[1, 0] == 0)
}

@Test func jpegDecodesToXRGB() throws {
    let dir = makeTemporaryDirectory()
    writeBytes(try jpegBytes(of: try pageImage(0)), to: dir + "/a.jpg")
    let content = try Content.load(file: dir + "/a.jpg", pixelBudget: 10_000)
    #expect(content.image!.format == .xrgb8888)
    // Lossy, but the red corner stays red.
    let corner = channels(content.image![4, 4])
    #expect(corner.r > 200 && corner.g < 60 && corner.b < 60)
}

@Test func folderOfThreeImagesIsThreePages() throws {
    let dir = makeTemporaryDirectory()
    let images = try (1...3).map { try pageImage(UInt32($0)) }
    for (i, image) in images.enumerated() { try PNGCodec.write(image, to: dir + "/page\(i + 1).png") }
    writeBytes(Array("not an image".utf8), to: dir + "/README.txt")
    let view = PixelSize(width: 64, height: 48)
    let content = try Content.load(directory: dir, pageSize: view, background: .black, pixelBudget: 100_000)
    #expect(content.pages.count == 3)
    #expect(content.size == Size(width: 192, height: 48))
    #expect(content.pages.map(\.frame.minX) == [0, 64, 128])
    #expect(content.pages[1].source == dir + "/page2.png")
    // Page 2 at rest shows image 2 exactly.
    let state = RenderState(boundsSize: view.size, contentOffset: Point(x: 64, y: 0), contentSize: content.size)
    let frame = try renderOnce(state, content: content, panel: view)
    for y in 0..<48 { for x in 0..<64 where frame[x, y] != images[1][x, y] { Issue.record("(\(x), \(y))"); return } }
}

@Test func verticalPagesStackAndPageTwoShowsImageTwo() throws {
    let dir = makeTemporaryDirectory()
    let images = try (1...3).map { try pageImage(UInt32($0)) }
    for (i, image) in images.enumerated() { try PNGCodec.write(image, to: dir + "/p\(i + 1).png") }
    let view = PixelSize(width: 64, height: 48)
    let content = try Content.load(directory: dir, pageSize: view, background: .black, pixelBudget: 100_000,
                                   direction: .vertical)
    #expect(content.size == Size(width: 64, height: 144))
    #expect(content.pages.map(\.frame.minY) == [0, 48, 96])
    let state = RenderState(boundsSize: view.size, contentOffset: Point(x: 0, y: 48), contentSize: content.size)
    let frame = try renderOnce(state, content: content, panel: view)
    for y in 0..<48 { for x in 0..<64 where frame[x, y] != images[1][x, y] { Issue.record("(\(x), \(y))"); return } }
}

@Test func largerImageIsScaledDownAndCentredInItsPage() throws {
    let dir = makeTemporaryDirectory()
    let big = try #require(TestPattern.make(PixelSize(width: 128, height: 48)))
    try PNGCodec.write(big, to: dir + "/big.png")
    let content = try Content.load(directory: dir, pageSize: PixelSize(width: 64, height: 48),
                                   background: Color(rgb: 0x112233), pixelBudget: 100_000)
    // Scaled to 64×24 and centred: rows 12..<36 show the image, the background around it.
    let state = RenderState(boundsSize: Size(width: 64, height: 48), contentSize: content.size)
    let frame = try renderOnce(state, content: content, panel: PixelSize(width: 64, height: 48))
    #expect(frame[30, 5] == Color(rgb: 0x112233).pixel)
    #expect(frame[30, 11] == Color(rgb: 0x112233).pixel)
    #expect(frame[30, 36] == Color(rgb: 0x112233).pixel)
    #expect(frame[1, 13] == TestPattern.topLeft)
}

/// Asserts that loading `path` fails naming it, with `reason`.
private func expectError(_ path: String, budget: Int = 1_000_000, _ matches: (ContentError.Reason) -> Bool,
                         sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try Content.load(file: path, pixelBudget: budget)
        Issue.record("\(path) loaded", sourceLocation: sourceLocation)
    } catch let error as ContentError {
        #expect(error.path == path, sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix(path + ": "), sourceLocation: sourceLocation)
        #expect(matches(error.reason), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

@Test func corruptPNGIsAClearError() throws {
    let dir = makeTemporaryDirectory()
    var png = try PNGCodec.encode(try pageImage(2))
    png[18] ^= 0x40  // inside IHDR: its CRC no longer matches
    writeBytes(png, to: dir + "/corrupt.png")
    expectError(dir + "/corrupt.png") { if case .corrupt = $0 { true } else { false } }
}

@Test func truncatedPNGIsAClearError() throws {
    let dir = makeTemporaryDirectory()
    let png = try PNGCodec.encode(try pageImage(2))
    writeBytes(Array(png.prefix(png.count / 2)), to: dir + "/short.png")
    expectError(dir + "/short.png") { if case .truncated = $0 { true } else if case .corrupt = $0 { true } else { false } }
}

@Test func truncatedJPEGIsAClearError() throws {
    let dir = makeTemporaryDirectory()
    let jpeg = try jpegBytes(of: try pageImage(3))
    writeBytes(Array(jpeg.prefix(jpeg.count * 2 / 3)), to: dir + "/short.jpg")
    expectError(dir + "/short.jpg") { if case .truncated = $0 { true } else { false } }
}

@Test func emptyFileIsAClearError() {
    let dir = makeTemporaryDirectory()
    writeBytes([], to: dir + "/empty.png")
    expectError(dir + "/empty.png") { $0 == .empty }
}

@Test func imageOverThePixelBudgetIsAClearError() throws {
    let dir = makeTemporaryDirectory()
    try PNGCodec.write(try pageImage(4), to: dir + "/big.png")
    writeBytes(try jpegBytes(of: try pageImage(4)), to: dir + "/big.jpg")
    expectError(dir + "/big.png", budget: 3000) { $0 == .overPixelBudget(width: 64, height: 48, budget: 3000) }
    expectError(dir + "/big.jpg", budget: 3000) { $0 == .overPixelBudget(width: 64, height: 48, budget: 3000) }
}

@Test func unsupportedAndMissingFilesAreClearErrors() {
    let dir = makeTemporaryDirectory()
    writeBytes(Array("GIF89a....".utf8), to: dir + "/anim.gif")
    expectError(dir + "/anim.gif") { $0 == .unsupportedFormat }
    expectError(dir + "/missing.png") { $0 == .unreadable(SystemError(call: "open", context: dir + "/missing.png", errno: ENOENT)) }
}

@Test func hugeDimensionsInAHeaderAreRejectedBeforeAllocating() throws {
    let dir = makeTemporaryDirectory()
    var png = try PNGCodec.encode(try pageImage(5))
    // Claim 60000×60000 in IHDR and fix its CRC so only the size is wrong.
    png.replaceSubrange(16..<24, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
    let crc = crc32(png[12..<29])
    png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
    writeBytes(png, to: dir + "/bomb.png")
    expectError(dir + "/bomb.png", budget: 1_000_000) { reason in
        if case .overPixelBudget = reason { return true }
        if case .corrupt = reason { return true }
        return false
    }
}

@Test func folderErrorsNameTheFileAtFault() throws {
    let dir = makeTemporaryDirectory()
    try PNGCodec.write(try pageImage(1), to: dir + "/1.png")
    writeBytes([], to: dir + "/2.png")
    #expect(throws: ContentError(path: dir + "/2.png", reason: .empty)) {
        try Content.load(directory: dir, pageSize: PixelSize(width: 64, height: 48), background: .black, pixelBudget: 100_000)
    }
    let empty = makeTemporaryDirectory()
    #expect(throws: ContentError(path: empty, reason: .noImages)) {
        try Content.load(directory: empty, pageSize: PixelSize(width: 64, height: 48), background: .black, pixelBudget: 100_000)
    }
}

/// A JPEG of `image` made with TurboJPEG's encoder.
func jpegBytes(of image: PixelBuffer) throws -> [UInt8] {
    let handle = try #require(tjInitCompress())
    defer { tjDestroy(handle) }
    var output: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    let result = tjCompress2(handle, image.pixels.assumingMemoryBound(to: UInt8.self), Int32(image.width),
                             Int32(image.stride), Int32(image.height), Int32(TJPF_BGRX.rawValue), &output, &size,
                             Int32(TJSAMP_444.rawValue), 90, 0)
    try #require(result == 0)
    defer { tjFree(output) }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
}

/// The PNG chunk CRC (CRC-32, ISO-HDLC).
private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
