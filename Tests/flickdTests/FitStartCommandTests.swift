import FlickControl
import FlickDisplay
import FlickInput
import Foundation
import Glibc
import Testing

/// A 4000 × 4000 map with `zoom.start_scale = "fit"` and no `minimum_scale`, through the real
/// binary: `check-config` says the zoom it starts at for the panel, and `flickd replay --json`
/// starts there and double-taps in from it by a step and back.
@Suite struct FitStartCommandTests {
    /// A folder holding a 4000 × 4000 PNG and a config showing it fitted on an 800 × 480 panel.
    static func mapFolder() throws -> (dir: String, config: String) {
        let dir = try FlickdProcess.makeDirectory()
        let image = try #require(PixelBuffer(width: 4000, height: 4000))
        image.fill(0xFF30_6090)
        try PNGCodec.write(image, to: dir + "/map.png")
        let config = "[display]\nheadless_size = \"800x480\"\n[content]\npath = \"\(dir)/map.png\"\n[zoom]\nstart_scale = \"fit\"\n"
        try config.write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        return (dir, config)
    }

    @Test func checkConfigSaysTheFitItStartsAtAndTheMinimumThatFollows() throws {
        let (dir, _) = try Self.mapFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The caller as the service user: the folder is the caller's whoever runs the tests.
        let me = try #require(getpwuid(geteuid())).pointee.pw_name.map { String(cString: $0) } ?? "root"
        let run = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", me])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("\n  zoom: starts at 0.12 (start_scale = \"fit\"), minimum 0.12 (the start's: minimum_scale = \"auto\"), "
                                 + "maximum 4, for 4000x4000 content on a 800x480 view (display.headless_size; "), "\(run.out)")
        // Another panel: fit is 800 / 4000 there.
        let wide = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", me, "--panel", "1280x800"])
        #expect(wide.status == 0 && wide.out.contains("zoom: starts at 0.2 (start_scale = \"fit\"), minimum 0.2 ")
                && wide.out.contains("on a 1280x800 view (--panel)"), "\(wide.out)")
        let bad = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", me, "--panel", "wide"])
        #expect(bad.status == 64 && bad.err.contains("--panel"), "\(bad.err)")
    }

    @Test func theDaemonSaysTheZoomItStartsAtInTheJournal() throws {
        let (dir, _) = try Self.mapFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir, extra: "[content]\npath = \"\(dir)/map.png\"\n[zoom]\nstart_scale = \"fit\"\n",
                                 placeholder: nil).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        #expect(daemon.stderr.contains("zoom: starts at 0.12 (start_scale = \"fit\"), minimum 0.12 (the start's: minimum_scale = \"auto\"), "
                                       + "maximum 4, for 4000x4000 content on a 800x480 view"), "\(daemon.stderr)")
        let status = try #require(try daemon.client().call(ControlRequest(cmd: "status")).status)
        #expect(status.zoomScale == 0.12 && status.offset == [-160, 0])
        #expect(try daemon.terminate() == 0)
    }

    @Test func aReplayStartsAtFitAndADoubleTapStepsInAndBack() throws {
        let (dir, config) = try Self.mapFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        s.tap(at: 400, 240, t: 0.5)
        s.tap(at: 400, 240, t: 0.7)
        s.tap(at: 400, 240, t: 2)
        s.tap(at: 400, 240, t: 2.2)
        s.idle(3.5)
        let lines = try ReplayJSON.run(s.text, config: config, frames: true)
        let frames: [(t: Double, offset: [Double], zoom: Double)] = lines.compactMap { line in
            guard line["type"] as? String == "frame", let t = line["t"] as? Double, let offset = line["offset"] as? [Double],
                  let zoom = line["zoomScale"] as? Double else { return nil }
            return (t, offset, zoom)
        }
        // 480 / 4000: the map whole, a 480 px square with 160 px either side.
        let first = try #require(frames.first)
        #expect(first.zoom == 0.12 && first.offset == [-160, 0], "\(first)")
        let stepped = frames.filter { $0.t < 2 }
        #expect(stepped.allSatisfy { $0.zoom <= 4 * 0.12 + 1e-9 }, "\(stepped.map(\.zoom).max() ?? 0)")
        #expect(abs((stepped.last?.zoom ?? 0) - 0.24) < 1e-9, "\(stepped.last.map { "\($0)" } ?? "none")")
        let last = try #require(frames.last)
        #expect(last.zoom == 0.12 && last.offset == [-160, 0], "\(last)")
    }
}
