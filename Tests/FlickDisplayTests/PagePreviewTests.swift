import FlickCore
import FlickSystem
import Testing
@testable import FlickDisplay

/// A solid image of `rgb`.
private func solid(_ rgb: UInt32, _ size: PixelSize) throws -> PixelBuffer {
    let image = try #require(PixelBuffer(width: size.width, height: size.height))
    image.fill(Color(rgb: rgb).pixel)
    return image
}

/// Whether `pixel` is within `tolerance` of `rgb` in every channel (JPEG is lossy).
private func near(_ pixel: UInt32, _ rgb: UInt32, tolerance: Int = 12) -> Bool {
    let a = channels(pixel), b = channels(Color(rgb: rgb).pixel)
    return abs(a.r - b.r) <= tolerance && abs(a.g - b.g) <= tolerance && abs(a.b - b.b) <= tolerance
}

/// Distinct, bright colours: none near black, none near another.
private let pageColours: [UInt32] = (0..<15).map { i in
    let r = UInt32(60 + (i * 37) % 190), g = UInt32(60 + (i * 71) % 190), b = UInt32(60 + (i * 113) % 190)
    return r << 16 | g << 8 | b
}

/// A folder of pages, JPEG and PNG mixed, each a solid colour of `pageColours`.
private func colourFolder(_ size: PixelSize) throws -> String {
    let dir = makeTemporaryDirectory()
    for (i, rgb) in pageColours.enumerated() {
        let name = dir + "/page\(i < 10 ? "0" : "")\(i)"
        if i % 2 == 0 {
            writeBytes(try jpegBytes(of: try solid(rgb, size)), to: name + ".jpg")
        } else {
            try PNGCodec.write(try solid(rgb, size), to: name + ".png")
        }
    }
    return dir
}

/// Tiles asked for and never made: pages whose images are not decoded yet, for as long as a
/// test needs.
private final class WithholdingFetcher: TileFetching {
    let pipe = WakePipe()!
    var asked: [TileKey] = []
    var fileDescriptor: Descriptor { pipe.fileDescriptor }
    var pendingCount: Int { asked.count }
    func want(_ keys: [TileKey]) { asked = keys }
    func takeArrivals() -> [TileArrival] { [] }
    func stop() {}
}

@Test func aJPEGPreviewIsAScaledDecodeOfItsColour() throws {
    let dir = makeTemporaryDirectory()
    writeBytes(try jpegBytes(of: try solid(0x3080C0, PixelSize(width: 640, height: 480))), to: dir + "/a.jpg")
    let (image, full) = try ReducedDecoder.decode(at: dir + "/a.jpg", fitting: PixelSize(width: 80, height: 80),
                                                  pixelBudget: 1_000_000, maxFileBytes: 1 << 20)
    #expect(full == PixelSize(width: 640, height: 480))
    // 1/8 of 640×480 is 80×60: fits 80×80 as is.
    #expect(image.size == PixelSize(width: 80, height: 60))
    #expect(near(image[40, 30], 0x3080C0))
}

@Test func aJPEGPreviewBetweenScalesIsReducedToFit() throws {
    let dir = makeTemporaryDirectory()
    writeBytes(try jpegBytes(of: try solid(0xC08030, PixelSize(width: 400, height: 200))), to: dir + "/a.jpg")
    let (image, _) = try ReducedDecoder.decode(at: dir + "/a.jpg", fitting: PixelSize(width: 70, height: 70),
                                               pixelBudget: 1_000_000, maxFileBytes: 1 << 20)
    #expect(image.size == PixelSize(width: 70, height: 35))
    #expect(near(image[35, 17], 0xC08030))
}

@Test func aPNGPreviewIsStreamedAndAveraged() throws {
    let dir = makeTemporaryDirectory()
    // Two-pixel stripes of two colours: a reduction by 4 averages them.
    let image = try #require(PixelBuffer(width: 400, height: 300))
    for y in 0..<300 { for x in 0..<400 { image[x, y] = (x / 2) % 2 == 0 ? 0xFF00_0000 : 0xFFC8_6432 } }
    try PNGCodec.write(image, to: dir + "/a.png")
    // The budget is far below the image's 120000 pixels: the PNG is never decoded whole.
    let (preview, full) = try ReducedDecoder.decode(at: dir + "/a.png", fitting: PixelSize(width: 100, height: 100),
                                                    pixelBudget: 20_000, maxFileBytes: 1 << 20)
    #expect(full == PixelSize(width: 400, height: 300))
    #expect(preview.size == PixelSize(width: 100, height: 75))
    #expect(near(preview[50, 40], 0x643219, tolerance: 1))
}

