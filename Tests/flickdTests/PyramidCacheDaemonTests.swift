import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon keeps its pyramid cache bounded: a content file replaced again and again
/// leaves one pyramid, and over `content.cache_max_mb` the least recently shown goes first.
@Suite struct PyramidCacheDaemonTests {
    /// The pyramid folders in `cache`.
    static func pyramids(_ cache: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Noise, which PNG does not compress: its pyramid takes about 5⅓ bytes a pixel.
    static func noise(_ path: String, side: Int, seed: UInt32) throws {
        let buffer = try #require(PixelBuffer(width: side, height: side))
        var state = seed
        for y in 0..<side {
            for x in 0..<side {
                state = state &* 1_664_525 &+ 1_013_904_223
                buffer[x, y] = 0xFF00_0000 | (state >> 8)
            }
        }
        try PNGCodec.write(buffer, to: path)
    }

    @Test func aContentFileReplacedThreeTimesLeavesOnePyramid() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = dir + "/content.png", cache = dir + "/cache"
        // 400 × 200 is over the budget of 65536 pixels: each version shows from its pyramid.
        let (daemon, client) = try ContentWatchDaemonTests.start(in: dir, showing: 0xFF0000, width: 400, height: 200)
        for colour: UInt32 in [0x00FF00, 0x0000FF, 0xFFFF00] {
            try ContentWatchDaemonTests.png(dir + "/incoming.png", colour, width: 400, height: 200)
            #expect(rename(dir + "/incoming.png", content) == 0)
            try ContentWatchDaemonTests.waitForColour(colour, daemon, client, "version \(String(colour, radix: 16))")
        }
        // A grace after the last is shown, the versions before it go.
        let current = try PyramidBuilder.cachedDescriptor(for: content, cacheDirectory: cache)
        let name = ((current as NSString).deletingLastPathComponent as NSString).lastPathComponent
        try daemon.waitUntil("one pyramid left in the cache", timeout: 20) { Self.pyramids(cache) == [name] }
        #expect(daemon.stderr.contains("content: removed "), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("(changed)"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func overTheLimitTheLeastRecentlyShownPyramidGoesFirst() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache"
        // Maps shown before: a, long ago and big (about 1.9 MB of tiles); b, lately and small.
        var built: [String: String] = [:]
        for (name, side, ago) in [("a", 600, 3000), ("b", 150, 60)] {
            try Self.noise("\(dir)/\(name).png", side: side, seed: UInt32(side))
            let run = try runBuilt("flickd", ["pyramid", "\(dir)/\(name).png", "--cache-directory", cache])
            #expect(run.status == 0, "\(run.err)")
            let dzi = run.out.trimmingCharacters(in: .newlines)
            built[name] = ((dzi as NSString).deletingLastPathComponent as NSString).lastPathComponent
            let when = Date(timeIntervalSinceNow: -Double(ago))
            try FileManager.default.setAttributes([.modificationDate: when],
                                                  ofItemAtPath: (dzi as NSString).deletingLastPathComponent + "/source")
        }
        // The content now, c (about 0.5 MB): a, b and c are over 2 MB; b and c are not.
        try Self.noise(dir + "/c.png", side: 300, seed: 300)
        let extra = "[content]\npath = \"\(dir)/c.png\"\npixel_budget = 65536\ncache_directory = \"\(cache)\"\ncache_max_mb = 2\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil)
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let a = try #require(built["a"]), b = try #require(built["b"])
        // Said once the trim is done (by the build's child here: the pyramid of c was built).
        try daemon.waitForLog("\(a) (least recently shown)", timeout: 30)
        let left = Self.pyramids(cache)
        #expect(left.count == 2 && left.contains(b) && !left.contains(a), "\(left)")
        #expect(try daemon.terminate() == 0)
    }
}
