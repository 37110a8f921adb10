import FlickCore
@testable import FlickDisplay
import Testing

/// Tiled content at zoom 1 is scanned out from a band drawn from its tiles, never composed per
/// frame once the band holds the view, and shows exactly what composing would.
@Suite struct ScanOutBandTests {
    let panel = PixelSize(width: 320, height: 200)

    private func state(_ x: Double, _ y: Double, zoom: Double = 1, resting: Point? = nil) -> RenderState {
        var s = RenderState(boundsSize: panel.size, contentOffset: Point(x: x, y: y), zoomScale: zoom,
                            contentSize: Size(width: 3000, height: 2000), indicatorOpacity: 1, background: Color(rgb: 0x203040))
        s.restingOffset = resting
        return s
    }

    private func show(_ state: RenderState, _ composer: FrameComposer, _ output: HeadlessOutput, at now: inout Instant) throws {
        try composer.commit(state, now: now)
        now = try #require(output.nextDeadline)
        _ = try output.dispatch(now: now)
    }

    /// What composing the whole image draws for `state`, indicators included.
    private func reference(_ state: RenderState, _ image: PixelBuffer) throws -> PixelBuffer {
        let target = try #require(PixelBuffer(width: panel.width, height: panel.height))
        Compositor().compose(state, content: image, into: target)
        return target
    }

    private func mismatches(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        var count = 0
        for y in 0..<a.height { for x in 0..<a.width where a[x, y] != b[x, y] { count += 1 } }
        return count
    }

    @Test func framesAtZoomOneAreScannedOutFromABandEqualToComposing() throws {
        let image = try detailedImage(PixelSize(width: 3000, height: 2000))
        let store = try TileStore(source: try MemoryPyramid(image, tileSize: 128, overlap: 1), cacheBytes: 64 << 20, workers: 0)
        let output = try #require(HeadlessOutput(size: panel))
        let composer = FrameComposer(output: output, compositor: Compositor(), content: Content(tiles: store))
        var now = Instant.zero
        // Along a flick to the right and down, then a jump far away, then zoomed, then back.
        let frames = [state(0, 0), state(10, 0), state(20, 3), state(30, 6),
                      state(60, 20, resting: Point(x: 900, y: 300)),
                      state(400, 130, resting: Point(x: 900, y: 300)), state(900, 300), state(2600, 1700),
                      state(2600, 1700, zoom: 1.5), state(1234, 567)]
        var scanned: [Bool] = []
        for frame in frames {
            try show(frame, composer, output, at: &now)
            scanned.append(output.isScanningOutContent)
            #expect(mismatches(output.frontBuffer, try reference(frame, image)) == 0, "\(frame.contentOffset) × \(frame.zoomScale)")
        }
        // Every frame is scanned out: the zoomed one too, composed into a band's buffer.
        #expect(scanned == [true, true, true, true, true, true, true, true, true, true])
        #expect(composer.bandFramesComposed == 1)
        // A band covers a margin beyond the view: the first small steps needed no new one, the
        // jumps each did (a zoomed frame needs none).
        #expect(composer.bandFills == 1 + 5)
        // The band's two buffers come out of the cache's budget, and the display made no frame
        // buffer of its own.
        #expect(store.cache.budgetBytes < 64 << 20)
        #expect(output.composedBufferCount == 0)
    }

    @Test func withWorkersAFrameNotInABandIsDrawnIntoTheFreeBufferThenTheBandIsCompletedAroundIt() throws {
        let image = try detailedImage(PixelSize(width: 3000, height: 2000))
        let store = try TileStore(source: try MemoryPyramid(image, tileSize: 128, overlap: 1), cacheBytes: 64 << 20, workers: 2)
        defer { store.close() }
        let output = try #require(HeadlessOutput(size: panel))
        let composer = FrameComposer(output: output, compositor: Compositor(), content: Content(tiles: store))
        var now = Instant.zero
        let frame = state(700, 500)
        // No tile of the view yet: drawn from a coarser level into a band buffer, scanned out.
        try show(frame, composer, output, at: &now)
        #expect(output.isScanningOutContent && composer.bandFramesDrawn == 1 && composer.bandFills == 0)
        // The tiles arrive: the frame is drawn again, exactly, into the other buffer.
        try store.loader?.waitUntilIdle()
        store.takeArrivals()
        try show(frame, composer, output, at: &now)
        #expect(output.isScanningOutContent && composer.bandFramesDrawn == 2)
        #expect(mismatches(output.frontBuffer, try reference(frame, image)) == 0)
        // Then the worker completes that band around the view (its tiles asked for first).
        for _ in 0..<50 where composer.bandFills == 0 {
            try store.loader?.waitUntilIdle()
            store.takeArrivals()
            try show(state(700, 500), composer, output, at: &now)
            _ = try composer.finishBandFill()
        }
        #expect(composer.bandFills == 1)
        // A step within the band is scanned out from it, with nothing drawn.
        try show(state(760, 540), composer, output, at: &now)
        #expect(output.isScanningOutContent && composer.bandFramesDrawn == 2)
        #expect(mismatches(output.frontBuffer, try reference(state(760, 540), image)) == 0)
        // At zoom 1 no frame buffer beyond the band's two was ever made.
        #expect(output.composedBufferCount == 0)
    }

