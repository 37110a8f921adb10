import FlickControl
import Foundation
import Glibc
import Testing

/// Power cut at any moment: the daemon is killed with SIGKILL 200 times while it saves its
/// state as fast as it can (the view restored, with no delay and no interval between saves). The state file is always a complete old or new version, and each
/// restart reads it back without a warning.
@Suite struct CrashSafetyTests {
    struct Saved: Decodable {
        var content: String
        var offsetX: Double
        var offsetY: Double
        var zoomScale: Double
    }

    @Test func sigkillDuringSavesNeverLeavesAPartialStateFile() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).replacingOccurrences(of: "save_delay_ms = 50", with: "save_delay_ms = 0\nsave_interval_s = 0\nrestore = \"view\"")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var rng = SystemRandomNumberGenerator()
        var sent: Set<Double> = [0]
        var y = 0.0
        var saves = 0, last: Double?
        for round in 0..<200 {
            let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
            try daemon.waitUntilReady()
            #expect(!daemon.stderr.contains("ignoring"), "round \(round): \(daemon.stderr)")
            let client = try daemon.client()
            // Jumps, each saved at once; the kill lands somewhere among them.
            let killAt = Date().addingTimeInterval(Double.random(in: 0.005...0.06, using: &rng))
            while Date() < killAt {
                y = (y + 7).truncatingRemainder(dividingBy: 1400)
                sent.insert(y)
                _ = try? client.call(ControlRequest(cmd: "set-offset", x: 0, y: y, animated: false))
            }
            kill(daemon.process.processIdentifier, SIGKILL)
            daemon.process.waitUntilExit()

            guard let data = FileManager.default.contents(atPath: dir + "/state.json") else { continue }
            let saved = try #require(try? JSONDecoder().decode(Saved.self, from: data),
                                     "round \(round): not a complete state: \(String(decoding: data, as: UTF8.self))")
            #expect(sent.contains(saved.offsetY) && saved.zoomScale == 1, "round \(round): \(saved)")
            if saved.offsetY != last { saves += 1 }
            last = saved.offsetY
        }
        #expect(saves > 100, "only \(saves) rounds saw a new state")
    }
}
