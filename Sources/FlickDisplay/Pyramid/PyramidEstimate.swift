import FlickSystem
import Glibc
import Synchronization

/// What an image's pyramid will take on disk, before it is built, from a sample of it built
/// the same way.
///
/// A pyramid's size is its tiles' PNG bytes, and those depend on what the picture holds: a
/// photograph's tiles take two to three times the file's JPEG bytes, a map's with flat areas a
/// fraction (a rule of thumb was 27 MB for a 41 MB pyramid). So the sample is the real thing:
/// up to 5 × 5 patches of 4 × 4 tiles, spread evenly over the image and aligned to the pyramid's
/// tile grid, are decoded and built as the builder builds them (the same averaging, encoder,
/// filter and compression level), and their tiles' bytes give each level's bytes a pixel: the
/// full level from the patches' 16 tiles, the next from their 4, every smaller one from their
/// last. The rows between the patches are skipped (a JPEG entropy-decodes them only). Each
/// tile is counted in whole blocks of the file system, as `du` and the cache's limit count it.
public enum PyramidEstimate {
    /// The estimate, and how much of the image it looked at.
    public struct Estimate: Sendable, Equatable {
        /// Bytes on disk: tiles, folders and the two small files, in whole blocks.
        public var bytes: Int64
        /// The pyramid's tiles, every level.
        public var tiles: Int
        /// Patches built, and how many the image holds.
        public var patches: Int
        public var patchesInImage: Int
    }

    /// The most patches along each side.
    static let patchesPerSide = 5
    /// A patch's side in tiles: enough for a full, a half and a quarter level.
    static let patchTiles = 4

    /// Estimates the pyramid `PyramidBuilder.build` would write for `image`.
    /// - Parameters:
    ///   - blockSize: the cache's file system block (`statvfs`'s `f_bsize`).
    /// - Throws: `ContentError` naming `image` (unreadable, truncated, corrupt, not streamable).
    public static func estimate(image: String, blockSize: Int = 4096, tileSize: Int = PyramidBuilder.defaultTileSize,
                                overlap: Int = PyramidBuilder.defaultOverlap) throws -> Estimate {
        let reader = try ScanlineReaders.open(image)
        guard let grid = TileGrid(width: reader.width, height: reader.height, tileSize: tileSize, overlap: overlap) else {
            throw ContentError(path: image, reason: .corrupt(detail: "unsupported size \(reader.width)x\(reader.height)"))
        }
        let side = patchTiles * tileSize
        let columns = spread(length: grid.width, patch: side)
        let bands = spread(length: grid.height, patch: side)
        let tally = Tally(blockSize: blockSize)
        let channels = reader.channels
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: grid.width * channels)
        defer { row.deallocate() }
        var next = 0
        for band in bands.chosen {
            try reader.skipRows(band.start - next)
            let streams = columns.chosen.map { column in
                let patch = TileGrid(width: column.length, height: band.length, tileSize: tileSize, overlap: overlap)!
                let writer = TileWriter(alpha: reader.hasAlpha) { key, bytes in
                    let stored = patch.storedRect(key)
                    tally.add(depth: patch.maxLevel - key.level, pixels: (stored.x1 - stored.x0) * (stored.y1 - stored.y0),
                              bytes: bytes.count)
                }
                return (column, LevelStream(grid: patch, level: patch.maxLevel, channels: channels, emit: writer.write))
            }
            for _ in 0..<band.length {
                try reader.readRow(into: row)
                if reader.hasAlpha { PyramidBuilder.premultiply(row, count: grid.width) }
                for (column, stream) in streams {
                    stream.rowPointer.update(from: row + column.start * channels, count: column.length * channels)
                    try stream.commitRow()
                }
            }
            for (_, stream) in streams { try stream.finish() }
            next = band.start + band.length
        }
        return Estimate(bytes: tally.bytes(of: grid), tiles: (0...grid.maxLevel).reduce(0) {
                            let count = grid.tileCount($1)
                            return $0 + count.columns * count.rows
                        },
                        patches: columns.chosen.count * bands.chosen.count,
                        patchesInImage: columns.count * bands.count)
    }

    /// Up to `patchesPerSide` spans of `patch` along `length`, at the centres of equal shares
    /// and on the patch grid (so on the tile grid of every level a patch covers); one span of
    /// the whole length when it is shorter than a patch.
    static func spread(length: Int, patch: Int) -> (chosen: [(start: Int, length: Int)], count: Int) {
        let count = max(1, length / patch)
        let taken = min(count, patchesPerSide)
        let chosen = (0..<taken).map { k in
            let index = (2 * k + 1) * count / (2 * taken)
            return (start: index * patch, length: min(patch, length - index * patch))
        }
        return (chosen, count)
    }

    /// The sampled tiles' bytes and pixels by depth below the patch's full level (0, 1, 2 and
    /// more), fed from the encoding threads.
    private final class Tally: Sendable {
        let blockSize: Int
        private let sums = Mutex<[(pixels: Int, disk: Int)]>(Array(repeating: (0, 0), count: 3))

        init(blockSize: Int) { self.blockSize = max(1, blockSize) }

        /// A sampled tile; the patch's levels below depth 2 (a few pixels in a block each) are
        /// the patch's, not the image's, and left out.
        func add(depth: Int, pixels: Int, bytes: Int) {
            guard depth <= 2 else { return }
            let disk = blocks(bytes) * blockSize
            sums.withLock { $0[depth].pixels += pixels; $0[depth].disk += disk }
        }

        /// The whole pyramid: each tile its level's disk bytes a pixel (at least a block), each
        /// folder its entries, the descriptor and the source file a block each.
        func bytes(of grid: TileGrid) -> Int64 {
            let sums = sums.withLock { $0 }
            // The pyramid's folder, NAME_files, NAME.dzi and `source`.
            var total = Int64(4 * blockSize)
            for level in 0...grid.maxLevel {
                // The deepest depth the sample reached stands in for any deeper one.
                let depth = (0...min(grid.maxLevel - level, 2)).last { sums[$0].pixels > 0 } ?? 0
                let rate = sums[depth].pixels > 0 ? Double(sums[depth].disk) / Double(sums[depth].pixels) : 0
                let count = grid.tileCount(level)
                for row in 0..<count.rows {
                    for column in 0..<count.columns {
                        let stored = grid.storedRect(TileKey(level: level, column: column, row: row))
                        let pixels = Double((stored.x1 - stored.x0) * (stored.y1 - stored.y0))
                        total += Int64(max(blockSize, Int((pixels * rate).rounded())))
                    }
                }
                // A level's folder: an ext4 entry is 8 bytes and the name padded to 4.
                let name = "\(count.columns - 1)_\(count.rows - 1).png".utf8.count
                total += Int64(blocks(count.columns * count.rows * (8 + (name + 3) / 4 * 4)) * blockSize)
            }
            return total
        }

        private func blocks(_ bytes: Int) -> Int { max(1, (bytes + blockSize - 1) / blockSize) }
    }
}
