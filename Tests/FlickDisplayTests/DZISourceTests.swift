import FlickCore
import Foundation
import Glibc
import Testing
@testable import FlickDisplay

/// The pixel a test pyramid has at (`x`, `y`) of `level`: distinct across tiles, levels and seams.
private func pixel(level: Int, x: Int, y: Int) -> UInt32 {
    0xFF00_0000 | UInt32(x % 251) << 16 | UInt32(y % 241) << 8 | UInt32((level * 16 + x / 251 + 3 * (y / 241)) & 0xFF)
}

/// A pyramid written as `vips dzsave` lays one out: `dir/NAME.EXT` and `dir/NAME_files/LEVEL/C_R.FORMAT`,
/// each tile `storedRect`-sized, its pixels `pixel(level:x:y:)`.
private struct TestPyramid {
    var grid: TileGrid
    var format = "png"
    /// Levels below this one get no folder (`--depth onetile`).
    var lowest = 0
    /// Folders numbered from `lowest`, as `vips dzsave --depth onetile` numbers them.
    var onetile = false
    /// Tiles with alpha (PNG only): every other pixel transparent.
    var alpha = false

    /// The tile `key` as stored.
    func image(_ key: TileKey) -> PixelBuffer {
        let rect = grid.storedRect(key)
        let image = PixelBuffer(width: rect.width, height: rect.height, format: alpha ? .argb8888 : .xrgb8888)!
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let p = pixel(level: key.level, x: rect.x0 + x, y: rect.y0 + y)
                // Alpha 0 or 255 only: a PNG round trip of other premultiplied values may round.
                image[x, y] = alpha && (x + y) % 2 == 1 ? 0 : p
            }
        }
        return image
    }

    /// Writes the pyramid under a fresh folder; returns the descriptor's path.
    @discardableResult
    func write(in dir: String = makeTemporaryDirectory(), name: String = "map.dzi") throws -> String {
        let descriptor = dir + "/" + name
        writeBytes(Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
              Format="\(format)"
              Overlap="\(grid.overlap)"
              TileSize="\(grid.tileSize)"
              >
              <Size
                Height="\(grid.height)"
                Width="\(grid.width)"
              />
            </Image>

            """.utf8), to: descriptor)
        let folder = DZISource.tilesFolder(of: descriptor)
        mkdir(folder, 0o755)
        for level in lowest...grid.maxLevel {
            let number = onetile ? level - lowest : level
            mkdir("\(folder)/\(number)", 0o755)
            let count = grid.tileCount(level)
            for row in 0..<count.rows {
                for column in 0..<count.columns {
                    let key = TileKey(level: level, column: column, row: row)
                    let bytes = format == "png" ? try PNGCodec.encode(image(key)) : try jpegBytes(of: image(key))
                    writeBytes(bytes, to: "\(folder)/\(number)/\(column)_\(row).\(format)")
                }
            }
        }
        return descriptor
    }
}

/// The error `body` throws, rendered, after checking it is a `ContentError` naming `path`.
private func failure(naming path: String, sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: () throws -> Void) -> String {
    do {
        try body()
        Issue.record("no error", sourceLocation: sourceLocation)
    } catch let error as ContentError {
        #expect(error.path == path, sourceLocation: sourceLocation)
        return error.description
    } catch {
        Issue.record("not a ContentError: \(error)", sourceLocation: sourceLocation)
    }
    return ""
}

@Suite struct DZISourceTests {
    @Test(arguments: [
        // Overlap 0 and 1 (and 3), edge tiles of odd sizes, a one-tile pyramid.
        TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1)!,
        TileGrid(width: 300, height: 200, tileSize: 64, overlap: 0)!,
        TileGrid(width: 77, height: 45, tileSize: 16, overlap: 1)!,
        TileGrid(width: 77, height: 45, tileSize: 16, overlap: 3)!,
        TileGrid(width: 31, height: 1, tileSize: 254, overlap: 1)!,
    ])
    func readsBackEveryTile(grid: TileGrid) throws {
        let path = try TestPyramid(grid: grid).write()
        let source = try DZISource(descriptor: path)
        // Opaque PNG tiles (RGB): an opaque pyramid.
        #expect(source.grid == grid && source.lowestLevel == 0 && source.isOpaque && source.name == path)
        for level in 0...grid.maxLevel {
            let count = grid.tileCount(level)
            for row in 0..<count.rows {
                for column in 0..<count.columns {
                    let key = TileKey(level: level, column: column, row: row)
                    let tile = try source.tile(key)
                    let rect = grid.storedRect(key)
                    #expect(tile.size == PixelSize(width: rect.width, height: rect.height))
                    #expect(tile.format == .xrgb8888)
                    for y in 0..<rect.height {
                        for x in 0..<rect.width where tile[x, y] & 0xFF_FFFF != pixel(level: level, x: rect.x0 + x, y: rect.y0 + y) & 0xFF_FFFF {
                            Issue.record("tile \(key) differs at (\(x), \(y))")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func jpegPyramidIsOpaque() throws {
        let grid = try #require(TileGrid(width: 100, height: 70, tileSize: 32, overlap: 1))
        let source = try DZISource(descriptor: try TestPyramid(grid: grid, format: "jpeg").write())
        #expect(source.isOpaque)
        let key = TileKey(level: grid.maxLevel, column: 3, row: 2)
        let tile = try source.tile(key)
        #expect(tile.size == PixelSize(width: 5, height: 7))  // 100 − 96 + 1 overlap, 70 − 64 + 1
        #expect(tile.format == .xrgb8888)
        #expect(source.path(of: key) == source.tilesFolder + "/7/3_2.jpeg")
    }

    @Test func pngWithAlphaStaysAlphaOrIsFlattenedInAnOpaqueSource() throws {
        let grid = try #require(TileGrid(width: 20, height: 10, tileSize: 16, overlap: 0))
        let pyramid = TestPyramid(grid: grid, alpha: true)
        let source = try DZISource(descriptor: try pyramid.write())
        // RGBA tiles (the coarsest one told): not opaque.
        #expect(!source.isOpaque)
        let key = TileKey(level: grid.maxLevel, column: 0, row: 0)
        let tile = try source.tile(key)
        #expect(tile.format == .argb8888 && tile[3, 4] == 0 && tile[3, 5] == pyramid.image(key)[3, 5])
        // The same file in a source that promises opacity: premultiplied colours over black.
        let png = try PNGCodec.encode(pyramid.image(key))
        let flat = try DZISource.decodeTile(png, for: key, in: grid, opaque: true, path: "0_0.jpg")
        #expect(flat.format == .xrgb8888)
        #expect(flat[3, 4] & 0xFF_FFFF == 0 && flat[3, 5] & 0xFF_FFFF == pyramid.image(key)[3, 5] & 0xFF_FFFF)
    }

    @Test func vipsDepthOnetileNumbersFoldersFromTheOneTileLevel() throws {
        // vips 8.14 `dzsave --depth onetile` on 1001x703: folders 0, 1, 2 hold levels 8, 9, 10.
        let grid = try #require(TileGrid(width: 1001, height: 703, tileSize: 254, overlap: 1))
        let source = try DZISource(descriptor: try TestPyramid(grid: grid, lowest: 8, onetile: true).write())
        #expect(source.lowestLevel == 8 && source.folderShift == 8)
        #expect(source.path(of: TileKey(level: 10, column: 3, row: 2)) == source.tilesFolder + "/2/3_2.png")
        for level in 8...10 {
            for key in grid.tiles(at: level, covering: PixelRect(x0: 0, y0: 0, x1: 1001, y1: 703)) {
                let rect = grid.storedRect(key)
                let tile = try source.tile(key)
                #expect(tile.size == PixelSize(width: rect.width, height: rect.height))
                #expect(tile[0, 0] & 0xFF_FFFF == pixel(level: level, x: rect.x0, y: rect.y0) & 0xFF_FFFF)
            }
        }
        #expect(try source.tile(TileKey(level: 8, column: 0, row: 0)).size == PixelSize(width: 251, height: 176))
        let below = TileKey(level: 7, column: 0, row: 0)
        #expect(failure(naming: source.path(of: below)) { _ = try source.tile(below) }
                == "\(source.tilesFolder)/-1/0_0.png: cannot read: No such file or directory (errno 2)")
    }

    @Test func onetileNumberingNeedsItsFullResolutionTiles() throws {
        let grid = try #require(TileGrid(width: 1001, height: 703, tileSize: 254, overlap: 1))
        let path = try TestPyramid(grid: grid, lowest: 8, onetile: true).write()
        let folder = DZISource.tilesFolder(of: path)
        // Without the last full-resolution tile, folder 2 is not level 10: nothing fits.
        unlink(folder + "/2/3_2.png")
        #expect(failure(naming: path) { _ = try DZISource(descriptor: path) }.contains("no folder \(folder)/10 for the full-resolution level 10"))
        // Nor does a folder beyond the full-resolution one.
        let other = try TestPyramid(grid: grid, lowest: 8, onetile: true).write()
        mkdir(DZISource.tilesFolder(of: other) + "/3", 0o755)
        #expect(throws: ContentError.self) { try DZISource(descriptor: other) }
    }

    @Test func smallLevelsLeftOutOfDeepZoomNumbering() throws {
        let grid = try #require(TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1))
        let onetile = grid.maxLevel - 3  // 38x25
        let source = try DZISource(descriptor: try TestPyramid(grid: grid, lowest: onetile).write())
        #expect(source.lowestLevel == onetile && source.folderShift == 0)
        #expect(try source.tile(TileKey(level: onetile, column: 0, row: 0)).size == PixelSize(width: 38, height: 25))
        let below = TileKey(level: onetile - 1, column: 0, row: 0)
        #expect(failure(naming: source.path(of: below)) { _ = try source.tile(below) }
                == "\(source.path(of: below)): cannot read: No such file or directory (errno 2)")
    }

    @Test func aGapInTheLevelsEndsTheScan() throws {
        let grid = try #require(TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1))
        let path = try TestPyramid(grid: grid).write()
        let folder = DZISource.tilesFolder(of: path)
        for name in ["0_0.png"] { unlink("\(folder)/6/\(name)") }
        rmdir("\(folder)/6")
        #expect(try DZISource(descriptor: path).lowestLevel == 7)
    }

    @Test func missingFullResolutionFolder() throws {
        let grid = try #require(TileGrid(width: 30, height: 20, tileSize: 64, overlap: 1))
        let dir = makeTemporaryDirectory()
        let path = try TestPyramid(grid: grid, lowest: 5).write(in: dir, name: "a.b.xml")
        #expect(DZISource.tilesFolder(of: path) == dir + "/a.b_files")
        rename(dir + "/a.b_files/5", dir + "/a.b_files/9")
        let error = failure(naming: path) { _ = try DZISource(descriptor: path) }
        #expect(error == "\(path): no folder \(dir)/a.b_files/5 for the full-resolution level 5; expected the tiles beside the descriptor, as \(dir)/a.b_files/LEVEL/COLUMN_ROW.png")
        do { _ = try DZISource(descriptor: path) } catch let e as ContentError { #expect(e.kind == .noInput) }
        #expect(failure(naming: dir + "/none.dzi") { _ = try DZISource(descriptor: dir + "/none.dzi") }
                == "\(dir)/none.dzi: cannot read: No such file or directory (errno 2)")
    }

    @Test func descriptorErrorsNameTheFileAndLine() throws {
        let dir = makeTemporaryDirectory()
        writeBytes(Array("<Image TileSize=\"256\" Overlap=\"256\" Format=\"png\">\n<Size Width=\"1\" Height=\"1\"/></Image>".utf8), to: dir + "/bad.dzi")
        #expect(failure(naming: dir + "/bad.dzi") { _ = try DZISource(descriptor: dir + "/bad.dzi") }
                == "\(dir)/bad.dzi:1: <Image> Overlap=\"256\": expected an overlap from 0 to 255 pixels, less than TileSize=\"256\"")
        writeBytes([UInt8](repeating: 0x20, count: DZIDescriptor.maxFileBytes + 1), to: dir + "/big.dzi")
        #expect(failure(naming: dir + "/big.dzi") { _ = try DZISource(descriptor: dir + "/big.dzi") }
                == "\(dir)/big.dzi: the file is 65537 bytes, more than the 65536 accepted")
    }

    @Test func badTilesNameTheirFile() throws {
        let grid = try #require(TileGrid(width: 100, height: 70, tileSize: 32, overlap: 1))
        let source = try DZISource(descriptor: try TestPyramid(grid: grid).write())
        let top = grid.maxLevel
        func key(_ column: Int, _ row: Int) -> TileKey { TileKey(level: top, column: column, row: row) }
        func error(_ k: TileKey) -> String { failure(naming: source.path(of: k)) { _ = try source.tile(k) } }

        unlink(source.path(of: key(0, 0)))
        #expect(error(key(0, 0)) == "\(source.path(of: key(0, 0))): cannot read: No such file or directory (errno 2)")

        let good = readBytes(source.path(of: key(1, 0)))
        writeBytes(Array(good.prefix(good.count / 2)), to: source.path(of: key(1, 0)))
        #expect(error(key(1, 0)).hasPrefix("\(source.path(of: key(1, 0))): the file is truncated ("))

        var corrupt = readBytes(source.path(of: key(2, 0)))
        corrupt[corrupt.count / 2] ^= 0xFF
        writeBytes(corrupt, to: source.path(of: key(2, 0)))
        #expect(error(key(2, 0)).hasPrefix("\(source.path(of: key(2, 0))): the image is corrupt ("))

        writeBytes([], to: source.path(of: key(3, 0)))
        #expect(error(key(3, 0)) == "\(source.path(of: key(3, 0))): the file is empty (0 bytes)")

        writeBytes(Array("GIF89a".utf8), to: source.path(of: key(0, 1)))
        #expect(error(key(0, 1)) == "\(source.path(of: key(0, 1))): not a PNG, JPEG or WebP file")

        // An inner tile's neighbour (33x34 where 34x34 belongs), and one far larger than the tile.
        try PNGCodec.write(TestPyramid(grid: grid).image(key(0, 1)), to: source.path(of: key(1, 1)))
        #expect(error(key(1, 1)) == "\(source.path(of: key(1, 1))): the tile is 33x34 pixels; expected 34x34, its place in the pyramid with the overlap")
        try PNGCodec.write(PixelBuffer(width: 1000, height: 1000)!, to: source.path(of: key(2, 1)))
        #expect(error(key(2, 1)) == "\(source.path(of: key(2, 1))): the tile is 1000x1000 pixels; expected 34x34, its place in the pyramid with the overlap")
        writeBytes(try jpegBytes(of: PixelBuffer(width: 40, height: 3)!), to: source.path(of: key(3, 1)))
        #expect(error(key(3, 1)) == "\(source.path(of: key(3, 1))): the tile is 40x3 pixels; expected 5x34, its place in the pyramid with the overlap")

        let outside = TileKey(level: top, column: 4, row: 0)
        #expect(error(outside) == "\(source.path(of: outside)): no tile 7/4_0 in the pyramid; expected a level from 0 to 7 and a column and row inside it")
        #expect(error(TileKey(level: top + 1, column: 0, row: 0)).hasSuffix("no tile 8/0_0 in the pyramid; expected a level from 0 to 7 and a column and row inside it"))
        // The tiles left alone still read.
        #expect(try source.tile(key(0, 2)).size == PixelSize(width: 33, height: 7))
    }

    @Test func tilesReadFromManyThreadsAtOnce() async throws {
        let grid = try #require(TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1))
        let source = try DZISource(descriptor: try TestPyramid(grid: grid).write())
        let keys = (0...grid.maxLevel).flatMap { level in
            grid.tiles(at: level, covering: PixelRect(x0: 0, y0: 0, x1: 1 << 20, y1: 1 << 20))
        }
        /// A tile's pixels summed: the same whichever thread decoded it.
        @Sendable func sum(_ key: TileKey) throws -> UInt64 {
            let tile = try source.tile(key)
            var total: UInt64 = 0
            for y in 0..<tile.height { for x in 0..<tile.width { total &+= UInt64(tile[x, y]) &* UInt64(x + 1) } }
            return total
        }
        let expected = try keys.map(sum)
        let sums = try await withThrowingTaskGroup(of: (Int, UInt64).self) { group in
            for _ in 0..<4 {
                for (index, key) in keys.enumerated() { group.addTask { (index, try sum(key)) } }
            }
            var out: [Int: [UInt64]] = [:]
            for try await (index, value) in group { out[index, default: []].append(value) }
            return out
        }
        for (index, values) in sums { #expect(values == Array(repeating: expected[index], count: 4), "\(keys[index])") }
        #expect(sums.count == keys.count)
    }
}

/// What fuzzing the dzi target found (RELIABILITY.md, "Fuzzing"), and its whole corpus
/// (Fuzz/Corpus/dzi, Fuzz/Regressions/dzi) through the descriptor parser and the tile decoder.
@Suite struct DZIFuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// A JPEG of tables only (no frame before the data ends) has a 0x0 header: it was refused
    /// as "cannot allocate 0x0 pixels", out of memory, not as the corrupt file it is.
    @Test func aJPEGOfTablesOnlyIsCorrupt() throws {
        let input = try Data(contentsOf: Self.fuzz.appendingPathComponent("Regressions/dzi/jpeg-tables-only-0x0.bin"))
        let grid = try #require(TileGrid(width: 77, height: 45, tileSize: 16, overlap: 0))
        let error = try #require(throws: ContentError.self) {
            try DZISource.decodeTile(Array(input.dropFirst()), for: TileKey(level: 5, column: 1, row: 0), in: grid,
                                     opaque: false, path: "1_0.jpg")
        }
        #expect(error.description == "1_0.jpg: the image is corrupt (no image in the JPEG data (0x0 pixels))")
        #expect(error.kind == .data)
    }

    /// Every seed and every input the fuzzer kept: a descriptor is read or refused at a line of
    /// the file; a tile decodes to its stored size or is refused naming its file.
    @Test func everyCorpusFileKeepsTheContract() throws {
        let tiles: [(TileGrid, TileKey)] = [
            (TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1)!, TileKey(level: 9, column: 1, row: 1)),
            (TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1)!, TileKey(level: 9, column: 4, row: 3)),
            (TileGrid(width: 77, height: 45, tileSize: 16, overlap: 0)!, TileKey(level: 5, column: 1, row: 0)),
            (TileGrid(width: 5, height: 3, tileSize: 254, overlap: 1)!, TileKey(level: 3, column: 0, row: 0)),
        ]
        var descriptors = 0, decoded = 0
        for folder in ["Corpus/dzi", "Regressions/dzi"] {
            let dir = Self.fuzz.appendingPathComponent(folder).path
            for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where !name.hasPrefix(".") {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
                guard let selector = bytes.first else { continue }
                let rest = Array(bytes.dropFirst())
                if selector < 0x80 {
                    descriptors += 1
                    do {
                        _ = try DZIDescriptor.parse(rest, path: name)
                    } catch let error as ContentError {
                        let ends = rest.filter { $0 == 0x0A || $0 == 0x0D }.count
                        #expect(error.reason.line.map { (1...ends + 1).contains($0) } ?? true, "\(name): \(error)")
                    }
                } else {
                    let (grid, key) = tiles[Int(selector) % tiles.count]
                    let stored = grid.storedRect(key)
                    do {
                        let tile = try DZISource.decodeTile(rest, for: key, in: grid, opaque: false, path: name)
                        #expect(tile.size == PixelSize(width: stored.width, height: stored.height), "\(name)")
                        decoded += 1
                    } catch let error as ContentError {
                        #expect(error.path == name)
                        if case .outOfMemory = error.reason { Issue.record("\(name): \(error)") }
                    }
                }
            }
        }
        #expect(descriptors >= 20 && decoded >= 8)
    }
}
