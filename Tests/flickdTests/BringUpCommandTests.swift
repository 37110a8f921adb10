import Foundation
import Testing

/// `flickd events` and `flickd record` as a user runs them: a recording's session on standard
/// output, and each failure once on standard error with its sysexits status.
@Suite struct BringUpCommandTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/flick-demo.event").path

    @Test func eventsOfTheDemoRecording() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[input]\nrotation = 180\n".write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let (status, out, err) = try runBuilt("flickd", ["events", "--recording", Self.demo, "--config", dir + "/flickd.toml",
                                                         "--count", "2"])
        #expect(status == 0 && err.isEmpty)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[1] == "screen 800x480 px, touch rotation 180, calibration none")
        #expect(lines[2] == "    0.000 s  #1 down  slot 0  dev (400, 240)  px (399.0, 239.0)")
        #expect(lines[3] == "    0.090 s  #1 up  px (399.0, 239.0)")
        #expect(lines[4] == "    0.090 s  gesture: tap at (399, 239)")
        #expect(lines[5] == "rate over the run: no report intervals measured (2 reports)")
    }

    @Test func failuresSayWhatAndExitWithTheirStatus() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "".write(toFile: dir + "/empty.toml", atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["events", "/nonexistent/event9"], 69, "flickd: /nonexistent/event9: cannot open: No such file or directory\n"),
            (["record", "/nonexistent/event9", dir + "/x.event"], 69,
             "flickd: /nonexistent/event9: cannot open: No such file or directory\n"),
            (["events", "--recording", dir + "/missing.event"], 66, "flickd: \(dir)/missing.event: no such file\n"),
            (["events", "--recording", Self.demo, "--duration", "0"], 64,
             "flickd: --duration: expected a number of seconds above 0, got '0'\n"),
        ]
        for (arguments, expected, message) in cases {
            let (status, _, err) = try runBuilt("flickd", arguments + ["--config", dir + "/empty.toml"])
            #expect(status == expected, "\(arguments)")
            #expect(err == message, "\(arguments)")
        }
        for arguments in [["record"], ["record", "a", "b", "c"]] {
            let (status, _, err) = try runBuilt("flickd", arguments)
            #expect(status == 64 && err.contains("Usage: flickd record"), "\(arguments)")
        }
    }
}
