/// The test pattern as tiles, each drawn when asked: any size of pattern costs only the tiles
/// in memory, not a buffer of the whole (a 7680×4320 pattern was 127 MiB).
///
/// A coarser level's pixel is the pattern's pixel at that level pixel's centre (point sampled,
/// not averaged): cheap enough to make the pinned levels at start, and it is a test image.
public final class TestPatternSource: TileSource {
    public let grid: TileGrid
    public var lowestLevel: Int { 0 }
    public var isOpaque: Bool { true }
    public var name: String { "test pattern" }

    /// The pattern's tiles for content of `size`, or `nil` for an unusable size.
    public init?(size: PixelSize, tileSize: Int = 256) {
        guard let grid = TileGrid(width: size.width, height: size.height, tileSize: tileSize, overlap: 1) else { return nil }
        self.grid = grid
    }

    public func tile(_ key: TileKey) throws -> PixelBuffer {
        let rect = grid.storedRect(key)
        guard grid.contains(key), let buffer = PixelBuffer(width: rect.width, height: rect.height) else {
            throw ContentError(path: "test pattern tile \(key)", reason: .outOfMemory(width: rect.width, height: rect.height))
        }
        let size = grid.size
        let shift = grid.maxLevel - key.level
        let half = shift == 0 ? 0 : 1 << (shift - 1)
        for y in 0..<rect.height {
            let row = buffer.row(y)
            let py = min(((rect.y0 + y) << shift) + half, size.height - 1)
            for x in 0..<rect.width {
                row[x] = TestPattern.pixel(x: min(((rect.x0 + x) << shift) + half, size.width - 1), y: py, size: size)
            }
        }
        return buffer
    }
}