@Test func previewsOfManyPagesStayWithinTheirBudget() throws {
    let dir = makeTemporaryDirectory()
    let page = PixelSize(width: 1920, height: 1080)
    let count = 120
    // Each preview at an eighth would be 240×135×4 = 130 KB: 120 of them 15 MB, over 4 MiB.
    let image = try solid(0x808080, PixelSize(width: 1920, height: 1080))
    let jpeg = try jpegBytes(of: image)
    let files = (0..<count).map { dir + "/p\($0).jpg" }
    for file in files { writeBytes(jpeg, to: file) }
    let source = try PageFolderSource(folder: dir, files: files, pageSize: page, background: .black, direction: .horizontal,
                                      pixelBudget: 4_000_000, maxFileBytes: 1 << 24)
    var made = 0
    while source.prepareAhead() { made += 1 }
    #expect(made == count && source.previews.isComplete)
    #expect(source.previews.bytes > PagePreviews.budgetBytes / 2)
    #expect(source.previews.bytes <= PagePreviews.budgetBytes)
}

@Test func aPageJumpOverUndecodedPagesShowsEveryPageFromItsPreview() throws {
    let page = PixelSize(width: 64, height: 48)
    let dir = try colourFolder(PixelSize(width: 512, height: 384))
    let files = (0..<pageColours.count).map { i in dir + "/page\(i < 10 ? "0" : "")\(i)" + (i % 2 == 0 ? ".jpg" : ".png") }
    let source = try PageFolderSource(folder: dir, files: files, pageSize: page, background: .black, direction: .horizontal,
                                      pixelBudget: 1_000_000, maxFileBytes: 1 << 22)
    // The workers' work ahead, done here so that the test is deterministic.
    while source.prepareAhead() {}
    let fetcher = WithholdingFetcher()
    let store = try TileStore(source: source, cacheBytes: 8 << 20, fetcher: fetcher)
    let pages = zip(files, source.pageFrames).map { file, f in
        Content.Page(source: file, frame: Rect(x: Double(f.x0), y: Double(f.y0), width: Double(f.width), height: Double(f.height)))
    }
    let content = Content(tiles: store, pages: pages)
    var view = try ScrollView(boundsSize: page.size, contentSize: content.size)
    let start = Instant.zero
    try view.setContentOffset(Point(x: 12 * 64, y: 0), animated: true, at: start)
    var frames = 0, t = start
    repeat {
        let state = RenderState(boundsSize: view.boundsSize, contentOffset: view.contentOffset, contentSize: content.size)
        let frame = try renderOnce(state, content: content, panel: page)
        for y in 0..<page.height {
            for x in 0..<page.width {
                // The page this screen pixel shows, and its colour or its preview's.
                let contentX = view.contentOffset.x + Double(x)
                let index = min(pageColours.count - 1, Int(contentX) / page.width)
                // Pixels at a page's edge blend the two pages: either colour will do.
                let other = min(pageColours.count - 1, Int(contentX.rounded()) / page.width)
                let c = channels(frame[x, y])
                let atEdge = Int(contentX) % page.width == 0 || Int(contentX) % page.width == page.width - 1
                // At a page's edge a blend of two pages (every channel of each is at least 60).
                guard near(frame[x, y], pageColours[index], tolerance: 24) || near(frame[x, y], pageColours[other], tolerance: 24)
                    || (atEdge && min(c.r, c.g, c.b) >= 50) else {
                    Issue.record("frame \(frames) at offset \(view.contentOffset.x): (\(x), \(y)) is \(String(frame[x, y], radix: 16)), page \(index)")
                    return
                }
            }
        }
        frames += 1
        t = t + .milliseconds(16)
        view.advance(to: t)
    } while view.isAnimating
    #expect(frames > 10)
    #expect(store.framesWithHoles == 0)
    // Nothing was made but the previews: every tile drawn was a stand-in, still asked for.
    #expect(!fetcher.asked.isEmpty)
    #expect(!store.stale.isEmpty)
}

