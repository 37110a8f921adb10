import CSpng
import FlickCore
import FlickSystem
import Glibc
import Synchronization

/// Builds a Deep Zoom pyramid from one PNG or JPEG of any size, streaming: the image is decoded
/// row by row and every level is made and written as its rows complete, so memory is a band of
/// rows per level (tens of MiB for a 30000×30000 image), not the image. Decoding and averaging
/// run on the caller's thread; the tiles of each completed tile row are encoded in parallel.
///
/// The output is what `vips dzsave` writes with PNG tiles: `NAME.dzi` and
/// `NAME_files/LEVEL/COLUMN_ROW.png`, every level down to 1×1, each level the one above averaged
/// 2×2 (rounded up at odd sizes), tiles carrying `overlap` pixels of their neighbours
/// (`TileGrid` has the geometry). Tiles are lossless, so the full-resolution level equals the
/// decoded source pixel for pixel. A source with alpha (an alpha channel or `tRNS`) gives RGBA
/// tiles, averaged premultiplied; an opaque one gives RGB tiles.
public enum PyramidBuilder {
    /// Deep Zoom's usual tile side (with an overlap of 1, a stored tile is at most 256 pixels).
    public static let defaultTileSize = 254
    /// The usual overlap.
    public static let defaultOverlap = 1
    /// zlib's fastest level: tiles are written once and the build is bound by compression.
    static let compressionLevel: Int32 = 1
    /// The PNG row filter of every tile: "up" alone. libspng's default tries all five on every
    /// row and keeps the best, which took 40 % of a build's CPU for tiles 0.06 % smaller
    /// (a 4000² map: 10 468 KiB of tiles with all five, 10 474 with "up", 13 861 with none).
    static let filters = Int32(SPNG_FILTER_CHOICE_UP.rawValue)

    /// The size of a PNG or JPEG, from its header alone.
    /// - Throws: `ContentError` naming `image` (unreadable, empty, neither PNG nor JPEG, a bad header).
    public static func imageSize(of image: String) throws -> PixelSize {
        let reader = try ScanlineReaders.open(image)
        return PixelSize(width: reader.width, height: reader.height)
    }

    /// The folder of a built pyramid for `image` inside `cacheDirectory`, keyed by the image's
    /// resolved path, size and modification time (ns) so an edited file gets a new pyramid.
    ///
    /// - Returns: the path of the `.dzi`, whether or not it exists yet.
    /// - Throws: `ContentError` naming `image` when it cannot be found or is not a file.
    public static func cachedDescriptor(for image: String, cacheDirectory: String,
                                        tileSize: Int = defaultTileSize, overlap: Int = defaultOverlap) throws -> String {
        let source = try SourceIdentity(image)
        return "\(cacheDirectory)/\(source.folderName(tileSize: tileSize, overlap: overlap))/\(source.baseName).dzi"
    }

    /// Builds the pyramid of `image` in `cacheDirectory` if it is not already there.
    ///
    /// The pyramid is written into a temporary folder beside its final one and renamed into
    /// place when complete; on any failure the temporary folder is removed. A build left by a
    /// process that died is removed by the next build of the same pyramid.
    ///
    /// - Parameters:
    ///   - image: a PNG (not interlaced) or a JPEG (baseline; progressive up to 16 M pixels).
    ///   - cacheDirectory: an existing, writable folder.
    ///   - tileSize: the tile side without overlap, 1…8192.
    ///   - overlap: pixels of each neighbour a tile carries, 0 to `tileSize − 1`.
    ///   - progress: called every `tileSize` rows of the source, and once when the pyramid is in
    ///     place (`finished`); not called when it was already built.
    /// - Returns: the `.dzi`'s path.
    /// - Throws: `ContentError` naming the image (unreadable, truncated, corrupt, changed while
    ///   being read) or the cache path that could not be written, and why.
    public static func build(image: String, cacheDirectory: String, tileSize: Int = defaultTileSize,
                             overlap: Int = defaultOverlap, progress: (PyramidProgress) -> Void = { _ in }) throws -> String {
        precondition(tileSize >= 1 && tileSize <= 8192 && overlap >= 0 && overlap < tileSize,
                     "tile size \(tileSize), overlap \(overlap)")
        let before = try SourceIdentity(image)
        let folderName = before.folderName(tileSize: tileSize, overlap: overlap)
        let descriptor = "\(cacheDirectory)/\(folderName)/\(before.baseName).dzi"
        if access(descriptor, F_OK) == 0 { return descriptor }
        removeAbandonedBuilds(of: folderName, in: cacheDirectory)

        let started = now()
        let reader = try ScanlineReaders.open(image)
        guard let grid = TileGrid(width: reader.width, height: reader.height, tileSize: tileSize, overlap: overlap) else {
            throw ContentError(path: image, reason: .corrupt(detail: "unsupported size \(reader.width)x\(reader.height)"))
        }
        let folder = try PyramidFolder(cacheDirectory: cacheDirectory, folder: folderName, name: before.baseName,
                                       levels: grid.maxLevel + 1)
        let tiles = TileWriter(alpha: reader.hasAlpha, store: folder.writeTile)
        let top = LevelStream(grid: grid, level: grid.maxLevel, channels: reader.channels, emit: tiles.write)
        func report(rows: Int, finished: Bool) {
            progress(PyramidProgress(rowsDone: rows, rows: grid.height, size: grid.size, levels: grid.maxLevel + 1,
                                     tilesWritten: tiles.count, elapsed: Double(now() - started) / 1e9, finished: finished))
        }

        func changed() -> ContentError? {
            let after = try? SourceIdentity(image)
            guard after != before else { return nil }
            return ContentError(path: image, reason: .changedWhileBuilding(before: before.description,
                                                                          after: after?.description ?? "gone"))
        }
        do {
            for y in 0..<grid.height {
                let row = top.rowPointer
                do {
                    try reader.readRow(into: row)
                } catch {
                    // A file rewritten under the reader reads as truncated or corrupt: say what happened.
                    throw changed() ?? error
                }
                if reader.hasAlpha { premultiply(row, count: grid.width) }
                try top.commitRow()
                if (y + 1) % tileSize == 0 && y + 1 < grid.height { report(rows: y + 1, finished: false) }
            }
            try top.finish()
            try folder.writeDescriptor(grid)
            try folder.writeSource(before.path)
            if let error = changed() { throw error }
            let path = try folder.publish()
            report(rows: grid.height, finished: true)
            return path
        } catch {
            folder.discard()
            throw error
        }
    }

