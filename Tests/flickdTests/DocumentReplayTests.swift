import FlickControl
import FlickDisplay
import FlickDocumentSamples
import Foundation
import Testing

/// `flickd replay` over a PDF starts `flickd-render` as the daemon does: one recording and one
/// document reproduce a menu kiosk — the same gestures, the same rest, the same frame on screen.
@Suite(.serialized) struct DocumentReplayTests {
    static let a4 = (width: 595.28, height: 841.89)
    /// The event types compared: the delegate's messages and the gestures, not the frames.
    static let compared: Set<String> = ["willBeginDragging", "willEndDragging", "didEndDragging", "willBeginDecelerating",
                                        "didEndDecelerating", "gesture", "tap", "doubleTap", "longPress",
                                        "didScrollToTop", "didEndScrollingAnimation"]

    /// A folder with `menu.pdf` (three A4 pages, laid out vertically), `flick.event` (a flick up
    /// 3 s in, once the document shows) and the config both read.
    private func folder() throws -> String {
        let dir = try FlickdProcess.makeDirectory()
        try #require(SamplePDF.write(to: dir + "/menu.pdf", pages: Array(repeating: Self.a4, count: 3)))
        try Recordings.flicks(at: [3]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\n", placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        return dir
    }

    private func decode(_ path: String) throws -> PixelBuffer {
        try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
    }

    @Test func aReplayOverAPDFHasTheDaemonsGesturesRestAndFrame() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let replay = try runBuilt("flickd", ["replay", dir + "/flick.event", "--config", dir + "/flickd.toml",
                                             "--content", dir + "/menu.pdf", "--display", "headless:800x480", "--json",
                                             "--snapshot-dir", dir + "/replay"])
        #expect(replay.status == 0, "\(replay.err)")
        let lines = replay.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let replayed = lines.compactMap { line -> String? in
            guard let type = line["type"] as? String, Self.compared.contains(type) else { return nil }
            return type == "gesture" ? "gesture:\(line["gesture"] as? String ?? "?")" : type
        }
        let replayRest = try #require(lines.last { $0["type"] as? String == "didEndDecelerating" }?["offset"] as? [Double])
        let frames = try FileManager.default.contentsOfDirectory(atPath: dir + "/replay").filter { $0.hasSuffix(".png") }.sorted()
        let lastFrame = try decode(dir + "/replay/" + (try #require(frames.last)))
        var shades = Set<UInt32>()
        for y in stride(from: 0, to: lastFrame.height, by: 2) { for x in stride(from: 0, to: lastFrame.width, by: 2) { shades.insert(lastFrame[x, y]) } }
        #expect(shades.count > 20, "the replay's last frame shows a page's antialiased text, not one colour")

        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/menu.pdf",
                                                                   "--input", "evemu:\(dir)/flick.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        let events = try subscriber.waitFor("didEndDecelerating", daemon: daemon)
        let live = events.compactMap { event -> String? in
            guard let type = event.type, Self.compared.contains(type) else { return nil }
            return type == "gesture" ? "gesture:\(event.gesture ?? "?")" : type
        }
        #expect(live == replayed)
        #expect(replayed.contains("gesture:flick"), "\(replayed)")
        let rest = try #require(events.last?.offset)
        #expect(rest.count == 2 && zip(rest, replayRest).allSatisfy { abs($0 - $1) < 1e-6 }, "daemon \(rest), replay \(replayRest)")
        #expect(replayRest[1] > 300, "the flick moved the menu: \(replayRest)")

        // The daemon draws what has arrived and asks for the rest: once the helper's tiles are
        // in, its frame is the replay's last, pixel for pixel.
        let client = try daemon.client()
        var differing = -1
        try daemon.waitUntil("the daemon's frame equal to the replay's last", timeout: 20) {
            guard (try? client.call(ControlRequest(cmd: "snapshot", path: "rest.png")).ok) == true,
                  let frame = try? decode(daemon.directory + "/snapshots/rest.png"),
                  frame.width == lastFrame.width, frame.height == lastFrame.height else { return false }
            differing = 0
            for y in 0..<frame.height { for x in 0..<frame.width where frame[x, y] != lastFrame[x, y] { differing += 1 } }
            return differing == 0
        }
        #expect(differing == 0)
        #expect(try daemon.terminate() == 0)
    }

    @Test func aDocumentTheHelperRefusesFailsTheReplayWithItsWords() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SamplePDF.encrypted().withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: dir + "/locked.pdf")) }
        let replay = try runBuilt("flickd", ["replay", dir + "/flick.event", "--config", dir + "/flickd.toml",
                                             "--content", dir + "/locked.pdf", "--display", "headless:800x480"])
        #expect(replay.status == 65, "\(replay.err)")
        #expect(replay.err.contains("\(dir)/locked.pdf: the document cannot be shown: ") && replay.err.contains("encrypted"),
                "\(replay.err)")
    }

    /// The gesture sentences of `flickd events` (after `gesture: `) or of `flickd replay` (after
    /// the time), each without its time.
    private func gestures(_ out: String, events: Bool) -> [String] {
        out.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: events ? " s  gesture: " : " s  ") else { return nil }
            let sentence = String(line[range.upperBound...])
            return sentence.hasPrefix("flick") || sentence.hasPrefix("drag") ? sentence : nil
        }
    }

    @Test func eventsOverAPDFSaysTheGesturesAReplayOverItSays() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Three flicks: past the test pattern's end (four screens), not past the menu's.
        try Recordings.flicks(at: [3, 4, 5]).write(toFile: dir + "/flicks.event", atomically: true, encoding: .utf8)
        let common = ["--config", dir + "/flickd.toml", "--size", "800x480"]
        let events = try runBuilt("flickd", ["events", "--recording", dir + "/flicks.event", "--content", dir + "/menu.pdf"] + common)
        #expect(events.status == 0, "\(events.err)")
        let replay = try runBuilt("flickd", ["replay", dir + "/flicks.event", "--content", dir + "/menu.pdf",
                                             "--config", dir + "/flickd.toml", "--display", "headless:800x480"])
        #expect(replay.status == 0, "\(replay.err)")
        let overMenu = gestures(events.out, events: true)
        #expect(overMenu.count == 3 && overMenu == gestures(replay.out, events: false), "\(events.out)\n\(replay.out)")
        let pattern = try runBuilt("flickd", ["events", "--recording", dir + "/flicks.event"] + common)
        #expect(gestures(pattern.out, events: true) != overMenu, "the test pattern ends sooner than the menu: \(pattern.out)")
    }
}
