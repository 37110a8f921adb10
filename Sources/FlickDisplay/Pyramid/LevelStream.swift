import Dispatch
import Glibc
import Synchronization

/// One level of a pyramid being built, fed its rows from the top.
///
/// It holds one band of rows: the tile row being filled, with the overlap above and below it
/// (`tileSize + 2·overlap` rows at most). When a tile row's last stored row arrives, its tiles
/// are encoded and written, and the band keeps only the rows the next tile row shares with it
/// (the overlap). Each pair of rows is averaged 2×2 into one row of the next smaller level as it
/// completes (a last odd row or column counts twice), so every level streams at once and the
/// memory is the bands, whatever the image's height.
///
/// Pixels are bytes, R, G, B (and premultiplied A with alpha), so opaque bands take 3 bytes a
/// pixel: the 30000-pixel-wide top level's band is 22 MiB, every level's together 44 MiB.
final class LevelStream {
    let level: Int
    let width: Int
    let height: Int
    let channels: Int
    private let grid: TileGrid
    private let rowBytes: Int
    private let band: UnsafeMutablePointer<UInt8>
    /// The level's row at the top of the band.
    private var bandTop = 0
    /// The next row to arrive.
    private(set) var nextRow = 0
    /// The tile row whose stored rows the band is filling.
    private var tileRow = 0
    /// The even row of a pair waiting for its odd partner (nil at level 0).
    private let pending: UnsafeMutablePointer<UInt8>?
    /// The level below (half the size), nil at level 0.
    private let next: LevelStream?
    /// Writes one finished tile: its key, and the stored rect's rows as (row index → bytes).
    private let emit: @Sendable (TileKey, _ size: PixelSize, _ row: (Int) -> UnsafeRawPointer) throws -> Void

    /// Makes this level and every smaller one below it.
    init(grid: TileGrid, level: Int, channels: Int,
         emit: @escaping @Sendable (TileKey, PixelSize, (Int) -> UnsafeRawPointer) throws -> Void) {
        self.grid = grid
        self.level = level
        self.channels = channels
        let size = grid.levelSize(level)
        width = size.width
        height = size.height
        rowBytes = width * channels
        band = .allocate(capacity: rowBytes * min(height, grid.tileSize + 2 * grid.overlap))
        pending = level > 0 ? .allocate(capacity: rowBytes) : nil
        next = level > 0 ? LevelStream(grid: grid, level: level - 1, channels: channels, emit: emit) : nil
        self.emit = emit
    }

    deinit {
        band.deallocate()
        pending?.deallocate()
    }

    /// Where the next row's bytes go (`width × channels`); `commitRow` then takes them.
    var rowPointer: UnsafeMutablePointer<UInt8> { band + (nextRow - bandTop) * rowBytes }

    /// Takes the row written at `rowPointer`: passes it down, and writes a tile row when it
    /// completes one.
    /// - Throws: the tile writer's errors.
    func commitRow() throws {
        precondition(nextRow < height, "row \(nextRow) of a \(height)-row level")
        let row = rowPointer
        if let next, let pending {
            if nextRow % 2 == 0 {
                pending.update(from: row, count: rowBytes)
            } else {
                reduce(pending, row, into: next.rowPointer)
                try next.commitRow()
            }
        }
        // Usually one tile row completes at a time; near the bottom, with a large overlap, the
        // last row can complete two (both end at the level's last row).
        let rows = grid.tileCount(level).rows
        while tileRow < rows {
            let stored = grid.storedRect(TileKey(level: level, column: 0, row: tileRow))
            guard nextRow == stored.y1 - 1 else { break }
            try writeTileRow()
            // The next tile row starts `overlap` rows above this one's end: keep those rows.
            let nextTop = min((tileRow + 1) * grid.tileSize - grid.overlap, height)
            let kept = stored.y1 - nextTop
            if kept > 0 { memmove(band, band + (nextTop - bandTop) * rowBytes, kept * rowBytes) }
            bandTop = nextTop
            tileRow += 1
        }
        nextRow += 1
    }

    /// Ends the level after its last row: an odd last row is averaged with itself into the
    /// level below, which is then ended in turn.
    func finish() throws {
        precondition(nextRow == height, "level \(level) ended after \(nextRow) of \(height) rows")
        guard let next, let pending else { return }
        if height % 2 == 1 {
            reduce(pending, pending, into: next.rowPointer)
            try next.commitRow()
        }
        try next.finish()
    }

    /// Encodes and writes the current tile row's tiles, in parallel (one task per tile, as
    /// many threads as CPUs): encoding is most of a build, and the band stays untouched until
    /// every tile of the row is written.
    private func writeTileRow() throws {
        let columns = grid.tileCount(level).columns
        let firstError = Mutex<(any Error)?>(nil)
        let (band, bandTop, rowBytes, channels) = (SendablePointer(band), bandTop, rowBytes, channels)
        let (emit, grid, level, tileRow) = (emit, grid, level, tileRow)
        DispatchQueue.concurrentPerform(iterations: columns) { column in
            guard firstError.withLock({ $0 == nil }) else { return }
            let key = TileKey(level: level, column: column, row: tileRow)
            let rect = grid.storedRect(key)
            let origin = band.pointer + (rect.y0 - bandTop) * rowBytes + rect.x0 * channels
            do {
                try emit(key, PixelSize(width: rect.x1 - rect.x0, height: rect.y1 - rect.y0)) { y in
                    UnsafeRawPointer(origin + y * rowBytes)
                }
            } catch {
                firstError.withLock { if $0 == nil { $0 = error } }
            }
        }
        if let error = firstError.withLock({ $0 }) { throw error }
    }

    /// One row of the level below from two rows here: each pixel the rounded mean of a 2×2
    /// block, the last column counted twice when the width is odd.
    private func reduce(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let c = channels, pairs = width / 2
        var i = 0, o = 0
        for _ in 0..<pairs {
            for k in 0..<c {
                let sum = UInt16(a[i + k]) &+ UInt16(a[i + c + k]) &+ UInt16(b[i + k]) &+ UInt16(b[i + c + k]) &+ 2
                out[o + k] = UInt8(truncatingIfNeeded: sum >> 2)
            }
            i += 2 * c
            o += c
        }
        if width % 2 == 1 {
            for k in 0..<c {
                let sum = 2 &* UInt16(a[i + k]) &+ 2 &* UInt16(b[i + k]) &+ 2
                out[o + k] = UInt8(truncatingIfNeeded: sum >> 2)
            }
        }
    }
}

/// The band's address, handed to the tile tasks, which only read it while the band waits.
private struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
}
