import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon keeping its content fresh: a PNG moved over the content file is shown without
/// a reload (inotify), a pyramid needed for the new file is built while the old one shows, and
/// content chosen with `load` comes back after a restart.
@Suite struct ContentWatchDaemonTests {
    /// An 800 × 480 PNG of one colour.
    static func png(_ path: String, _ colour: UInt32, width: Int = 800, height: Int = 480) throws {
        let buffer = try #require(PixelBuffer(width: width, height: height))
        buffer.fill(0xFF00_0000 | colour)
        try PNGCodec.write(buffer, to: path)
    }

    /// Waits for a snapshot whose middle pixel is `colour`.
    static func waitForColour(_ colour: UInt32, _ daemon: FlickdProcess, _ client: ControlClient, _ what: String) throws {
        let path = daemon.directory + "/snapshots/watch.png"
        var seen: UInt32?
        defer { if seen != colour { Issue.record("the last frame showed \(String(seen ?? 0, radix: 16)) in the middle") } }
        try daemon.waitUntil(what, timeout: 20) {
            guard (try? client.call(ControlRequest(cmd: "snapshot", path: "watch.png")))?.ok == true,
                  let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
                  let decoded = try? PNGCodec.decode(bytes, path: path, pixelBudget: 1 << 22) else { return false }
            seen = decoded[400, 240] & 0xFF_FFFF
            return seen == colour
        }
    }

    /// Starts the daemon on `DIR/content.png`, a PNG of `colour` (a pyramid built into
    /// `DIR/cache` when it is over 65536 pixels), and waits until it shows.
    static func start(in dir: String, showing colour: UInt32, width: Int, height: Int) throws -> (FlickdProcess, ControlClient) {
        let content = dir + "/content.png"
        let extra = "[content]\npath = \"\(content)\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil)
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        try png(content, colour, width: width, height: height)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        try waitForColour(colour, daemon, client, "the content of \(String(colour, radix: 16))")
        return (daemon, client)
    }

    @Test func aPNGMovedOverTheContentIsShownWithoutAReload() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = dir + "/content.png"
        // The 800 × 480 panel shows a 400 × 160 image centred, at zoom 1.
        let (daemon, client) = try Self.start(in: dir, showing: 0xFF0000, width: 400, height: 160)

        try Self.png(dir + "/incoming.png", 0x0000FF, width: 400, height: 160)
        #expect(rename(dir + "/incoming.png", content) == 0)
        try Self.waitForColour(0x0000FF, daemon, client, "the blue content moved over it")
        #expect(try client.call(ControlRequest(cmd: "status")).status?.contentError == nil)

        // Garbage moved over it: the picture stays, status says why.
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: dir + "/incoming.png"))
        #expect(rename(dir + "/incoming.png", content) == 0)
        try daemon.waitUntil("status saying why the garbage is not shown", timeout: 20) {
            (try? client.call(ControlRequest(cmd: "status")).status?.contentError)??.contains(content) == true
        }
        try Self.waitForColour(0x0000FF, daemon, client, "the blue content kept")

        // Over the pixel budget: its preview shows at once, its pyramid is built, then it shows.
        try Self.png(dir + "/incoming.png", 0x00FF00, width: 1600, height: 1200)
        #expect(rename(dir + "/incoming.png", content) == 0)
        try Self.waitForColour(0x00FF00, daemon, client, "the green content from its preview, then its pyramid")
        try daemon.waitForLog("building its pyramid in \(dir)/cache (once; \(content) is shown meanwhile)")
        #expect(try client.call(ControlRequest(cmd: "status")).status?.contentError == nil)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aFileReplacedWhileItsPyramidIsBuiltIsBuiltAgainNotRefused() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let content = dir + "/content.png"
        let extra = "[content]\npath = \"\(content)\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        // Noise of 3000 × 3000: its pyramid takes the debug build seconds, long enough to be replaced mid-build.
        try PyramidCacheDaemonTests.noise(content, side: 3000, seed: 3)
        try Self.png(dir + "/incoming.png", 0x00FF00, width: 400, height: 200)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        // Its first progress line: the build is reading the file.
        try daemon.waitForLog("building the pyramid of \(content): rows ", timeout: 60)
        #expect(rename(dir + "/incoming.png", content) == 0)
        let client = try daemon.client()
        try daemon.waitForLog("changed while its pyramid was built: building it again", timeout: 60)
        try Self.waitForColour(0x00FF00, daemon, client, "the new version")
        try daemon.waitUntil("the new version's pyramid shown", timeout: 30) {
            guard let s = try? client.call(ControlRequest(cmd: "status")).status else { return false }
            return s.building == nil && s.contentError == nil
        }
        #expect(!daemon.stderr.contains("flickd error"), "refused for what the old file did: \(daemon.stderr)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func contentChosenWithLoadIsShownAgainAfterARestart() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/allowed", withIntermediateDirectories: true)
        try Self.png(dir + "/configured.png", 0xFF0000)
        try Self.png(dir + "/allowed/chosen.png", 0x0000FF)
        let extra = "[content]\npath = \"\(dir)/configured.png\"\nload_directories = [\"\(dir)/allowed\"]\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil)
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        var client = try daemon.client()
        #expect(try client.call(ControlRequest(cmd: "load", path: dir + "/allowed/chosen.png")).ok == true)
        try Self.waitForColour(0x0000FF, daemon, client, "the loaded content")
        try daemon.waitUntil("the choice saved with the state", timeout: 20) {
            (try? String(contentsOfFile: dir + "/state.json", encoding: .utf8))?.contains("chosen.png") == true
        }
        #expect(try daemon.terminate() == 0)

        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        client = try daemon.client()
        try Self.waitForColour(0x0000FF, daemon, client, "the loaded content after the restart")
        #expect(try client.call(ControlRequest(cmd: "status")).status?.content == dir + "/allowed/chosen.png")
        #expect(try daemon.terminate() == 0)
    }
}
