import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// A document whose tiles are slow to draw is not a hung helper: an SVG with a
/// filter over the whole page costs librsvg the whole filter for every tile (about 0.2 s here),
/// so the last of the first screen's twelve requests waits over two seconds in the helper's
/// queue, past `content.provider_timeout_ms`. The helper answers one every 0.2 s, which is
/// progress: it is not killed, and the page shows whole.
@Suite struct SlowDocumentDaemonTests {
    /// 1600×1200 of 4000 translucent circles under one Gaussian blur: a soft background of the
    /// kind a designer exports, deterministic.
    static func blurredPage() -> String {
        var state: UInt32 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8) % bound
        }
        var circles = ""
        for _ in 0..<4000 {
            let colour = String(format: "#%02x%02x%02x", next(256), next(256), next(256))
            circles += "<circle cx=\"\(next(1600))\" cy=\"\(next(1200))\" r=\"\(10 + next(70))\" fill=\"\(colour)\" fill-opacity=\"0.6\"/>"
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200" viewBox="0 0 1600 1200">
            <defs><filter id="soft" x="0" y="0" width="1" height="1"><feGaussianBlur stdDeviation="20"/></filter></defs>
            <rect width="1600" height="1200" fill="#f0ead8"/>
            <g filter="url(#soft)">\(circles)</g>
            </svg>
            """
    }

    @Test func anSVGSlowToTileShowsWholeWithNoRestart() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.blurredPage().write(toFile: dir + "/plan.svg", atomically: true, encoding: .utf8)
        // The default time-out, said here so the test shows what it is about.
        let extra = "[content]\npath = \"\(dir)/plan.svg\"\nprovider_timeout_ms = 1000\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: "black")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        defer { _ = try? daemon.terminate() }
        try daemon.waitUntilReady()
        let client = try daemon.client()
        var last: ControlStatus?
        try daemon.waitUntil("the page drawn whole", timeout: 60) {
            guard let s = try? client.call(ControlRequest(cmd: "status")).status else { return false }
            last = s
            guard s.document?.state != "failed", let p = s.provider, let tiles = s.tiles, let holes = tiles.framesWithHoles else { return false }
            return s.document?.state == "showing" && (p.drawn ?? 0) >= 12 && p.pending == 0 && tiles.frames > holes
        }
        let s = try #require(last)
        #expect(s.document?.restarts == 0, "\(String(describing: s.document))")
        #expect(s.provider?.timeouts == 0, "\(String(describing: s.provider))")
        // Slow, as it should be to mean anything: the queue's last tile waited past the time-out.
        #expect((s.provider?.presentedP99Ms ?? 0) > 1000, "\(String(describing: s.provider))")
        #expect(!daemon.stderr.contains("killing it"), "\(daemon.stderr)")
        #expect(try daemon.terminate() == 0)
    }
}
