import FlickControl
import Foundation
import Testing

/// What the running daemon writes of its state: with `state.restore = "home"` (the default) a
/// restart does not need the view, so gestures and a stop write no state file.
@Suite struct StateWritesTests {
    @Test func atHomeGesturesAndAStopWriteNoState() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).replacingOccurrences(of: "save_delay_ms = 50", with: "save_delay_ms = 0")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        for y in stride(from: 20.0, through: 400, by: 20) {
            #expect(try client.call(ControlRequest(cmd: "set-offset", x: 0, y: y, animated: false)).ok == true)
        }
        #expect(try client.call(ControlRequest(cmd: "set-zoom", scale: 2, animated: false)).ok == true)
        #expect(try client.call(ControlRequest(cmd: "status")).status?.offset != [0, 0])
        #expect(try daemon.terminate() == 0)
        #expect(!FileManager.default.fileExists(atPath: dir + "/state.json"))
    }
}
