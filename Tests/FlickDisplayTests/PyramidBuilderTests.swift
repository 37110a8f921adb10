import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

/// The streaming pyramid builder: every level of the tiles it writes against a box filter
/// computed here independently, the Deep Zoom layout, the cache key and the failures.
@Suite struct PyramidBuilderTests {
    @Test(arguments: [(517, 263, 254, 1), (517, 263, 256, 0), (256, 256, 254, 1), (255, 2, 254, 1), (1, 1, 254, 1),
                      (130, 71, 16, 3)])
    func everyLevelIsTheSourceBoxFiltered(width: Int, height: Int, tileSize: Int, overlap: Int) throws {
        let dir = makeTemporaryDirectory()
        let source = try image(width: width, height: height)
        try PNGCodec.write(source, to: dir + "/map.png")
        let dzi = try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: dir, tileSize: tileSize, overlap: overlap)
        #expect(dzi.hasSuffix("/map.dzi"))
        try expectPyramid(dzi, equals: source, tileSize: tileSize, overlap: overlap)
    }

    @Test func alphaIsKeptAndAveragedPremultiplied() throws {
        let dir = makeTemporaryDirectory()
        let source = try image(width: 77, height: 40, alpha: true)
        try PNGCodec.write(source, to: dir + "/glass.png")
        let dzi = try PyramidBuilder.build(image: dir + "/glass.png", cacheDirectory: dir, tileSize: 32, overlap: 1)
        let decodedSource = try PNGCodec.decode(readBytes(dir + "/glass.png"), path: "glass.png", pixelBudget: 1 << 20)
        #expect(decodedSource.format == .argb8888)
        try expectPyramid(dzi, equals: decodedSource, tileSize: 32, overlap: 1)
    }

    @Test func aJPEGSourceGivesTheDecodedJPEG() throws {
        let dir = makeTemporaryDirectory()
        let jpeg = try jpegBytes(of: try image(width: 300, height: 170))
        writeBytes(jpeg, to: dir + "/photo.jpg")
        let decoded = try JPEGDecoder.decode(jpeg, path: "photo.jpg", pixelBudget: 1 << 20)
        let dzi = try PyramidBuilder.build(image: dir + "/photo.jpg", cacheDirectory: dir, tileSize: 128, overlap: 1)
        try expectPyramid(dzi, equals: decoded, tileSize: 128, overlap: 1)
    }

    @Test func theCacheKeyFollowsTheFileAndABuiltPyramidIsReused() throws {
        let dir = makeTemporaryDirectory()
        let path = dir + "/map.png"
        try PNGCodec.write(try image(width: 40, height: 30), to: path)
        let first = try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: dir)
        #expect(access(first, F_OK) != 0)
        #expect(try PyramidBuilder.build(image: path, cacheDirectory: dir) == first)
        #expect(access(first, F_OK) == 0)
        var reports = 0
        #expect(try PyramidBuilder.build(image: path, cacheDirectory: dir) { _ in reports += 1 } == first)
        #expect(reports == 0, "a built pyramid is not built again")
        // Same path, new contents (and a new modification time): a new key.
        try PNGCodec.write(try image(width: 41, height: 30), to: path)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let second = try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: dir)
        #expect(second != first)
        // Only the modification time changes: a new key too.
        times[1].tv_nsec = 1
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: dir) != second)
    }

    @Test func aSourceChangedDuringTheBuildIsAnErrorAndLeavesNothing() throws {
        let dir = makeTemporaryDirectory()
        let cache = makeTemporaryDirectory()
        let path = dir + "/map.png"
        try PNGCodec.write(try image(width: 100, height: 90), to: path)
        var modified = false
        #expect {
            try PyramidBuilder.build(image: path, cacheDirectory: cache, tileSize: 32, overlap: 1) { _ in
                guard !modified else { return }
                modified = true
                // An editor saving over it: appended bytes and a new modification time.
                let fd = open(path, O_WRONLY | O_APPEND)
                _ = write(fd, "x", 1)
                close(fd)
            }
        } throws: { error in
            guard let error = error as? ContentError, case .changedWhileBuilding = error.reason else { return false }
            return error.path == path && "\(error)".contains("changed while its pyramid was being built")
        }
        #expect(modified)
        #expect(try entries(cache).isEmpty, "no pyramid and no temporary folder")
    }

    @Test func anUnwritableOrMissingCacheFolderIsAnErrorNamingIt() throws {
        let dir = makeTemporaryDirectory()
        let path = dir + "/map.png"
        try PNGCodec.write(try image(width: 20, height: 20), to: path)
        // A folder under a regular file: ENOTDIR even for root, who ignores permission bits.
        for cache in [path + "/cache", dir + "/missing"] {
            #expect {
                try PyramidBuilder.build(image: path, cacheDirectory: cache)
            } throws: { error in
                guard let error = error as? ContentError, case .cacheWriteFailed = error.reason else { return false }
                return error.path == cache
            }
        }
        guard getuid() != 0 else { return }   // root writes into a read-only folder anyway
        let readOnly = dir + "/ro"
        #expect(mkdir(readOnly, 0o555) == 0)
        let denied = SystemError(call: "mkdtemp", context: readOnly, errno: EACCES)
        #expect(throws: ContentError(path: readOnly, reason: .cacheWriteFailed(step: "create a temporary folder", cause: denied))) {
            try PyramidBuilder.build(image: path, cacheDirectory: readOnly)
        }
    }

    @Test(arguments: ["png", "jpg"])
    func aTruncatedOrCorruptSourceIsAnErrorNamingItAndLeavesNothing(format: String) throws {
        let dir = makeTemporaryDirectory()
        let cache = makeTemporaryDirectory()
        let source = try image(width: 200, height: 120)
        let bytes = format == "png" ? try PNGCodec.encode(source) : try jpegBytes(of: source)
        var corrupt = bytes
        if format == "png" {
            for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 3) { corrupt[i] ^= 0x5A }
        } else {
            // An end-of-image marker inside the scan: bad data libjpeg would fill with grey.
            corrupt.replaceSubrange(bytes.count / 2..<bytes.count / 2 + 2, with: [0xFF, 0xD9])
        }
        for (name, data) in [("short", Array(bytes.prefix(bytes.count * 2 / 3))), ("bad", corrupt)] {
            let path = "\(dir)/\(name).\(format)"
            writeBytes(data, to: path)
            #expect {
                try PyramidBuilder.build(image: path, cacheDirectory: cache, tileSize: 64, overlap: 1)
            } throws: { error in
                guard let error = error as? ContentError, error.path == path else { return false }
                switch error.reason {
                case .truncated, .corrupt: return true
                default: return false
                }
            }
        }
        #expect(try entries(cache).isEmpty, "no pyramid and no temporary folder")
    }

    @Test func anAbandonedTemporaryFolderIsRemovedByTheNextBuild() throws {
        let dir = makeTemporaryDirectory()
        let path = dir + "/map.png"
        try PNGCodec.write(try image(width: 20, height: 20), to: path)
        let descriptor = try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: dir)
        let folder = String(descriptor.split(separator: "/").dropLast().last!)
        // PID 2^22 + 1 is above Linux's pid_max limit: never a running process.
        let abandoned = "\(dir)/.\(folder).partial-4194305-abcdef"
        #expect(mkdir(abandoned, 0o755) == 0)
        writeBytes([1, 2, 3], to: abandoned + "/junk")
        _ = try PyramidBuilder.build(image: path, cacheDirectory: dir)
        #expect(access(abandoned, F_OK) != 0)
    }

    // MARK: - Expected pyramid, computed simply

    /// A deterministic image whose neighbouring pixels differ (so every 2×2 mean matters).
    private func image(width: Int, height: Int, alpha: Bool = false) throws -> PixelBuffer {
        let buffer = try #require(PixelBuffer(width: width, height: height, format: alpha ? .argb8888 : .xrgb8888))
        for y in 0..<height {
            for x in 0..<width {
                var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
                h = (h ^ (h >> 13)) &* 0x5bd1_e995
                let r = UInt32(x * 255 / max(1, width - 1)), g = UInt32(y * 255 / max(1, height - 1)), b = h & 0xFF
                if alpha {
                    let a = (h >> 8) & 0xFF
                    // Premultiplied, as PixelBuffer holds alpha.
                    buffer[x, y] = a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | (b * a / 255)
                } else {
                    buffer[x, y] = 0xFF00_0000 | r << 16 | g << 8 | b
                }
            }
        }
        return buffer
    }

    /// The level below: each pixel the rounded mean of a 2×2 block, channel by channel, the
    /// last row and column repeated when odd.
    private func halve(_ p: [[UInt32]]) -> [[UInt32]] {
        let h = p.count, w = p[0].count
        return (0..<(h + 1) / 2).map { y in
            (0..<(w + 1) / 2).map { x in
                let xs = [2 * x, min(2 * x + 1, w - 1)], ys = [2 * y, min(2 * y + 1, h - 1)]
                var out: UInt32 = 0
                for shift in stride(from: 0, through: 24, by: 8) {
                    var sum: UInt32 = 2
                    for yy in ys { for xx in xs { sum += (p[yy][xx] >> UInt32(shift)) & 0xFF } }
                    out |= (sum / 4) << UInt32(shift)
                }
                return out
            }
        }
    }

    /// Reads the descriptor and every tile file, checking each tile's size and every pixel it
    /// stores (overlap included) against the expected level.
    private func expectPyramid(_ dzi: String, equals source: PixelBuffer, tileSize: Int, overlap: Int) throws {
        let xml = String(decoding: readBytes(dzi), as: UTF8.self)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(xml.contains("<Image xmlns=\"http://schemas.microsoft.com/deepzoom/2008\" TileSize=\"\(tileSize)\" "
                             + "Overlap=\"\(overlap)\" Format=\"png\"><Size Width=\"\(source.width)\" Height=\"\(source.height)\"/></Image>"))
        let grid = try #require(TileGrid(width: source.width, height: source.height, tileSize: tileSize, overlap: overlap))
        let files = String(dzi.dropLast(4)) + "_files"
        var expected = (0..<source.height).map { y in (0..<source.width).map { x in source[x, y] } }
        #expect(try entries(files).count == grid.maxLevel + 1)
        for level in stride(from: grid.maxLevel, through: 0, by: -1) {
            let size = grid.levelSize(level)
            #expect(expected.count == size.height && expected[0].count == size.width, "level \(level)")
            let count = grid.tileCount(level)
            #expect(try entries("\(files)/\(level)").count == count.columns * count.rows)
            var mismatches = 0
            for row in 0..<count.rows {
                for column in 0..<count.columns {
                    let key = TileKey(level: level, column: column, row: row)
                    let path = "\(files)/\(level)/\(column)_\(row).png"
                    let tile = try PNGCodec.decode(readBytes(path), path: path, pixelBudget: 1 << 20)
                    let rect = grid.storedRect(key)
                    try #require(tile.width == rect.x1 - rect.x0 && tile.height == rect.y1 - rect.y0, "\(key) size")
                    for y in 0..<tile.height {
                        for x in 0..<tile.width where tile[x, y] | (source.format == .xrgb8888 ? 0xFF00_0000 : 0)
                            != expected[rect.y0 + y][rect.x0 + x] {
                            mismatches += 1
                        }
                    }
                }
            }
            #expect(mismatches == 0, "level \(level): \(mismatches) pixels differ")
            if level > 0 { expected = halve(expected) }
        }
    }

    private func entries(_ path: String) throws -> [String] {
        guard case .success(let names) = FileIO.list(path) else { throw ContentError(path: path, reason: .noImages) }
        return names
    }
}
