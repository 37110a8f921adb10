import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon showing tiled content: a folder of 500 pages, decoded as the view comes near.
@Suite struct TiledContentDaemonTests {
    /// Starts the daemon on a folder of `count` pages (links to three 800×480 images) and jumps
    /// to page `count / 2`; returns the frame showing it (waited for: the page's colour all over)
    /// and the tile status.
    private func showMiddlePage(of count: Int) throws -> (frame: PixelBuffer, status: ControlTileStatus) {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/pages", withIntermediateDirectories: true)
        for image in 0..<3 {
            let buffer = try #require(PixelBuffer(width: 800, height: 480))
            buffer.fill(0xFF00_0000 | UInt32(image + 1) * 0x40)
            try PNGCodec.write(buffer, to: dir + "/image\(image).png")
        }
        for page in 0..<count {
            #expect(symlink(dir + "/image\(page % 3).png", dir + String(format: "/pages/%04d.png", page)) == 0)
        }
        try FlickdProcess.config(directory: dir, extra: "[content]\ncache_mb = 16\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/pages"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        let middle = count / 2
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: Double(middle * 800), y: 0, animated: false)).ok == true)
        var frame: PixelBuffer?
        var status: ControlTileStatus?
        let path = dir + "/snapshots/page.png"
        try daemon.waitUntil("page \(middle) shown from its own tiles", timeout: 10) {
            guard (try? client.call(ControlRequest(cmd: "snapshot", path: "page.png")))?.ok == true,
                  let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
                  let decoded = try? PNGCodec.decode(bytes, path: path, pixelBudget: 1 << 22),
                  let tiles = try? client.call(ControlRequest(cmd: "status")).status?.tiles else { return false }
            frame = decoded
            status = tiles
            // The whole frame the page's colour: drawn from the page's own tiles, the
            // indicators (which a jump flashes) faded.
            let colour = UInt32(middle % 3 + 1) * 0x40
            return tiles.pending == 0
                && (0..<480).allSatisfy { y in (0..<800).allSatisfy { decoded[$0, y] & 0xFF_FFFF == colour } }
        }
        return (try #require(frame), try #require(status))
    }

    @Test func fiveHundredPagesCostWhatFiveDo() throws {
        let many = try showMiddlePage(of: 500)
        let few = try showMiddlePage(of: 5)
        for shown in [many, few] {
            #expect(shown.status.cacheBytes <= shown.status.cacheBudgetBytes && shown.status.failed == 0)
        }
        // 500 pages of 800×480 decoded whole would be 730 MiB; in tiles the two hold what is
        // around the view, whatever the number of pages.
        #expect(many.status.cacheBytes <= few.status.cacheBytes + (4 << 20), "\(many.status) vs \(few.status)")
        #expect(many.status.levels > few.status.levels)
    }
}

/// An image too big to decode whole: its pyramid is built off the loop, once, then shown from tiles.
@Suite struct PyramidContentDaemonTests {
    @Test func aBigImageIsShownFromItsPyramidBuiltOnceAndADZIOverTheSocket() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/allowed", withIntermediateDirectories: true)
        try ControlTests.writePattern(to: dir + "/allowed/map.png", width: 1600, height: 1200)
        // 1600×1200 is over a budget of 65536 pixels: a pyramid, in the configured cache folder.
        let extra = "[content]\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\nload_directories = [\"\(dir)/allowed\"]\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        for run in 0..<2 {
            let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/allowed/map.png"])
            try daemon.waitUntilReady()
            let client = try daemon.client()
            try daemon.waitUntil("the map shown from its tiles", timeout: 20) {
                (try? client.call(ControlRequest(cmd: "status")).status?.tiles?.levels) == 12
            }
            #expect(try client.call(ControlRequest(cmd: "set-offset", x: 700, y: 500, animated: false)).ok == true)
            let frame = try ControlTests.snapshot(daemon, client, "map-\(run).png", showing: (700, 500))
            #expect(ControlTests.contentPoint(frame[799, 479]) == (1499, 979))
            // Meanwhile the placeholder (black by default), never the test pattern.
            let waiting = "showing the placeholder (black) until the pyramid of \(dir)/allowed/map.png is built"
            if run == 0 {
                try daemon.waitForLog("building its pyramid")
                try daemon.waitForLog(waiting)
            }
            let log = daemon.stderr
            #expect(log.contains("building its pyramid") == (run == 0), "\(log)")
            #expect(log.contains(waiting) == (run == 0), "\(log)")
            #expect(!log.contains("test pattern"), "\(log)")
            if run == 1 {
                // The built pyramid, loaded over the socket as a Deep Zoom descriptor (copied into
                // the allowed folder, as an integrator's would be).
                let built = try #require(try FileManager.default.subpathsOfDirectory(atPath: dir + "/cache").first { $0.hasSuffix(".dzi") })
                let folder = (built as NSString).deletingLastPathComponent
                try FileManager.default.copyItem(atPath: dir + "/cache/" + folder, toPath: dir + "/allowed/pyramid")
                let dzi = dir + "/allowed/pyramid/" + (built as NSString).lastPathComponent
                #expect(try client.call(ControlRequest(cmd: "load", path: dzi)).ok == true)
                #expect(try client.call(ControlRequest(cmd: "set-offset", x: 100, y: 650, animated: false)).ok == true)
                _ = try ControlTests.snapshot(daemon, client, "dzi.png", showing: (100, 650))
                #expect(try client.call(ControlRequest(cmd: "status")).status?.content == dzi)
            }
            #expect(try daemon.terminate() == 0)
        }
    }

    /// A big image that is truncated: the child building its pyramid fails, and its error is
    /// said once, at error level, in the line saying the build failed; the info lines are its
    /// progress only. What stays on screen is named as it is.
    @Test func aFailedBuildsErrorIsAnErrorLineNotProgress() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/map.png"
        try ControlTests.writePattern(to: path, width: 1600, height: 1200)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: path))
        let extra = "[content]\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", path])
        try daemon.waitForLog("could not be built", timeout: 30)
        let client = try daemon.client()
        try daemon.waitUntil("status to say why the map is not shown", timeout: 10) {
            (try? client.call(ControlRequest(cmd: "status")).status?.contentError) != nil
        }
        let lines = daemon.stderr.split(separator: "\n").map(String.init)
        let failed = try #require(lines.first { $0.contains("could not be built") })
        #expect(failed.hasPrefix("flickd error: content: the pyramid of \(path) could not be built, placeholder (black) stays on screen: "),
                "\(failed)")
        #expect(failed.contains("flickd pyramid ended with exit status 65: \(path): the file is truncated (end of stream)"), "\(failed)")
        let progress = lines.filter { $0.contains("building the pyramid of \(path)") && !$0.contains("over content.pixel_budget") }
        #expect(progress.allSatisfy { $0.hasPrefix("flickd info: content: building the pyramid of \(path): rows ") }, "\(progress)")
        // Said twice: the preview's decode (a warning) and the build (the error).
        #expect(lines.filter { $0.contains("truncated") && !$0.contains("no preview of \(path)") }.count == 1, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("flickd warning: content: no preview of \(path), placeholder (black) shows until its pyramid is built: ") },
                "\(lines)")
        #expect(try daemon.terminate() == 0)
    }
}
