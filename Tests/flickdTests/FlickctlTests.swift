import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import Foundation
import Glibc
import Testing

/// The real `flickctl` against the real daemon: numbers as a person types them (negative ones
/// without `--`), numbers JSON cannot carry refused before anything is sent, and a clamped
/// request answered with what the daemon applied. The daemon outlives every one of them.
@Suite struct FlickctlTests {
    /// `flickctl ARGS --socket …`: its exit status, standard output and standard error.
    static func flickctl(_ daemon: FlickdProcess, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        // The socket right after the subcommand: after a `--` it would be taken as a value.
        try runBuilt("flickctl", [arguments[0], "--socket", daemon.directory + "/control.sock"] + arguments.dropFirst())
    }

    /// Issue 21, part 6: `flickctl monitor` prints a content touch's whole stream, each line
    /// with the finger's id: here a drag with scrolling off, so every move is the content's.
    @Test func monitorPrintsEveryContentMoveWithItsTouch() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir, scroll: "scroll_enabled = false")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var script = TouchScript(description: Recordings.panel)
        script.idle(0)
        script.drag(from: (400, 400), to: (400, 300), seconds: 0.08, t: 2.5)  // 10 reports of 10 px
        try script.text.write(toFile: dir + "/drag.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/drag.event"])
        try daemon.waitUntilReady()
        // It exits by itself after the nine lines of the touch (down, seven moves, up).
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: FlickdProcess.binary).deletingLastPathComponent().appendingPathComponent("flickctl")
        monitor.arguments = ["monitor", "--socket", dir + "/control.sock", "--count", "9",
                             "--events", "contentTouchDown,contentTouchMove,contentTouchUp,contentTouchCancel"]
        let out = Pipe()
        monitor.standardOutput = out
        let exited = DispatchSemaphore(value: 0)
        monitor.terminationHandler = { _ in exited.signal() }
        try monitor.run()
        let subscriber = try EventCollector(daemon)
        let events = try subscriber.waitFor("contentTouchUp", daemon: daemon)
        let id = try #require(events.last?.contact)
        // Should it miss a line, it is stopped after 20 s rather than hanging the suite.
        Thread.detachNewThread {
            if exited.wait(timeout: .now() + 20) == .timedOut { monitor.terminate() }
        }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        monitor.waitUntilExit()
        #expect(monitor.terminationStatus == 0)
        // Each line: the time, the event, the touch, where in the content; then offset and zoom.
        let lines = text.split(separator: "\n").map { $0.split(separator: "  ", omittingEmptySubsequences: true).dropFirst()
            .map { $0.trimmingCharacters(in: .whitespaces) } }
        let touches = lines.filter { $0.first?.hasPrefix("contentTouch") == true }.map { Array($0.prefix(3)) }
        // Held back until it crossed the 30 px slop (the 4th report, 40 px), then every move.
        #expect(touches == [["contentTouchDown", "touch \(id)", "at (400, 400)"]]
                + (4...10).map { ["contentTouchMove", "touch \(id)", "at (400, \(400 - 10 * $0))"] }
                + [["contentTouchUp", "touch \(id)", "at (400, 300)"]], "\(text)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func numbersAreTakenAsTypedAndTheDaemonSurvivesThem() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()

        // The crash of issue 22: the daemon answers and keeps running. The offset is clamped
        // into the bounds (the test pattern is 3200 wide on the 800 wide panel) and flickctl
        // says where it went; nothing went past the edge, so no bounce is logged: the reload's
        // line, written after, is waited for first.
        let far = try Self.flickctl(daemon, ["set-offset", "--no-animate", "1e19", "0"])
        #expect(far.status == 0 && far.out.contains("applied: offset (2400, 0), zoom 1"), "\(far.out)")
        #expect(try Self.flickctl(daemon, ["reload"]).status == 0)
        try daemon.waitForLog("reloaded ")
        #expect(!daemon.stderr.contains("bounce off"), "\(daemon.stderr)")
        // Negative numbers are values; `--` is still understood.
        for arguments in [["set-offset", "--no-animate", "-100", "0"], ["set-offset", "--", "-100", "-5"],
                          ["zoom-to-rect", "-5", "-5", "10", "10", "--no-animate"]] {
            let run = try Self.flickctl(daemon, arguments)
            #expect(run.status == 0, "\(arguments): \(run.err)")
        }
        // NaN and infinities are refused by name, and nothing is sent.
        for (arguments, message) in [(["set-offset", "nan", "0"], "<x>: 'nan' is not a finite number"),
                                     (["set-offset", "0", "-inf"], "<y>: '-inf' is not a finite number"),
                                     (["set-zoom", "inf"], "<scale>: 'inf' is not a finite number"),
                                     (["scroll-rect-to-visible", "0", "0", "1e999", "1"], "<width>: '1e999' is not a finite number"),
                                     (["set-offset", "1"], "expected 2 numbers (<x> <y>), got 1"),
                                     (["set-offset", "x", "1"], "<x>: 'x' is not a number")] {
            let run = try Self.flickctl(daemon, arguments)
            #expect(run.status != 0 && run.err.contains(message), "\(arguments): \(run.err)")
        }
        // A zoom beyond the limits (1 to 4 by default) is clamped, and flickctl says so.
        let zoom = try Self.flickctl(daemon, ["set-zoom", "--no-animate", "1e300"])
        #expect(zoom.status == 0 && zoom.out.contains("applied: offset (") && zoom.out.hasSuffix("zoom 4\n"), "\(zoom.out)")
        let status = try daemon.client().call(ControlRequest(cmd: "status"))
        #expect(status.status?.zoomScale == 4)
        #expect(try daemon.terminate() == 0)
    }

    /// `flickctl snapshot FILE` works with the default config (issue 22): flickctl opens FILE —
    /// any path its user may write, absolute or relative — and the daemon writes that one frame
    /// into it; nothing else is written anywhere.
    @Test func aSnapshotGoesWhereTheClientSays() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let run = try Self.flickctl(daemon, ["snapshot", dir + "/out/frame.png"])
        #expect(run.status == 0, "\(run.err)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/out/frame.png")))
        #expect(try PNGCodec.decode(bytes, path: "frame.png", pixelBudget: 1 << 22).size == PixelSize(width: 800, height: 480))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out") == ["frame.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == (before + ["out"]).sorted())
        // A file flickctl cannot open is its own error, said before anything is sent.
        let refused = try Self.flickctl(daemon, ["snapshot", dir + "/missing/frame.png"])
        #expect(refused.status == 74 && refused.err.contains("missing/frame.png: cannot create"), "\(refused.err)")
        // A snapshot that fails leaves the file that was there as it was, and nothing beside it.
        try "keep".write(toFile: dir + "/out/keep.png", atomically: true, encoding: .utf8)
        let noDaemon = try runBuilt("flickctl", ["snapshot", "--socket", dir + "/nobody.sock", dir + "/out/keep.png"])
        #expect(noDaemon.status == 69, "\(noDaemon.err)")
        #expect(try String(contentsOfFile: dir + "/out/keep.png", encoding: .utf8) == "keep")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted() == ["frame.png", "keep.png"])
        #expect(try daemon.terminate() == 0)
    }
}
