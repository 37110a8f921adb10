import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon shows a big image at once from its preview, before its pyramid is built,
/// and the pyramid then takes its place where the view is.
@Suite struct PreviewDaemonTests {
    @Test func aBigJPEGShowsWholeFromItsPreviewBeforeItsPyramid() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 2400×1600, four colours, over a budget of 65536 pixels: shown fitted into 800×480.
        let image = try #require(PixelBuffer(width: 2400, height: 1600))
        let quadrants: [UInt32] = [0xE02020, 0x20C020, 0x2040E0, 0xF0F0F0]
        for y in 0..<1600 {
            for x in 0..<2400 { image[x, y] = 0xFF00_0000 | quadrants[(y >= 800 ? 2 : 0) + (x >= 1200 ? 1 : 0)] }
        }
        let bytes = try #require(JPEGEncoder.encode(image, quality: 90))
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/map.jpg"))
        let extra = "[content]\npath = \"\(dir)/map.jpg\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
            + "[zoom]\nstart_scale = \"fit\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: "black")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        defer { _ = try? daemon.terminate() }
        try daemon.waitUntilReady()
        // 2400×1600 fitted into 800×480 is 720×480: 1/2 (1200×800) still covers it, and a
        // whole factor of 1 keeps it.
        try daemon.waitForLog("content: \(dir)/map.jpg shown from a preview of 1200x800 (2400x1600 reduced), decoded in ")
        let client = try daemon.client()
        #expect(try client.call(ControlRequest(cmd: "snapshot", path: "preview.png")).ok == true)
        let path = dir + "/snapshots/preview.png"
        let frame = try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
        // Fitted: 720×480 centred, 40 px of background each side.
        for (k, point) in [(0, (220, 120)), (1, (580, 120)), (2, (220, 360)), (3, (580, 360))] {
            let seen = frame[point.0, point.1] & 0xFF_FFFF
            let want = quadrants[k]
            let close = (0..<3).allSatisfy { (shift: Int) -> Bool in
                let a = Int((seen >> UInt32(8 * shift)) & 0xFF), b = Int((want >> UInt32(8 * shift)) & 0xFF)
                return abs(a - b) <= 12
            }
            #expect(close, "quadrant \(k) at \(point): \(String(seen, radix: 16)), not \(String(want, radix: 16))")
        }
        #expect(frame[10, 240] & 0xFF_FFFF == 0, "the background beside the fitted image")
        // Then the pyramid is built, after the preview, and replaces it.
        try daemon.waitForLog("content: pyramid of \(dir)/map.jpg built in ", timeout: 60)
        let log = daemon.stderr
        let preview = try #require(log.range(of: "shown from a preview"))
        let building = try #require(log.range(of: "building its pyramid in \(dir)/cache"))
        #expect(preview.lowerBound < building.lowerBound, "the preview first, then the build")
        try daemon.waitForLog("content loaded: \(dir)/map.jpg, 2400x1600, ")
        #expect(try daemon.terminate() == 0)
    }

    /// A broken big file has no preview: said, and the build's error follows; the placeholder stays.
    @Test func aBrokenBigFileHasNoPreviewAndSaysWhy() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(PixelBuffer(width: 600, height: 400))
        image.fill(0xFF80_4020)
        let bytes = try #require(JPEGEncoder.encode(image, quality: 90))
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: dir + "/cut.jpg"))
        let extra = "[content]\npath = \"\(dir)/cut.jpg\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: "black")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        defer { _ = try? daemon.terminate() }
        try daemon.waitUntilReady()
        try daemon.waitForLog("content: no preview of \(dir)/cut.jpg, placeholder (black) shows until its pyramid is built: ")
        try daemon.waitForLog("content: the pyramid of \(dir)/cut.jpg could not be built", timeout: 30)
        #expect(try daemon.terminate() == 0)
    }
}