    @Test func aFrameDueWhileTheWorkerDrawsTheBufferNotOnScreenTakesThatBufferBack() throws {
        let image = try detailedImage(PixelSize(width: 3000, height: 2000))
        let store = try TileStore(source: try MemoryPyramid(image, tileSize: 128, overlap: 1), cacheBytes: 64 << 20, workers: 2)
        defer { store.close() }
        let output = try #require(HeadlessOutput(size: panel))
        let band = try #require(ScanOutBand(output: output, view: panel, content: PixelSize(width: 3000, height: 2000), margin: 100))
        /// Plans for a view at (`x`, `y`) until the worker has a band to draw (its tiles loaded).
        func startFilling(_ x: Int, _ y: Int) throws {
            for _ in 0..<50 where !band.isFilling {
                band.plan(x: x, y: y, view: panel, resting: nil, store: store)
                try store.loader?.waitUntilIdle()
                store.takeArrivals()
            }
        }
        // A band around (700, 500) is drawn and shown.
        try startFilling(700, 500)
        #expect(try band.finishFilling())
        let shown = try #require(band.source(x: 700, y: 500, view: panel))
        band.onScreen = shown.index
        // The view jumps: the worker starts the other buffer, and before it is taken a frame is
        // due there (the worker may or may not have returned: either way the same follows).
        try startFilling(2000, 1200)
        #expect(band.isFilling)
        let drawn = band.drawFrame(x: 2000, y: 1200, view: panel, resting: nil) { part in
            part.fill(0xFF10_2030)
            return true
        }
        #expect(drawn?.index == 1 - shown.index)
        #expect(band.jobsDropped == 1 && !band.isFilling && !band.takeFinished())
        // The frame is shown from that buffer, and the worker is free for the next band.
        #expect(band.source(x: 2000, y: 1200, view: panel)?.index == 1 - shown.index)
        band.onScreen = 1 - shown.index
        try startFilling(2000, 1200)
        #expect(band.isFilling)
        #expect(output.composedBufferCount == 0)
    }

