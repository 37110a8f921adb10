/// One tile of a pyramid: its level of detail, column and row.
///
/// Levels are numbered as Deep Zoom numbers them: level `maxLevel` is the full resolution and
/// each level below it is half as wide and high (rounded up), down to level 0, one pixel.
public struct TileKey: Hashable, Sendable, CustomStringConvertible {
    /// The level of detail.
    public var level: Int
    /// The column, from the left.
    public var column: Int
    /// The row, from the top.
    public var row: Int
    /// For a tile resampled to a zoom scale (drawn from the level's tile once, then copied
    /// each frame at that zoom): the scale; `nil` for the level's own tile.
    public var zoom: Double?

    /// Creates a key.
    public init(level: Int, column: Int, row: Int, zoom: Double? = nil) {
        self.level = level
        self.column = column
        self.row = row
        self.zoom = zoom
    }

    public var description: String { "\(level)/\(column)_\(row)" + (zoom.map { " at zoom \($0.brief)" } ?? "") }
}

/// The geometry of a Deep Zoom pyramid: the full image's size, the tile size and the overlap.
///
/// Level `l` is `ceil(width / 2^(maxLevel − l))` by `ceil(height / 2^(maxLevel − l))` pixels, cut
/// into `tileSize`-square tiles from the top-left (the last column and row smaller). A stored
/// tile also carries `overlap` pixels of each neighbour on every side that has one, as
/// `vips dzsave` and deepzoom.py write them, so a filter sampling across a seam finds real pixels.
public struct TileGrid: Hashable, Sendable {
    /// The full-resolution width.
    public let width: Int
    /// The full-resolution height.
    public let height: Int
    /// The side of a tile, without overlap.
    public let tileSize: Int
    /// The pixels of each neighbour a stored tile carries.
    public let overlap: Int
    /// The full-resolution level: `ceil(log2(max(width, height)))`.
    public let maxLevel: Int

    /// The largest side a grid accepts: 2²⁴ pixels, so every level, tile and sum fits easily.
    public static let maxSide = 1 << 24

    /// Creates a grid, or `nil` for sizes that are not positive or over `maxSide`, a tile side
    /// under 1 or over 8192, or an overlap that is negative or not less than the tile side.
    public init?(width: Int, height: Int, tileSize: Int, overlap: Int = 0) {
        guard width > 0, height > 0, width <= Self.maxSide, height <= Self.maxSide,
              tileSize >= 1, tileSize <= 8192, overlap >= 0, overlap < tileSize else { return nil }
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
        var level = 0
        while (1 << level) < max(width, height) { level += 1 }
        maxLevel = level
    }

    /// The full resolution's size.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The size of `level` (clamped to the pyramid's levels).
    public func levelSize(_ level: Int) -> PixelSize {
        let shift = maxLevel - min(max(level, 0), maxLevel)
        let scale = 1 << shift
        return PixelSize(width: (width + scale - 1) / scale, height: (height + scale - 1) / scale)
    }

    /// How much smaller than full resolution `level` is: `2^−(maxLevel − level)`.
    public func scale(of level: Int) -> Double {
        1 / Double(1 << (maxLevel - min(max(level, 0), maxLevel)))
    }

    /// Columns and rows of tiles at `level`.
    public func tileCount(_ level: Int) -> (columns: Int, rows: Int) {
        let size = levelSize(level)
        return ((size.width + tileSize - 1) / tileSize, (size.height + tileSize - 1) / tileSize)
    }

    /// Whether `key` names a tile of this grid.
    public func contains(_ key: TileKey) -> Bool {
        guard key.level >= 0, key.level <= maxLevel, key.column >= 0, key.row >= 0 else { return false }
        let count = tileCount(key.level)
        return key.column < count.columns && key.row < count.rows
    }

    /// The part of its level a tile covers, overlap excluded: what it contributes to a frame.
    public func tileRect(_ key: TileKey) -> PixelRect {
        let size = levelSize(key.level)
        let x0 = key.column * tileSize, y0 = key.row * tileSize
        return PixelRect(x0: x0, y0: y0, x1: min(x0 + tileSize, size.width), y1: min(y0 + tileSize, size.height))
    }

    /// The part of the full resolution a tile shows (its `tileRect` scaled up to it).
    public func contentRect(_ key: TileKey) -> PixelRect {
        let r = tileRect(key), shift = maxLevel - min(max(key.level, 0), maxLevel)
        return PixelRect(x0: r.x0 << shift, y0: r.y0 << shift, x1: min(r.x1 << shift, width), y1: min(r.y1 << shift, height))
    }

    /// The part of its level a stored tile holds: `tileRect` grown by the overlap on every side
    /// that has a neighbour. A decoded tile must be exactly this size.
    public func storedRect(_ key: TileKey) -> PixelRect {
        let size = levelSize(key.level), inner = tileRect(key)
        return PixelRect(x0: max(0, inner.x0 - overlap), y0: max(0, inner.y0 - overlap),
                         x1: min(size.width, inner.x1 + overlap), y1: min(size.height, inner.y1 + overlap))
    }

    /// The tiles of `level` that cover `rect` (in that level's pixels), row by row.
    public func tiles(at level: Int, covering rect: PixelRect) -> [TileKey] {
        let size = levelSize(level)
        let area = rect.intersection(PixelRect(x0: 0, y0: 0, x1: size.width, y1: size.height))
        guard !area.isEmpty else { return [] }
        var keys: [TileKey] = []
        for row in (area.y0 / tileSize)...((area.y1 - 1) / tileSize) {
            for column in (area.x0 / tileSize)...((area.x1 - 1) / tileSize) {
                keys.append(TileKey(level: level, column: column, row: row))
            }
        }
        return keys
    }

    /// The level to draw at zoom `scale` (1 = full resolution): the smallest level at least as
    /// detailed as the screen needs, so a level is only ever scaled down, never up, except past
    /// full resolution. `bias` levels sharper (positive) or softer (negative), as CATiledLayer's
    /// `levelsOfDetailBias`.
    public func level(forZoom scale: Double, bias: Int = 0) -> Int {
        guard scale.isFinite, scale > 0 else { return maxLevel }
        var level = maxLevel
        while level > 0 && self.scale(of: level - 1) >= scale * (1 - 1e-9) { level -= 1 }
        return min(max(level + bias, 0), maxLevel)
    }
}
