import FlickCore
import FlickSystem
import Foundation
import Glibc
import Testing
@testable import FlickDisplay

/// The cache keeps one pyramid of an image replaced on disk (the one it is now, and the one in
/// use), and, over its limit, lets the least recently shown go first.
@Suite struct PyramidCacheTests {
    /// The pyramid folders in `cache`.
    private func folders(_ cache: String) -> [String] {
        guard case .success(let names) = FileIO.list(cache) else { return [] }
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    private func folder(_ dzi: String) -> String { String(dzi.split(separator: "/").dropLast().last!) }

    /// An image whose PNG tiles take about `width` × `height` × 4 bytes: noise does not compress.
    private func noise(width: Int, height: Int, seed: UInt32) throws -> PixelBuffer {
        let buffer = try #require(PixelBuffer(width: width, height: height, format: .xrgb8888))
        var state = seed
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                buffer[x, y] = 0xFF00_0000 | (state >> 8)
            }
        }
        return buffer
    }

    /// Writes a new version of `path` beside it and renames it over, as a content update does
    /// (a new inode, so a new pyramid).
    private func replace(_ path: String, width: Int) throws {
        try PNGCodec.write(try noise(width: width, height: 40, seed: UInt32(width)), to: path + ".new")
        #expect(rename(path + ".new", path) == 0)
    }

    /// Sets when the pyramid of `dzi` was last shown.
    private func shown(_ dzi: String, secondsAgo: Int) {
        let source = (dzi as NSString).deletingLastPathComponent + "/source"
        var times = [timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, source, &times, 0) == 0)
    }

    @Test func aFileReplacedFourTimesLeavesOnePyramidAndAnotherImagesStays() throws {
        let dir = makeTemporaryDirectory()
        let cache = dir + "/cache"
        #expect(mkdir(cache, 0o755) == 0)
        #expect(mkdir(dir + "/other", 0o755) == 0)
        // Another image of the same name elsewhere: its pyramid is not a version of the first.
        try PNGCodec.write(try noise(width: 50, height: 30, seed: 1), to: dir + "/other/map.png")
        let other = try PyramidBuilder.build(image: dir + "/other/map.png", cacheDirectory: cache, tileSize: 16, overlap: 1)
        var built: [String] = []
        var removed: [(name: String, why: String)] = []
        for width in [60, 61, 62, 63] {
            try replace(dir + "/map.png", width: width)
            let dzi = try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: cache, tileSize: 16, overlap: 1)
            built.append(dzi)
            removed += PyramidCache.trim(cache, inUse: [dzi], limit: nil)
        }
        #expect(removed.map(\.name) == built.prefix(3).map(folder) && removed.allSatisfy { $0.why == "changed" })
        #expect(folders(cache) == [built[3], other].map(folder).sorted())
        #expect(PyramidCache.trim(cache, inUse: [], limit: nil).isEmpty, "nothing more to trim")
    }

    @Test func aPyramidInUseStaysThoughItsImageChanged() throws {
        let dir = makeTemporaryDirectory()
        var built: [String] = []
        for width in [60, 61, 62] {
            try replace(dir + "/map.png", width: width)
            built.append(try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: dir, tileSize: 16, overlap: 1))
        }
        // Shown: the first; just built: the last. The middle one goes.
        let removed = PyramidCache.trim(dir, inUse: [built[0], built[2]], limit: nil)
        #expect(removed.map(\.name) == [folder(built[1])])
        #expect(access(built[0], F_OK) == 0 && access(built[2], F_OK) == 0 && access(built[1], F_OK) != 0)
    }

    @Test func overTheLimitTheLeastRecentlyShownGoesFirstButNeverOneInUse() throws {
        let dir = makeTemporaryDirectory()
        let cache = dir + "/cache"
        #expect(mkdir(cache, 0o755) == 0)
        var dzi: [String: String] = [:]
        for (name, side) in [("a", 120), ("b", 100), ("c", 110), ("d", 90)] {
            try PNGCodec.write(try noise(width: side, height: side, seed: UInt32(side)), to: "\(dir)/\(name).png")
            dzi[name] = try PyramidBuilder.build(image: "\(dir)/\(name).png", cacheDirectory: cache, tileSize: 32, overlap: 1)
        }
        // Shown long ago: d, then a, then b, then c. d is in use.
        for (name, ago) in [("d", 400), ("a", 300), ("b", 200), ("c", 100)] { shown(dzi[name]!, secondsAgo: ago) }
        let sizes = Dictionary(uniqueKeysWithValues: PyramidCache.pyramids(in: cache, sizes: true).map { ($0.name, $0.bytes) })
        let bytes = { (name: String) in sizes[self.folder(dzi[name]!)]! }
        let total = ["a", "b", "c", "d"].map(bytes).reduce(0, +)
        // One byte too many: a goes (d, shown before it, is in use); b, c and d stay.
        let removed = PyramidCache.trim(cache, inUse: [dzi["d"]!], limit: total - 1)
        #expect(removed.map(\.name) == [folder(dzi["a"]!)] && removed[0].why == "least recently shown")
        // A limit below what is in use: everything else goes, the one in use stays.
        let rest = PyramidCache.trim(cache, inUse: [dzi["d"]!], limit: 1)
        #expect(rest.map(\.name) == [folder(dzi["b"]!), folder(dzi["c"]!)])
        #expect(folders(cache) == [folder(dzi["d"]!)])
        #expect(bytes("d") > 0)
    }

    @Test func pyramidsFlickdDidNotBuildOrWhoseImageIsGoneAreNotTakenForChanged() throws {
        let dir = makeTemporaryDirectory()
        let cache = dir + "/cache"
        #expect(mkdir(cache, 0o755) == 0)
        // vips dzsave's, say: no source file.
        #expect(mkdir(cache + "/prebuilt", 0o755) == 0)
        try Data("<Image/>".utf8).write(to: URL(fileURLWithPath: cache + "/prebuilt/map.dzi"))
        try replace(dir + "/gone.png", width: 60)
        let gone = try PyramidBuilder.build(image: dir + "/gone.png", cacheDirectory: cache, tileSize: 16, overlap: 1)
        #expect(unlink(dir + "/gone.png") == 0)
        #expect(PyramidCache.trim(cache, inUse: [], limit: nil).isEmpty)
        #expect(folders(cache) == ["prebuilt", folder(gone)].sorted())
        // Over a limit it goes like any other once past the grace (built just now, it stays); the
        // prebuilt one is not counted or removed.
        #expect(PyramidCache.trim(cache, inUse: [], limit: 1).isEmpty, "built within the grace")
        shown(gone, secondsAgo: 100)
        let line = try #require(PyramidCache.trimmed(cache, inUse: [], limit: 1))
        #expect(line == "removed 1 pyramid from \(cache): \(folder(gone)) (least recently shown); 0 MB left, limit 0 MB", "\(line)")
        #expect(folders(cache) == ["prebuilt"])
    }

    @Test func showingAPyramidMarksIt() throws {
        let dir = makeTemporaryDirectory()
        try replace(dir + "/map.png", width: 60)
        let dzi = try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: dir, tileSize: 16, overlap: 1)
        shown(dzi, secondsAgo: 1000)
        PyramidCache.markShown(dzi)
        let marked = try #require(PyramidCache.pyramids(in: dir, sizes: false).first)
        #expect(abs(marked.lastShown / 1_000_000_000 - Int64(time(nil))) <= 2)
    }
}