@Test func aStandInIsReplacedWhenItsTileArrives() throws {
    let page = PixelSize(width: 64, height: 48)
    let dir = try colourFolder(page)
    let files = (0..<pageColours.count).map { i in dir + "/page\(i < 10 ? "0" : "")\(i)" + (i % 2 == 0 ? ".jpg" : ".png") }
    let source = try PageFolderSource(folder: dir, files: files, pageSize: page, background: .black, direction: .horizontal,
                                      pixelBudget: 1_000_000, maxFileBytes: 1 << 22)
    while source.prepareAhead() {}
    let loader = try #require(TileLoader(source: source, workers: 1))
    let store = try TileStore(source: source, cacheBytes: 8 << 20, fetcher: loader)
    let key = TileKey(level: source.grid.maxLevel, column: 3, row: 0)
    store.beginFrame()
    let standIn = try #require(store.tile(key))
    store.endFrame(prefetch: [])
    #expect(store.stale.contains(key))
    #expect(loader.waitUntil(pendingAtMost: 0, timeout: .seconds(30)))
    #expect(store.takeArrivals() > 0)
    #expect(!store.stale.contains(key))
    let real = try #require(store.cache.tile(key))
    #expect(real !== standIn)
    // The real tile is the page's image itself (page 3 spans content x 192..<256: tile 0's
    // column 3 at 256 px tiles is x 768.., so compare with what the source makes).
    let made = try source.tile(key)
    #expect(real[10, 10] == made[10, 10])
}

/// Draws `frames` frames of `content` moving across its first 600 px by `step` px a frame
/// (wrapping), frame n at `zoom(n)`, and calls `each` after each frame.
private func sweep(_ content: Content, panel: PixelSize, frames: Int, step: Int, zoom: (Int) -> Double,
                   each: () -> Void) throws {
    for frame in 0..<frames {
        let x = Double((frame * step) % 600), scale = zoom(frame)
        let state = RenderState(boundsSize: panel.size, contentOffset: Point(x: x * scale, y: 0), zoomScale: scale,
                                contentSize: Size(width: content.size.width * scale, height: content.size.height * scale))
        _ = try renderOnce(state, content: content, panel: panel)
        each()
    }
}

@Test func aPageOverThePixelBudgetIsShownReducedAndWarnedOnce() throws {
    let dir = makeTemporaryDirectory()
    try PNGCodec.write(try solid(0x20A060, PixelSize(width: 64, height: 64)), to: dir + "/a.png")
    // 400×400 = 160000 pixels, over a budget of 65536.
    try PNGCodec.write(try solid(0xD04080, PixelSize(width: 400, height: 400)), to: dir + "/b.png")
    writeBytes(try jpegBytes(of: try solid(0x4060D0, PixelSize(width: 400, height: 400))), to: dir + "/c.jpg")
    let page = PixelSize(width: 300, height: 300)
    let content = try Content.load(directory: dir, pageSize: page, background: .black, pixelBudget: 65536)
    let store = try #require(content.tiles)
    var warnings: [ContentError] = []
    // Back and forth over the three pages, at zoom 1 and zoomed out.
    try sweep(content, panel: page, frames: 40, step: 37, zoom: { $0 % 3 == 0 ? 0.5 : 1 }) {
        warnings += store.takeWarnings()
        #expect(store.takeFailures().isEmpty)
    }
    #expect(warnings.map(\.path).sorted() == [dir + "/b.png", dir + "/c.jpg"])
    #expect(warnings.allSatisfy { if case .overPixelBudget = $0.reason { true } else { false } })
    // Each over-budget page shows its image, fitted into its page, not black.
    for (index, rgb) in [(1, 0xD04080 as UInt32), (2, 0x4060D0)] {
        let state = RenderState(boundsSize: page.size, contentOffset: Point(x: Double(index * 300), y: 0), contentSize: content.size)
        let frame = try renderOnce(state, content: content, panel: page)
        for (x, y) in [(0, 0), (150, 150), (299, 299), (10, 280)] {
            #expect(near(frame[x, y], rgb), "page \(index) (\(x), \(y)): \(String(frame[x, y], radix: 16))")
        }
    }
}

@Test func aCorruptPageIsReportedOncePerFileNotPerTile() throws {
    let dir = makeTemporaryDirectory()
    try PNGCodec.write(try solid(0x20A060, PixelSize(width: 64, height: 64)), to: dir + "/a.png")
    // A JPEG's signature and nothing else: every tile showing it fails.
    writeBytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10], to: dir + "/b.jpg")
    let page = PixelSize(width: 600, height: 600)
    let content = try Content.load(directory: dir, pageSize: page, background: .black, pixelBudget: 1 << 20)
    let store = try #require(content.tiles)
    var failures: [ContentError] = []
    try sweep(content, panel: page, frames: 20, step: 97, zoom: { $0 % 2 == 0 ? 0.25 : 1 }) {
        failures += store.takeFailures()
    }
    // Many tiles, at two levels, could not be made: one message.
    #expect(store.failed.count > 4)
    #expect(failures.map(\.path) == [dir + "/b.jpg"])
}
