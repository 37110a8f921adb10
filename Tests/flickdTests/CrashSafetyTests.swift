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

    /// A slot of the state file (`StateSlots`: two lines of JSON padded with spaces), read here
    /// without the daemon's code.
    struct Slot: Decodable {
        var seq: UInt64
        var state: Saved
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
            // The kill may land before a slot is written or after, never inside it: each line
            // that is not blank is a whole slot.
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let slots = lines.compactMap { try? JSONDecoder().decode(Slot.self, from: Data($0.utf8)) }
            #expect(data.count == 8192 && slots.count == lines.count, "round \(round): \(lines)")
            let saved = try #require(slots.max { $0.seq < $1.seq }?.state,
                                     "round \(round): not a complete state: \(String(decoding: data, as: UTF8.self))")
            #expect(sent.contains(saved.offsetY) && saved.zoomScale == 1, "round \(round): \(saved)")
            if saved.offsetY != last { saves += 1 }
            last = saved.offsetY
        }
        #expect(saves > 100, "only \(saves) rounds saw a new state")
    }
}
