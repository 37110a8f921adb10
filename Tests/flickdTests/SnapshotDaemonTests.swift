import FlickControl
import FlickDisplay
import Foundation
import Testing

/// A snapshot asked for right after a command that jumps shows where the command went. The
/// panel shows the jump only at its next vblank (or after the frame in flight), so the frame on
/// screen when the request comes is still the one before; the snapshot is not asked again until
/// it matches, unlike `ControlTests.snapshot(showing:)`.
@Suite struct SnapshotDaemonTests {
    /// Where a frame differs from the coordinate-coded content at `offset` (every 8th pixel):
    /// nil when nowhere, else the count and the first.
    static func difference(_ frame: PixelBuffer, offset: (x: Int, y: Int)) -> String? {
        var wrong = 0
        var first: String?
        for y in stride(from: 0, to: frame.height, by: 8) {
            for x in stride(from: 0, to: frame.width, by: 8) {
                let shown = ControlTests.contentPoint(frame[x, y])
                guard shown != (x + offset.x, y + offset.y) else { continue }
                wrong += 1
                if first == nil { first = "(\(x), \(y)) shows content \(shown), not \((x + offset.x, y + offset.y))" }
            }
        }
        return first.map { "\(wrong) sampled pixels differ, first \($0)" }
    }

    static func decode(_ path: String) throws -> PixelBuffer {
        try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
    }

    @Test func aSnapshotRightAfterAJumpShowsTheNewView() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ControlTests.writePattern(to: dir + "/pattern.png")
        // No indicators: every pixel of the frame is the content's.
        try FlickdProcess.config(directory: dir, extra: "[indicators]\nenabled = false\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/pattern.png"])
        try daemon.waitUntilReady()
        let client = try daemon.client()

        // Each jump's frame is committed for the next vblank; the snapshot comes before it.
        for (n, offset) in [(x: 120, y: 340), (x: 700, y: 500), (x: 333, y: 17)].enumerated() {
            let jump = ControlRequest(cmd: "set-offset", x: Double(offset.x), y: Double(offset.y), animated: false)
            #expect(try client.call(jump).ok == true)
            #expect(try client.call(ControlRequest(cmd: "snapshot", path: "jump-\(n).png")).ok == true)
            let wrong = Self.difference(try Self.decode(dir + "/snapshots/jump-\(n).png"), offset: offset)
            #expect(wrong == nil, "jump \(n) to \(offset): \(wrong ?? "")")
        }

        // Two jumps in a row: the second waits for the first's frame to be presented, so the
        // frame the panel will show is not even committed when the snapshot is asked for.
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 10, y: 20, animated: false)).ok == true)
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 780, y: 600, animated: false)).ok == true)
        #expect(try client.call(ControlRequest(cmd: "snapshot", path: "twice.png")).ok == true)
        let twice = Self.difference(try Self.decode(dir + "/snapshots/twice.png"), offset: (780, 600))
        #expect(twice == nil, "\(twice ?? "")")

        // As an integrator types it: flickctl, one command after the other.
        let moved = try FlickctlTests.flickctl(daemon, ["set-offset", "50", "60", "--no-animate"])
        #expect(moved.status == 0, "\(moved.err)")
        let shot = try FlickctlTests.flickctl(daemon, ["snapshot", dir + "/flickctl.png"])
        #expect(shot.status == 0, "\(shot.err)")
        let typed = Self.difference(try Self.decode(dir + "/flickctl.png"), offset: (50, 60))
        #expect(typed == nil, "\(typed ?? "")")

        // Once presented, the snapshot is the panel's own frame, the same picture.
        let settled = try ControlTests.snapshot(daemon, client, "settled.png", showing: (50, 60))
        #expect(Self.difference(settled, offset: (50, 60)) == nil)
        #expect(try daemon.terminate() == 0)
    }
}
