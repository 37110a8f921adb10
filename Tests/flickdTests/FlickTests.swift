import FlickControl
import Foundation
import Glibc
import Testing

/// The real daemon replaying a recorded flick on the headless display: what the journal (here
/// stderr) and a subscriber hear, and that hostile clients cannot stop it.
@Suite(.serialized) struct FlickTests {
    /// The events without the many `didScroll`s, gestures named `gesture:NAME`.
    static func skeleton(_ events: [ControlMessage]) -> [String] {
        events.compactMap { e in
            switch e.type {
            // `state` lines are checked on their own (`states`, EventStreamTests).
            case "didScroll"?, "state"?: nil
            case "gesture"?: "gesture:" + (e.gesture ?? "?")
            default: e.type
            }
        }
    }

    @Test func aFlickIsLoggedAndSubscribersGetTheDelegateSequence() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [1.5]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        let events = try subscriber.waitFor("didEndDecelerating", daemon: daemon)

        #expect(Self.skeleton(events) == ["willBeginDragging", "willEndDragging", "didEndDragging", "willBeginDecelerating",
                                          "gesture:flick", "didEndDecelerating"])
        // A state event with each change of the flags (protocol 2).
        #expect(events.filter { $0.type == "state" }.map { $0.scrollState.map { "\($0.flags)" } ?? "?" }
                == ["tracking", "tracking+dragging+scrolling", "decelerating+scrolling", "at rest"])
        #expect(events.first { $0.type == "didEndDragging" }?.willDecelerate == true)
        let scrolls = events.filter { $0.type == "didScroll" }
        #expect(scrolls.count > 20)
        // The offset only grows (a flick up moves the content up) and ends where the flick said.
        let ys = scrolls.compactMap { $0.offset?[1] }
        #expect(zip(ys, ys.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 })
        let flick = try #require(events.first { $0.gesture == "flick" })
        // The offset's velocity (protocol 2): positive, the offset grows.
        let vy = try #require(flick.vy)
        #expect(vy > 1200 && vy < 1800)
        let rest = try #require(events.last?.offset?[1])
        #expect(abs(rest - (flick.targetOffset?[1] ?? .nan)) < 1)

        // One log line for the gesture, with the numbers a person reads.
        try daemon.waitForLog("flick up ")
        let line = try #require(daemon.stderr.split(separator: "\n").first { $0.contains("flick up ") })
        #expect(line.contains(" px/s → ") && line.contains(" px to rest at (") && line.contains("gesture=flick") && line.contains("velocity_y="))
        #expect(line.contains("rest_y=") && line.contains("distance="), "\(line)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func garbageClientsAndAStalledSubscriberDoNotStopAFlick() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [3]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)

        // A subscriber that never reads, with the smallest receive buffer: its queue must fill
        // and get it dropped, not block the loop.
        let stalled = try daemon.client()
        var small: Int32 = 1
        setsockopt(stalled.fileDescriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        try stalled.send(ControlRequest(cmd: "subscribe"))

        // 100 clients, each sending one kind of garbage. Each is answered with an error or hung
        // up on (a refused connection counts as hung up on); the half-written line waits.
        var rng = SystemRandomNumberGenerator()
        var dealtWith = 0, expected = 0
        for i in 0..<100 {
            guard let client = try? daemon.client(timeout: 5) else { dealtWith += 1; expected += 1; continue }
            let garbage: [UInt8]
            switch i % 5 {
            case 0: garbage = (0..<512).map { _ in UInt8.random(in: 0...255, using: &rng) } + [0x0A]
            case 1: garbage = Array("{\"cmd\": \"set-offset\", \"x\": ".utf8)                       // half-written, never ended
            case 2: garbage = Array(repeating: UInt8(ascii: "a"), count: 70_000) + [0x0A]           // over 64 KiB
            case 3: garbage = Array("{\"cmd\": \"fly\"}\n[1, 2]\nnull\n\"x\"\n".utf8)
            default: garbage = Array("{\"cmd\": \"set-zoom\", \"scale\": \"big\"}\n".utf8)
            }
            try? client.write(garbage)
            guard i % 5 != 1 else { continue }
            expected += 1
            do {
                let reply = try client.receive()
                if reply == nil || reply?.ok == false { dealtWith += 1 }
            } catch .io(let reason, _) where reason.contains("reset") {
                dealtWith += 1
            } catch {}
        }
        #expect(expected == 80 && dealtWith == expected)

        let events = try subscriber.waitFor("didEndDecelerating", daemon: daemon, timeout: 30)
        #expect(events.contains { $0.gesture == "flick" })
        // The loop still answers a well-formed client.
        let status = try daemon.client().call(ControlRequest(cmd: "status"))
        #expect(status.ok == true && (status.status?.offset[1] ?? 0) > 300)
        try daemon.waitForLog("flick up ")
        #expect(try daemon.terminate() == 0)
    }
}
