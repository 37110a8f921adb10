import FlickControl
import FlickInput
import Foundation
import Glibc
import Testing

/// The daemon's gesture lines at the default `log.gestures = "summary"`: the first gesture in
/// full, the rest counted into one line, which a stop writes rather than loses; a reload to
/// "none" is taken.
@Suite struct GestureJournalDaemonTests {
    static func waitForFlicks(_ count: Int, _ subscriber: EventCollector, _ daemon: FlickdProcess) throws {
        try daemon.waitUntil("\(count) flicks from a subscriber", timeout: 30) {
            subscriber.events.filter { $0.type == "gesture" && $0.gesture == "flick" }.count >= count
        }
    }

    @Test func theFirstGestureIsWrittenInFullAndTheRestAreCounted() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        try FlickdProcess.config(directory: dir).write(toFile: config, atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [1.0, 2.5, 4.0]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        try Self.waitForFlicks(3, subscriber, daemon)
        #expect(try daemon.terminate() == 0)
        let log = daemon.finalLog()
        let flicks = log.split(separator: "\n").filter { $0.contains("flick up ") }
        #expect(flicks.count == 1 && flicks.first?.contains("gesture=flick") == true, "\(log)")
        let tally = try #require(log.split(separator: "\n").first { $0.contains(" gestures in ") }, "\(log)")
        #expect(tally.contains("count_flick=3") && tally.contains("3 flick"), "\(tally)")
        #expect(log.range(of: " gestures in ")!.lowerBound > log.range(of: "stopping")!.lowerBound, "written at the stop")
    }

    @Test func aReloadToNoneWritesTheOpenTallyAndThenNothing() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        try FlickdProcess.config(directory: dir).write(toFile: config, atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [1.0, 2.5, 6.0]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        try Self.waitForFlicks(2, subscriber, daemon)
        try (FlickdProcess.config(directory: dir) + "\n[log]\ngestures = \"none\"\n").write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reload: log.gestures: (default) → \"none\"")
        let atReload = daemon.stderr
        #expect(atReload.contains("count_flick=2"), "the open tally, written at the reload: \(atReload)")
        try Self.waitForFlicks(3, subscriber, daemon)
        #expect(try daemon.terminate() == 0)
        let log = daemon.finalLog()
        #expect(log.components(separatedBy: " gestures in ").count == 2 && log.components(separatedBy: "flick up ").count == 2, "\(log)")
    }
}
