import FlickControl
import FlickInput
import Foundation
import Glibc
import Testing

/// Issue 35, part 4: a fleet sees its kiosks through a Prometheus text file (node_exporter's
/// textfile collector), written by the real daemon as touches, gestures, phantoms, frames and
/// reloads happen.
@Suite struct MetricsDaemonTests {
    /// The value of one sample line (`name{labels} value`), if the file has it.
    static func value(_ text: String, _ sample: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.dropFirst(sample.count + 1))
        }
        return nil
    }

    @Test func theDaemonCountsTouchesGesturesPhantomsFramesAndReloads() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prom = dir + "/textfile/flickd.prom"
        try FileManager.default.createDirectory(atPath: dir + "/textfile", withIntermediateDirectories: true)
        let config = FlickdProcess.config(directory: dir, extra: "[metrics]\ntextfile = \"\(prom)\"\ninterval_s = 1\n")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var script = TouchScript(description: Recordings.panel)
        script.idle(0)
        script.tap(at: 200, 200, t: 1.0)
        // A contact that never says where it is: a phantom, never a touch.
        script.downWithoutPosition(0, 1.6)
        script.up(0, 1.65)
        _ = script.drag(from: (400, 400), to: (400, 160), seconds: 0.16, t: 2.0)
        try script.text.write(toFile: dir + "/touches.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/touches.event"])
        try daemon.waitUntilReady()

        var text = ""
        try daemon.waitUntil("the flick counted in \(prom)", timeout: 20) {
            text = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
            return Self.value(text, "flickd_gestures_total{kind=\"flick\"}") == 1
        }
        #expect(Self.value(text, "flickd_touches_total") == 2)
        #expect(Self.value(text, "flickd_gestures_total{kind=\"tap\"}") == 1)
        #expect(Self.value(text, "flickd_phantom_touches_total") == 1)
        #expect((Self.value(text, "flickd_frames_presented_total") ?? 0) > 10)
        // Whether a frame is late depends on how busy the machine is (the headless panel keeps
        // wall-clock vblanks here): the lateness itself is tested on a virtual clock
        // (FramePacingTests); here it is counted, and never more than what was presented.
        let late = try #require(Self.value(text, "flickd_frames_late_total"))
        #expect(late >= 0 && late <= (Self.value(text, "flickd_frames_presented_total") ?? 0))
        #expect(Self.value(text, "flickd_display_connected") == 1)
        #expect(Self.value(text, "flickd_display_power_state{state=\"on\"}") == 1)
        #expect(Self.value(text, "flickd_content_info{content=\"placeholder (test-pattern)\"}") == 1, "\(text)")
        let start = try #require(Self.value(text, "flickd_start_time_seconds"))
        #expect(abs(start - Date().timeIntervalSince1970) < 120)

        // A bad config is refused and counted; a good one is applied and counted.
        try "[scroll]\ndeceleration_rate = 7\n".write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reload refused")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitUntil("both reloads counted", timeout: 20) {
            text = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
            return Self.value(text, "flickd_reloads_total{result=\"accepted\"}") == 1
                && Self.value(text, "flickd_reloads_total{result=\"refused\"}") == 1
        }
        // Replaced whole: no temporary file is left for the collector to read, and node_exporter
        // (another user) may read it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/textfile") == ["flickd.prom"])
        var info = stat()
        #expect(stat(prom, &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aFileThatCannotBeWrittenIsSaidOnceAndTheDaemonRunsOn() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir, extra: "[metrics]\ntextfile = \"\(dir)/missing/flickd.prom\"\ninterval_s = 1\n"
                                  + "[log]\ngestures = \"all\"\n") // the second flick's own line says it came
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [1.0, 2.5]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        try daemon.waitForLog("metrics.textfile (said once")
        try daemon.waitForLog("flick up ")
        try daemon.waitUntil("the second flick", timeout: 20) {
            daemon.stderr.components(separatedBy: "flick up ").count == 3
        }
        #expect(daemon.stderr.components(separatedBy: "metrics.textfile (said once").count == 2)
        #expect(try daemon.terminate() == 0)
    }
    /// A content file replaced by a broken one is counted as a content error, and shown again
    /// once it is whole; the file also says which daemon and protocol wrote it.
    @Test func aBrokenContentFileIsAContentErrorUntilItIsWholeAgain() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prom = dir + "/flickd.prom", image = dir + "/map.png"
        try ControlTests.writePattern(to: image, width: 400, height: 300)
        try FlickdProcess.config(directory: dir, extra: "[content]\npath = \"\(image)\"\nwatch_settle_ms = 50\n"
                                 + "[metrics]\ntextfile = \"\(prom)\"\ninterval_s = 1\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        var text = ""
        func wait(_ what: String, _ sample: String, _ value: Double) throws {
            try daemon.waitUntil("\(what) in \(prom)", timeout: 20) {
                text = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
                return Self.value(text, sample) == value
            }
        }
        try wait("the image shown", "flickd_content_info{content=\"\(image)\"}", 1)
        #expect(Self.value(text, "flickd_content_error") == 0, "\(text)")
        #expect(Self.value(text, "flickd_build_info{protocol=\"\(controlProtocolVersion)\",version=\"\(flickVersion)\"}") == 1,
                "\(text)")
        // Nothing moves on screen meanwhile: the file is written for the error alone.
        try "not an image".write(toFile: image, atomically: true, encoding: .utf8)
        try wait("the content error", "flickd_content_error", 1)
        try ControlTests.writePattern(to: image, width: 400, height: 300)
        try wait("the content shown again", "flickd_content_error", 0)
        #expect(try daemon.terminate() == 0)
    }

    @Test func thePowerStateFollowsThePanel() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let prom = dir + "/flickd.prom"
        try FlickdProcess.config(directory: dir, extra: "[metrics]\ntextfile = \"\(prom)\"\ninterval_s = 1\n[power]\noff_after_s = 1\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        var text = ""
        try daemon.waitUntil("the panel off in \(prom)", timeout: 20) {
            text = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
            return Self.value(text, "flickd_display_power_state{state=\"off\"}") == 1
        }
        #expect(Self.value(text, "flickd_display_power_state{state=\"on\"}") == 0)
        #expect(Self.value(text, "flickd_display_connected") == 1)
        #expect(try daemon.terminate() == 0)
    }
}
