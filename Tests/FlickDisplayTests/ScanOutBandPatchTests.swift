import FlickCore
@testable import FlickDisplay
import Testing

/// While an app's new tiles keep the buffer on screen out of date where the view is, every
/// frame is drawn into the other buffer: one that holds most of the view already draws only
/// the rest and its changed parts, and shows exactly what composing the frame would.
@Suite struct ScanOutBandPatchTests {
    let panel = PixelSize(width: 320, height: 200)
    let content = PixelSize(width: 3000, height: 2000)

    private func state(_ x: Int, _ y: Int) -> RenderState {
        RenderState(boundsSize: panel.size, contentOffset: Point(x: Double(x), y: Double(y)), zoomScale: 1,
                    contentSize: content.size, indicatorOpacity: 1, background: Color(rgb: 0x203040))
    }

    /// The view's pixels of a frame scanned out from `shown`, against composing the frame.
    private func mismatches(_ shown: (buffer: PixelBuffer, index: Int, x: Int, y: Int), _ x: Int, _ y: Int,
                            _ store: TileStore) throws -> Int {
        let reference = try #require(PixelBuffer(width: panel.width, height: panel.height))
        Compositor().compose(state(x, y), content: Content(tiles: store), into: reference, indicators: false)
        var count = 0
        for row in 0..<panel.height {
            for column in 0..<panel.width where shown.buffer[shown.x + column, shown.y + row] != reference[column, row] {
                count += 1
            }
        }
        return count
    }

    @Test func aBufferHoldingMostOfTheViewDrawsOnlyWhatItLacksAndEqualsComposing() throws {
        let store = try TileStore(source: try MemoryPyramid(try detailedImage(content), tileSize: 128, overlap: 1),
                                  cacheBytes: 64 << 20, workers: 0)
        let grid = store.source.grid
        let output = try #require(HeadlessOutput(size: panel))
        let band = try #require(ScanOutBand(output: output, view: panel, content: content, margin: 100))
        // Every full-resolution tile around the views below is in memory.
        _ = try #require(store.tilesInMemory(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 500, y0: 300, x1: 1200, y1: 900))))
        var composed = 0
        func draw(_ x: Int, _ y: Int) throws -> (buffer: PixelBuffer, index: Int, x: Int, y: Int) {
            let shown = try #require(band.drawFrame(x: x, y: y, view: panel, resting: nil, store: store) { part in
                composed += 1
                Compositor().compose(state(x, y), content: Content(tiles: store), into: part, indicators: false)
                return true
            })
            band.onScreen = shown.index
            return shown
        }
        // Two frames of a slow scroll, each composed whole into a buffer (neither holds a band).
        let first = try draw(700, 500)
        let second = try draw(706, 503)
        #expect(second.index == 1 - first.index && composed == 2 && band.framesPatched == 0)
        // The app redraws a tile the first buffer holds, in the next view.
        let key = try #require(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 800, y0: 600, x1: 801, y1: 601)).first)
        let stored = grid.storedRect(key)
        let tile = try #require(PixelBuffer(width: stored.width, height: stored.height))
        tile.fill(0xFF00_FF00)
        store.cache.insert(key, tile)
        band.invalidate([grid.contentRect(key)])
        // The third frame goes into the first buffer: only the strips it lacks and that tile drawn.
        let third = try draw(712, 506)
        #expect(third.index == first.index && composed == 2 && band.framesPatched == 1)
        let view = PixelRect(x0: 712, y0: 506, x1: 712 + panel.width, y1: 506 + panel.height)
        let kept = PixelRect(x0: 700, y0: 500, x1: 700 + panel.width, y1: 500 + panel.height).intersection(view)
        let changed = grid.contentRect(key).intersection(kept)
        #expect(band.pixelsPatched == view.width * view.height - kept.width * kept.height + changed.width * changed.height)
        #expect(third.buffer[third.x + 800 - 712, third.y + 600 - 506] == 0xFF00_FF00)
        #expect(try mismatches(third, 712, 506, store) == 0)
        // It is the band's current buffer, shown from where it holds the view.
        #expect(band.source(x: 712, y: 506, view: panel)?.index == first.index)
        // A jump: nothing held there, composed whole.
        _ = try draw(2000, 1200)
        #expect(composed == 3 && band.framesPatched == 1)
        #expect(output.composedBufferCount == 0)
    }

    @Test func aFrameNeedingATileNotInMemoryIsComposedWhole() throws {
        let store = try TileStore(source: try MemoryPyramid(try detailedImage(content), tileSize: 128, overlap: 1),
                                  cacheBytes: 64 << 20, workers: 0)
        let output = try #require(HeadlessOutput(size: panel))
        let band = try #require(ScanOutBand(output: output, view: panel, content: content, margin: 100))
        var composed = 0
        func draw(_ x: Int, _ y: Int) throws {
            let shown = try #require(band.drawFrame(x: x, y: y, view: panel, resting: nil, store: store) { part in
                composed += 1
                Compositor().compose(state(x, y), content: Content(tiles: store), into: part, indicators: false)
                return true
            })
            #expect(try mismatches(shown, x, y, store) == 0)
            band.onScreen = shown.index
        }
        try draw(700, 500)
        try draw(700, 500)
        // Past the first frame's tiles (rows of 128 px: none made below 768 yet): composed whole,
        // which makes them.
        try draw(700, 590)
        #expect(composed == 3 && band.framesPatched == 0)
        // Back within what is made: the other buffer is brought to the view.
        try draw(700, 580)
        #expect(composed == 3 && band.framesPatched == 1)
    }
}