    /// Removes temporary folders of `folderName` whose builder is no longer running (killed,
    /// or the machine lost power): their PID follows the partial prefix.
    private static func removeAbandonedBuilds(of folderName: String, in cacheDirectory: String) {
        guard case .success(let names) = FileIO.list(cacheDirectory) else { return }
        let prefix = PyramidFolder.partialPrefix(folderName)
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { PyramidFolder.removeTree("\(cacheDirectory)/\(name)") }
        }
    }

    /// Straight RGBA bytes to premultiplied, rounded as `PNGCodec.decode` rounds, so the full
    /// level equals the decoded image.
    static func premultiply(_ row: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let p = row + 4 * x
            let a = UInt32(p[3])
            guard a != 255 else { continue }
            for k in 0..<3 {
                let t = UInt32(p[k]) * a + 128
                p[k] = UInt8((t + (t >> 8)) >> 8)
            }
        }
    }

    private static func now() -> Int64 { Instant.monotonicNow().nanoseconds }
}

/// Encodes tiles as PNG and hands each to `store` (the pyramid's folder, or the estimate's
/// tally), counting them. Called from several threads at once (the tiles of one tile row are
/// encoded in parallel).
final class TileWriter: Sendable {
    private let store: @Sendable (TileKey, [UInt8]) throws -> Void
    private let alpha: Bool
    private let written = Mutex(0)

    init(alpha: Bool, store: @escaping @Sendable (TileKey, [UInt8]) throws -> Void) {
        self.store = store
        self.alpha = alpha
    }

    /// Tiles written so far.
    var count: Int { written.withLock { $0 } }

    /// Encodes and writes the tile `key` of `size` whose rows `row` gives.
    /// - Throws: `ContentError` naming the tile's file; `PNGWriteError` if libspng refuses.
    func write(_ key: TileKey, _ size: PixelSize, _ row: (Int) -> UnsafeRawPointer) throws {
        // One row of straight RGBA, for tiles with alpha (stored premultiplied while building).
        let straight = UnsafeMutablePointer<UInt8>.allocate(capacity: alpha ? size.width * 4 : 0)
        defer { straight.deallocate() }
        let bytes = try PNGCodec.encodeRows(width: size.width, height: size.height, alpha: alpha,
                                            compressionLevel: PyramidBuilder.compressionLevel,
                                            filters: PyramidBuilder.filters) { y in
            alpha ? UnsafeRawPointer(Self.unpremultiply(row(y), count: size.width, into: straight)) : row(y)
        }
        try store(key, bytes)
        written.withLock { $0 += 1 }
    }

    /// Back to straight alpha, as PNG stores it, rounded as `PNGCodec.encode` rounds.
    private static func unpremultiply(_ row: UnsafeRawPointer, count: Int,
                                      into straight: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let source = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<count {
            let a = UInt32(source[4 * x + 3])
            for k in 0..<3 {
                let c = UInt32(source[4 * x + k])
                straight[4 * x + k] = a == 0 || a == 255 ? UInt8(c) : UInt8(min(255, (c * 255 + a / 2) / a))
            }
            straight[4 * x + 3] = UInt8(a)
        }
        return straight
    }
}
