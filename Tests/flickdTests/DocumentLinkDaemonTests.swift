import FlickControl
import FlickDisplay
import FlickDocumentSamples
import FlickInput
import Foundation
import Testing

/// Links in documents through the real `flickd-render`: a tap on a PDF's internal link scrolls
/// to its destination, a web link and a link that leads nowhere are `link` events and journal
/// lines, and the content hears no tap; `flickd replay` follows them the same way; an SVG's
/// `<a href="#id">` scrolls to the element.
@Suite(.serialized) struct DocumentLinkDaemonTests {
    static let a4 = (width: 595.28, height: 841.89)
    /// Page 0's links, in its points: a web link, then a link to the named destination `dishes`
    /// on page 2, 200 pt down.
    static let web = (x: 72.0, y: 200.0, width: 200.0, height: 30.0)
    static let toDishes = (x: 72.0, y: 100.0, width: 200.0, height: 30.0)
    /// 800 px wide pages: A4 is 800 / 595.28 px a point across, 1131 / 841.89 down.
    static let sx = 800 / 595.28, sy = 1131 / 841.89

    /// A folder with `menu.pdf` (three A4 pages with page 0's links), `taps.event` (a tap beside
    /// them at 2 s, on the web link at 3 s, on the link to `dishes` at 4 s) and the config.
    private func folder() throws -> String {
        let dir = try FlickdProcess.makeDirectory()
        let links = [
            SamplePDF.Link(page: 0, x: Self.web.x, y: Self.web.y, width: Self.web.width, height: Self.web.height,
                           target: .uri("https://example.com/allergens")),
            SamplePDF.Link(page: 0, x: Self.toDishes.x, y: Self.toDishes.y, width: Self.toDishes.width, height: Self.toDishes.height,
                           target: .destination("dishes")),
        ]
        try #require(SamplePDF.writeWithLinks(to: dir + "/menu.pdf", pages: Array(repeating: Self.a4, count: 3), links: links,
                                              destinations: [SamplePDF.Destination(name: "dishes", page: 2, x: 0, y: 200)]))
        let recording = Recordings.script { s in
            s.tap(at: 700, 400, t: 2)
            s.tap(at: (Self.web.x + 100) * Self.sx, (Self.web.y + 15) * Self.sy, t: 3)
            s.tap(at: (Self.toDishes.x + 100) * Self.sx, (Self.toDishes.y + 15) * Self.sy, t: 4)
        }
        try recording.write(toFile: dir + "/taps.event", atomically: true, encoding: .utf8)
        let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\n", placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        return dir
    }

    /// Where the link to `dishes` brings the view: page 2's top, 200 pt down.
    static let dishesY = 2 * (1131.0 + 16) + 200 * sy

    /// The replay's event lines of `recording` over `content`, as JSON objects.
    private func replay(_ dir: String, _ recording: String, content: String) throws -> [[String: Any]] {
        let run = try runBuilt("flickd", ["replay", recording, "--config", dir + "/flickd.toml", "--content", content,
                                          "--display", "headless:800x480", "--json"])
        #expect(run.status == 0, "\(run.err)")
        return run.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func aTapOnAPDFsLinkGoesToItsDestinationAndAWebLinkIsTheAppsEvent() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", dir + "/menu.pdf",
                                                                   "--input", "evemu:\(dir)/taps.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        let links = try subscriber.waitFor("link", count: 2, daemon: daemon).filter { $0.type == "link" }
        try #require(links.count == 2)
        #expect(links[0].uri == "https://example.com/allergens" && links[0].page == 0 && links[0].toPage == nil)
        #expect(links[1].toPage == 2 && links[1].page == 0 && links[1].uri == nil)
        let destination = try #require(links[1].destination)
        #expect(destination[0] == 0 && abs(destination[1] - Self.dishesY) < 1.5, "\(destination) against \(Self.dishesY)")
        // The content hears the tap beside the links, and none of a link's.
        #expect(subscriber.events.filter { $0.type == "tap" }.count == 1, "\(subscriber.events.compactMap(\.type))")
        let client = try daemon.client()
        var rest: [Double] = []
        try daemon.waitUntil("the view at the destination, at rest", timeout: 20) {
            guard let s = try? client.call(ControlRequest(cmd: "status")).status, !s.scrolling else { return false }
            rest = s.offset
            return abs(s.offset[1] - destination[1]) < 1e-6
        }
        // At `log.gestures = "summary"` (the default) a link flickd does not follow is written in
        // full (nothing on screen shows it); a followed one is counted with the other gestures.
        try daemon.waitForLog("→ https://example.com/allergens (not opened: for the app)")
        #expect(!daemon.stderr.contains("→ page 2"), "a followed link is counted at summary, as a tap is")
        #expect(try daemon.terminate() == 0)

        // A replay of the same taps over the same PDF follows the same links to the same rest.
        let lines = try replay(dir, dir + "/taps.event", content: dir + "/menu.pdf")
        let replayed = lines.filter { $0["type"] as? String == "link" }
        #expect(replayed.map { $0["uri"] as? String } == ["https://example.com/allergens", nil])
        #expect(replayed.map { $0["toPage"] as? Int } == [nil, 2])
        #expect((replayed.last?["destination"] as? [Double]) == destination)
        let last = try #require(lines.last { $0["offset"] != nil }?["offset"] as? [Double])
        #expect(last == rest, "replay \(last), daemon \(rest)")
    }

    @Test func aLinkPastTheLastPageLeadsNowhereAndMovesNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(SamplePDF.handBuiltLinks()).write(to: URL(fileURLWithPath: dir + "/broken.pdf"))
        // Page 0 is 600 × 800 pt, 800 px wide: its link to page 8 (of 3) spans (100, 50)–(200, 100) pt.
        let s = 800.0 / 600
        let recording = Recordings.script { $0.tap(at: 150 * s, 75 * s, t: 1) }
        try recording.write(toFile: dir + "/tap.event", atomically: true, encoding: .utf8)
        let lines = try replay(dir, dir + "/tap.event", content: dir + "/broken.pdf")
        let link = try #require(lines.first { $0["type"] as? String == "link" })
        #expect((link["missing"] as? String)?.isEmpty == false, "\(link)")
        #expect(link["toPage"] == nil && link["destination"] == nil)
        #expect(lines.allSatisfy { ($0["offset"] as? [Double]) ?? [0, 0] == [0, 0] }, "nothing moved")
    }

    @Test func anSVGsLinksGoToTheirElementOrAreTheAppsEvents() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try SampleSVG.linkedPlan().write(toFile: dir + "/plan.svg", atomically: true, encoding: .utf8)
        // The plan is 800 × 600 px drawn at twice its viewBox, laid out 800 px wide: page px are
        // content px. Its web link, its link to a missing id, then its link to #room-2.
        let recording = Recordings.script { s in
            s.tap(at: 260, 70, t: 1)
            s.tap(at: 80, 220, t: 2)
            s.tap(at: 100, 70, t: 3)
        }
        try recording.write(toFile: dir + "/plan.event", atomically: true, encoding: .utf8)
        let lines = try replay(dir, dir + "/plan.event", content: dir + "/plan.svg")
        let links = lines.filter { $0["type"] as? String == "link" }
        try #require(links.count == 3, "\(lines.filter { $0["type"] as? String != "didScroll" })")
        #expect(links[0]["uri"] as? String == "https://example.com/menu")
        #expect((links[1]["missing"] as? String)?.contains("nowhere") == true, "\(links[1])")
        #expect(links[2]["toPage"] as? Int == 0)
        let destination = try #require(links[2]["destination"] as? [Double])
        #expect(abs(destination[0] - 380) < 1 && abs(destination[1] - 40) < 1, "room-2's corner: \(destination)")
        // 800 × 600 in an 800 × 480 view: the view goes as far as it can towards (380, 40).
        let last = try #require(lines.last { $0["offset"] != nil }?["offset"] as? [Double])
        #expect(last[0] == 0 && abs(last[1] - destination[1]) < 1e-6, "\(last)")
        #expect(!lines.contains { $0["type"] as? String == "tap" })
    }

    @Test func aTappedLinkFlashesGreyOverItsAreaThenNothingIsDrawn() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = Recordings.script { $0.tap(at: (Self.web.x + 100) * Self.sx, (Self.web.y + 15) * Self.sy, t: 3) }
        try recording.write(toFile: dir + "/tap.event", atomically: true, encoding: .utf8)
        func frames(highlight: Bool) throws -> (after: [PixelBuffer], before: PixelBuffer) {
            let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\nlink_highlight = \(highlight)\n",
                                              placeholder: "black")
            try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
            let shots = dir + "/shots-\(highlight)"
            let run = try runBuilt("flickd", ["replay", dir + "/tap.event", "--config", dir + "/flickd.toml", "--content", dir + "/menu.pdf",
                                              "--display", "headless:800x480", "--json", "--snapshot-dir", shots])
            #expect(run.status == 0, "\(run.err)")
            let times = run.out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .filter { $0["type"] as? String == "frame" }.compactMap { $0["t"] as? Double }
            let files = try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }.sorted()
            try #require(files.count == times.count)
            let decoded = try files.map { name in
                let path = shots + "/" + name
                return try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
            }
            let split = times.firstIndex { $0 >= 3 } ?? times.count
            return (Array(decoded[split...]), try #require(decoded[..<split].last))
        }
        let on = try frames(highlight: true)
        // Fading over 0.3 s at 60 Hz, then the page as it was.
        #expect(on.after.count >= 10, "\(on.after.count) frames after the tap")
        let inside = (x: Int((Self.web.x + 10) * Self.sx), y: Int((Self.web.y + 15) * Self.sy))
        let outside = (x: 700, y: 400)
        let first = try #require(on.after.first), last = try #require(on.after.last)
        func luma(_ p: UInt32) -> Int { Int((p >> 16) & 0xFF) + Int((p >> 8) & 0xFF) + Int(p & 0xFF) }
        #expect(luma(first[inside.x, inside.y]) < luma(on.before[inside.x, inside.y]) - 30, "the link is shaded")
        #expect(first[outside.x, outside.y] == on.before[outside.x, outside.y], "nothing else is")
        #expect((0..<last.height).allSatisfy { y in (0..<last.width).allSatisfy { last[$0, y] == on.before[$0, y] } }, "gone after the fade")
        let off = try frames(highlight: false)
        #expect(off.after.isEmpty, "without the highlight a web link's tap draws nothing")
    }
}