    @Test func aChangeInPartOfABandRedrawsOnlyThatPartAndTheBandEqualsOneDrawnAfresh() throws {
        let content = PixelSize(width: 3000, height: 2000)
        let store = try TileStore(source: try MemoryPyramid(try detailedImage(content), tileSize: 128, overlap: 1),
                                  cacheBytes: 64 << 20, workers: 0)
        let grid = store.source.grid
        let output = try #require(HeadlessOutput(size: panel))
        // Without workers a band is drawn at once: (600, 400)–(1120, 800) around the view at (700, 500).
        let band = try #require(ScanOutBand(output: output, view: panel, content: content, margin: 100))
        band.plan(x: 700, y: 500, view: panel, resting: nil, store: store)
        let shown = try #require(band.source(x: 700, y: 500, view: panel))
        band.onScreen = shown.index
        #expect(band.fills == 1)
        /// The app redraws the tile holding `point`: its new pixels arrive in the cache.
        func redraw(_ point: PixelRect, colour: UInt32) throws -> PixelRect {
            let key = try #require(grid.tiles(at: grid.maxLevel, covering: point).first)
            let stored = grid.storedRect(key)
            let tile = try #require(PixelBuffer(width: stored.width, height: stored.height))
            tile.fill(colour)
            store.cache.insert(key, tile)
            band.invalidate([grid.contentRect(key)])
            return grid.contentRect(key).intersection(PixelRect(x0: 600, y0: 400, x1: 1120, y1: 800))
        }
        /// The band's pixels against a band drawn afresh from the same tiles.
        func mismatchesWithAFreshBand() throws -> Int {
            let fresh = try #require(ScanOutBand(output: output, view: panel, content: content, margin: 100))
            fresh.plan(x: 700, y: 500, view: panel, resting: nil, store: store)
            let kept = try #require(band.source(x: 700, y: 500, view: panel)), drawn = try #require(fresh.source(x: 700, y: 500, view: panel))
            #expect(kept.x == drawn.x && kept.y == drawn.y)
            return mismatches(kept.buffer, drawn.buffer)
        }
        // A tile partly in the band, outside the view: drawn again at once, even in the buffer on
        // screen (it does not show those pixels), and only the band's part of it.
        let outside = try redraw(PixelRect(x0: 1050, y0: 420, x1: 1051, y1: 421), colour: 0xFFFF_0000)
        band.plan(x: 700, y: 500, view: panel, resting: nil, store: store)
        #expect(band.pixelsRedrawn == outside.width * outside.height && band.rectanglesRedrawn == 1 && band.fills == 1)
        #expect(shown.buffer[outside.x0 - 600, outside.y0 - 400] == 0xFFFF_0000)
        #expect(try mismatchesWithAFreshBand() == 0)
        // A tile in the view: not written while the buffer shows it, and not shown from it either.
        let inside = try redraw(PixelRect(x0: 800, y0: 600, x1: 801, y1: 601), colour: 0xFF00_FF00)
        band.plan(x: 700, y: 500, view: panel, resting: nil, store: store)
        #expect(band.pixelsRedrawn == outside.width * outside.height)
        #expect(band.source(x: 700, y: 500, view: panel) == nil)
        // Once another frame is on screen, only that tile is drawn again.
        band.onScreen = nil
        band.plan(x: 700, y: 500, view: panel, resting: nil, store: store)
        #expect(band.pixelsRedrawn == outside.width * outside.height + inside.width * inside.height)
        #expect(band.rectanglesRedrawn == 2 && band.fills == 1 && band.framesDrawn == 0 && band.jobsDropped == 0)
        #expect(try mismatchesWithAFreshBand() == 0)
    }

    @Test func theBandIsPlacedAheadOfTheMotionWithinTheContent() throws {
        let output = try #require(HeadlessOutput(size: panel))
        let band = try #require(ScanOutBand(output: output, view: panel, content: PixelSize(width: 3000, height: 2000), margin: 100))
        #expect(band.size == PixelSize(width: 520, height: 400))
        // At rest: centred. Heading right and down: the view at the band's trailing corner.
        #expect(band.placement(x: 1000, y: 1000, view: panel, resting: nil) == (900, 900))
        #expect(band.placement(x: 1000, y: 1000, view: panel, resting: Point(x: 5000, y: 1030)) == (1000, 930))
        // Never past the content's edges.
        #expect(band.placement(x: 10, y: 1790, view: panel, resting: Point(x: 0, y: 1800)) == (0, 1600))
    }
}

/// Where a motion rests comes from the model, which takes any finite offset a client sends
/// (UIKit does not clamp `setContentOffset`): looking ahead to it must not trap.
@Suite struct LookAheadTests {
    @Test func anyFiniteRestingOffsetIsLookedAheadToWithoutTrapping() throws {
        let store = try TileStore(source: try #require(TestPatternSource(size: PixelSize(width: 3000, height: 2000))),
                                  cacheBytes: 64 << 20, workers: 0)
        let grid = store.source.grid
        let view = PixelRect(x0: 0, y0: 0, x1: 320, y1: 200)
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 200)))
        let band = try #require(ScanOutBand(output: output, view: PixelSize(width: 320, height: 200),
                                            content: grid.size, margin: 128))
        for far in [1e19, -1e19, 1e30, -1e30, 1e200, Double.greatestFiniteMagnitude] {
            let rest = Point(x: far, y: 1000)
            let ahead = Compositor.tilesAhead(grid: grid, level: grid.maxLevel, view: view, from: Point(x: 1000, y: 900),
                                              to: rest, zoom: 1)
            #expect(ahead.allSatisfy { grid.contains($0) })
            // A band in the middle, then the view heading far away from it.
            band.plan(x: 1000, y: 900, view: PixelSize(width: 320, height: 200), resting: nil, store: store)
            band.plan(x: 1100, y: 900, view: PixelSize(width: 320, height: 200), resting: rest, store: store)
            #expect(band.source(x: 1100, y: 900, view: PixelSize(width: 320, height: 200)) != nil)
        }
    }
}
