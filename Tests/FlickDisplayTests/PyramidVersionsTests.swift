import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

/// The cache keeps the newest two pyramids of an image replaced on disk, and nothing of another
/// image, even one of the same name in another folder.
@Suite struct PyramidVersionsTests {
    /// The pyramid folders in `cache` (not the content folders beside them).
    private func folders(_ cache: String, prefix: String) -> [String] {
        guard case .success(let names) = FileIO.list(cache) else { return [] }
        return names.filter { $0.hasPrefix(prefix + "-") }.sorted()
    }

    /// A plain image of a given width (each version of the file a different size).
    private func image(width: Int, height: Int) throws -> PixelBuffer {
        let buffer = try #require(PixelBuffer(width: width, height: height, format: .xrgb8888))
        for y in 0..<height { for x in 0..<width { buffer[x, y] = 0xFF00_0000 | UInt32(x & 0xFF) << 8 | UInt32(y & 0xFF) } }
        return buffer
    }

    /// Writes a new version of `path` beside it and renames it over, as a content update does
    /// (a new inode, so a new pyramid).
    private func replace(_ path: String, width: Int) throws {
        try PNGCodec.write(try image(width: width, height: 40), to: path + ".new")
        #expect(rename(path + ".new", path) == 0)
    }

    @Test func aFileReplacedFourTimesLeavesItsTwoNewestPyramids() throws {
        let dir = makeTemporaryDirectory()
        let cache = dir + "/cache"
        #expect(mkdir(cache, 0o755) == 0)
        #expect(mkdir(dir + "/other", 0o755) == 0)
        // Another image of the same name elsewhere: its pyramid is not a version of the first.
        try PNGCodec.write(try image(width: 50, height: 30), to: dir + "/other/map.png")
        let other = try PyramidBuilder.build(image: dir + "/other/map.png", cacheDirectory: cache, tileSize: 16, overlap: 1)

        var built: [String] = []
        var removed: [String] = []
        for width in [60, 61, 62, 63] {
            try replace(dir + "/map.png", width: width)
            let dzi = try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: cache, tileSize: 16, overlap: 1)
            built.append(dzi)
            removed += PyramidVersions.prune(of: dir + "/map.png", keeping: [dzi], cacheDirectory: cache)
            #expect(access(dzi, F_OK) == 0)
        }
        let folderOf = { (dzi: String) in String(dzi.split(separator: "/").dropLast().last!) }
        // The two newest stay (the one shown and the one before), the two oldest went, the
        // other image's stays.
        #expect(removed == built.prefix(2).map(folderOf))
        #expect(folders(cache, prefix: "map") == (built.suffix(2) + [other]).map(folderOf).sorted())
        #expect(access(other, F_OK) == 0)
        // Pruning again removes nothing more.
        #expect(PyramidVersions.prune(of: dir + "/map.png", keeping: [built[3]], cacheDirectory: cache).isEmpty)
    }

    @Test func theShownPyramidIsNeverRemovedEvenWhenOlder() throws {
        let dir = makeTemporaryDirectory()
        var built: [String] = []
        for width in [60, 61, 62] {
            try replace(dir + "/map.png", width: width)
            built.append(try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: dir, tileSize: 16, overlap: 1))
        }
        let removed = PyramidVersions.prune(of: dir + "/map.png", keeping: [built[0]], cacheDirectory: dir)
        #expect(removed.isEmpty)
        #expect(built.allSatisfy { access($0, F_OK) == 0 })
    }
}
