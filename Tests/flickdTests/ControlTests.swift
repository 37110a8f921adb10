import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// Apps steering the real daemon over its control socket, checked on the pixels it shows.
@Suite struct ControlTests {
    /// Content whose every pixel says where it is: red and green are x and y modulo 256, blue
    /// holds their high bits, so a snapshot tells which content point each screen pixel shows.
    static func writePattern(to path: String, width: Int = 1600, height: Int = 1200) throws {
        let buffer = try #require(PixelBuffer(width: width, height: height))
        for y in 0..<height {
            for x in 0..<width { buffer[x, y] = pixel(x, y) }
        }
        try PNGCodec.write(buffer, to: path)
    }

    static func pixel(_ x: Int, _ y: Int) -> UInt32 {
        0xFF00_0000 | UInt32(x & 0xFF) << 16 | UInt32(y & 0xFF) << 8 | UInt32((x >> 8) | (y >> 8) << 4)
    }

    /// The content point a snapshot pixel shows.
    static func contentPoint(_ word: UInt32) -> (x: Int, y: Int) {
        let r = Int(word >> 16 & 0xFF), g = Int(word >> 8 & 0xFF), b = Int(word & 0xFF)
        return ((b & 0xF) << 8 | r, (b >> 4) << 8 | g)
    }

    /// The frame on screen once its top-left pixel shows `corner`, asked for again until it does
    /// (an animation still under way, tiles still arriving).
    static func snapshot(_ daemon: FlickdProcess, _ client: ControlClient, _ name: String,
                         showing corner: (x: Int, y: Int), within tolerance: Int = 0) throws -> PixelBuffer {
        func near(_ p: (x: Int, y: Int)) -> Bool { abs(p.x - corner.x) <= tolerance && abs(p.y - corner.y) <= tolerance }
        let path = daemon.directory + "/snapshots/" + name
        var frame: PixelBuffer?
        var lastSeen = "nothing"
        defer { if !near(contentPoint(frame?[0, 0] ?? 0)) { Issue.record("the last frame showed \(lastSeen)") } }
        try daemon.waitUntil("a frame showing content \(corner) at the top-left", timeout: 10) {
            guard (try? client.call(ControlRequest(cmd: "snapshot", path: name)))?.ok == true,
                  let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
                  let decoded = try? PNGCodec.decode(bytes, path: path, pixelBudget: 1 << 24) else { return false }
            frame = decoded
            let shown = contentPoint(decoded[0, 0])
            lastSeen = "\(shown)"
            return near(shown)
        }
        return try #require(frame)
    }

    @Test func requestsMoveTheViewAndSubscribersHearTheDelegateMessages() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/allowed", withIntermediateDirectories: true)
        try Self.writePattern(to: dir + "/pattern.png")
        try Self.writePattern(to: dir + "/allowed/small.png", width: 1000, height: 900)
        // The group: `daemon` (gid 1), present on every Debian system.
        try FlickdProcess.config(directory: dir, extra: "[content]\nload_directories = [\"\(dir)/allowed\"]\n",
                                 control: "group = \"daemon\"\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/pattern.png"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        let subscriber = try EventCollector(daemon)
        // Only the owner and the configured group may steer the panel.
        var info = stat()
        #expect(stat(dir + "/control.sock", &info) == 0 && info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == getgrnam("daemon")?.pointee.gr_gid)

        // A jump: one didScroll, and the frame shows content (120, 340) at its top-left.
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 120, y: 340, animated: false)).ok == true)
        var frame = try Self.snapshot(daemon, client, "jump.png", showing: (120, 340))
        #expect(Self.contentPoint(frame[799, 479]) == (919, 819))

        // Animated: didScroll per frame, then didEndScrollingAnimation, at the target.
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 300, y: 500, animated: true)).ok == true)
        var events = try subscriber.waitFor("didEndScrollingAnimation", daemon: daemon)
        #expect(FlickTests.skeleton(events) == ["didEndScrollingAnimation"])
        #expect(events.filter { $0.type == "didScroll" }.count > 5)
        #expect(events.last?.offset == [300, 500])
        frame = try Self.snapshot(daemon, client, "animated.png", showing: (300, 500))
        #expect(Self.contentPoint(frame[10, 20]) == (310, 520))

        // Scroll a rectangle into view, then zoom to a rectangle: the frame shows it, scaled.
        #expect(try client.call(ControlRequest(cmd: "scroll-rect-to-visible", x: 1000, y: 900, width: 100, height: 100,
                                               animated: false)).ok == true)
        #expect(try client.call(ControlRequest(cmd: "status")).status?.offset == [300, 520])
        #expect(try client.call(ControlRequest(cmd: "zoom-to-rect", x: 400, y: 300, width: 400, height: 240,
                                               animated: false)).ok == true)
        // Zoom 2, bilinear: screen (x, y) shows content ((x + 800) / 2, (y + 600) / 2), ±1.
        frame = try Self.snapshot(daemon, client, "zoomed.png", showing: (400, 300), within: 1)
        let status = try #require(try client.call(ControlRequest(cmd: "status")).status)
        #expect(status.zoomScale == 2 && status.offset == [800, 600])
        // The protocol a client checks (docs/protocol.md, "Versions").
        #expect(status.protocolVersion == controlProtocolVersion && status.version == flickVersion)
        #expect(status.zoomBouncing == false)
        let shown = Self.contentPoint(frame[401, 241])
        #expect(abs(shown.x - 600) <= 1 && abs(shown.y - 420) <= 1)

        // Scroll to top: animated, ends with didScrollToTop.
        #expect(try client.call(ControlRequest(cmd: "scroll-to-top")).ok == true)
        events = try subscriber.waitFor("didScrollToTop", daemon: daemon)
        #expect(events.last?.offset?[1] == 0)

        // Load: only from the allowed folders.
        let refused = try client.call(ControlRequest(cmd: "load", path: dir + "/pattern.png"))
        #expect(refused.ok == false && refused.error?.contains("outside the allowed folders") == true)
        let escape = try client.call(ControlRequest(cmd: "load", path: dir + "/allowed/../pattern.png"))
        #expect(escape.ok == false)
        #expect(try client.call(ControlRequest(cmd: "load", path: dir + "/allowed/small.png")).ok == true)
        let loaded = try #require(try client.call(ControlRequest(cmd: "status")).status)
        #expect(loaded.content == dir + "/allowed/small.png" && loaded.contentSize == [1000, 900] && loaded.offset == [0, 0])
        try daemon.waitForLog("content loaded: \(dir)/allowed/small.png")
        #expect(try daemon.terminate() == 0)
    }
}
