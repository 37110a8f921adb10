import FlickCore
import Glibc
import Testing
@testable import FlickDisplay

/// A big image's preview, shown while its pyramid is built: a JPEG scaled by its IDCT, as
/// `djpeg -scale 1/8` does, against the full decode scaled the same way; any format averaged
/// down by a whole factor; its tiles at every level from the one reduced image.
@Suite struct PreviewTests {
    /// Fitted into 640×480, a 4000×3000 JPEG is decoded at 1/4 (1000×750: 1/8 would be
    /// 500×375, under the fit), and its pixels are the full decode averaged 4×4, within what
    /// the scaled IDCT rounds differently.
    @Test func aJPEGPreviewIsTheFullDecodeScaledTheSameWay() throws {
        let dir = makeTemporaryDirectory()
        let source = photo(width: 4000, height: 3000)
        let bytes = try #require(JPEGEncoder.encode(source, quality: 92))
        writeBytes(bytes, to: dir + "/map.jpg")
        let (preview, full) = try ReducedDecoder.preview(at: dir + "/map.jpg", fittedInto: PixelSize(width: 640, height: 480))
        #expect(full == PixelSize(width: 4000, height: 3000))
        #expect(preview.size == PixelSize(width: 1000, height: 750))
        let whole = try JPEGDecoder.decode(bytes, path: "map.jpg", pixelBudget: 12_000_000)
        var total = 0, worst = 0
        for y in 0..<750 {
            for x in 0..<1000 {
                var sums = (0, 0, 0)
                for dy in 0..<4 {
                    for dx in 0..<4 {
                        let c = channels(whole[4 * x + dx, 4 * y + dy])
                        sums = (sums.0 + c.r, sums.1 + c.g, sums.2 + c.b)
                    }
                }
                let p = channels(preview[x, y])
                let d = max(abs(p.r - (sums.0 + 8) / 16), abs(p.g - (sums.1 + 8) / 16), abs(p.b - (sums.2 + 8) / 16))
                total += d
                worst = max(worst, d)
            }
        }
        let mean = Double(total) / 750_000
        #expect(mean <= 1.5 && worst <= 24, "mean difference \(mean), worst \(worst) levels")
    }

    /// A PNG (no DCT to scale) is streamed and averaged by the largest whole factor that still
    /// covers the fit: exactly the box average.
    @Test func aPNGPreviewIsTheBoxAverage() throws {
        let dir = makeTemporaryDirectory()
        let source = photo(width: 1300, height: 900)
        try PNGCodec.write(source, to: dir + "/map.png")
        let (preview, full) = try ReducedDecoder.preview(at: dir + "/map.png", fittedInto: PixelSize(width: 400, height: 300))
        // The fit is 400×276: a factor of 3 (434×300) still covers it, 4 would not.
        #expect(full == PixelSize(width: 1300, height: 900) && preview.size == PixelSize(width: 434, height: 300))
        var differ = 0
        for y in 0..<300 {
            for x in 0..<434 {
                let xs = (3 * x)..<min(1300, 3 * x + 3), ys = (3 * y)..<(3 * y + 3)
                var sums = (0, 0, 0)
                for sy in ys { for sx in xs { let c = channels(source[sx, sy]); sums = (sums.0 + c.r, sums.1 + c.g, sums.2 + c.b) } }
                let n = xs.count * ys.count, p = channels(preview[x, y])
                if (p.r, p.g, p.b) != ((sums.0 + n / 2) / n, (sums.1 + n / 2) / n, (sums.2 + n / 2) / n) { differ += 1 }
            }
        }
        #expect(differ == 0)
    }

    /// The preview's grid is the pyramid's: its level of the preview's size is the preview
    /// itself, tile for tile; coarser and finer levels are made from it, every tile its size.
    @Test func theSourceCutsEveryLevelFromThePreview() throws {
        let preview = photo(width: 1000, height: 750)
        let source = try #require(PreviewSource(image: preview, fullSize: PixelSize(width: 4000, height: 3000), name: "map.jpg"))
        let grid = source.grid
        #expect(grid.size == PixelSize(width: 4000, height: 3000) && source.isOpaque)
        let level = grid.maxLevel - 2
        #expect(grid.levelSize(level) == PixelSize(width: 1000, height: 750))
        let key = TileKey(level: level, column: 1, row: 1)
        let tile = try source.tile(key)
        let rect = grid.storedRect(key)
        var differ = 0
        for y in 0..<tile.height {
            for x in 0..<tile.width where tile[x, y] & 0xFF_FFFF != preview[rect.x0 + x, rect.y0 + y] & 0xFF_FFFF { differ += 1 }
        }
        #expect(differ == 0)
        for key in [TileKey(level: grid.maxLevel, column: 15, row: 11), TileKey(level: 3, column: 0, row: 0)] {
            let made = try source.tile(key), stored = grid.storedRect(key)
            #expect(made.width == stored.width && made.height == stored.height, "\(key)")
        }
    }

    /// A file cut short is said, naming it.
    @Test func aCutJPEGIsSaid() throws {
        let dir = makeTemporaryDirectory()
        let bytes = try #require(JPEGEncoder.encode(photo(width: 800, height: 600), quality: 90))
        writeBytes(Array(bytes.prefix(bytes.count / 2)), to: dir + "/cut.jpg")
        #expect(throws: ContentError.self) {
            try ReducedDecoder.preview(at: dir + "/cut.jpg", fittedInto: PixelSize(width: 100, height: 100))
        }
    }

    /// Gradients, a ripple and grain: detail at every scale.
    private func photo(width: Int, height: Int) -> PixelBuffer {
        let buffer = PixelBuffer(width: width, height: height)!
        for y in 0..<height {
            for x in 0..<width {
                var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
                h = (h ^ (h >> 13)) &* 0x5bd1_e995
                let grain = Int((h >> 8) & 15) - 8
                let r = max(0, min(255, x * 255 / width + grain))
                let g = max(0, min(255, y * 255 / height + grain))
                let b = max(0, min(255, 128 + Int(90 * sin(Double(x + 2 * y) / 37)) + grain))
                buffer[x, y] = 0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
            }
        }
        return buffer
    }
}
