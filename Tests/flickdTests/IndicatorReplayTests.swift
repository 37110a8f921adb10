import FlickCore
import FlickDisplay
import FlickInput
import Foundation
import Testing

/// Issue 21, part 3, through `flickd replay --json --snapshot-dir`: the indicator keys of a
/// config file reach the frames a replay presents. A drag down a black page 2000 px tall on the
/// 800×480 panel; the frame shown last while the finger held still is read back as PNG, and
/// its vertical bar is where the frame line's offset puts it (docs/indicators.md's geometry),
/// sized for the recording's touchscreen density.
@Suite struct IndicatorReplayTests {
    /// The frame lines and the PNG of the last frame presented before the lift, replayed with
    /// `indicators` (TOML lines of the `[indicators]` table).
    static func lastDragFrame(indicators: String) throws -> (offsetY: Double, frame: PixelBuffer) {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = try #require(PixelBuffer(width: 800, height: 2000))
        page.fill(Color.black.pixel)
        try PNGCodec.write(page, to: dir + "/page.png")
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        // Up 200 px in 0.5 s, then held still: no momentum, the bars showing while it is held.
        s.down(0, 400, 400, 0.1); s.report(0.1)
        for i in 1...25 { s.move(0, 400, 400 - 8 * Double(i), 0.1 + 0.02 * Double(i)); s.report(0.1 + 0.02 * Double(i)) }
        let lift = s.hold(at: 400, 200, seconds: 0.2, t: 0.62)
        s.up(0, lift); s.report(lift)
        s.idle(lift + 1)
        try s.text.write(toFile: dir + "/drag.evemu", atomically: true, encoding: .utf8)
        try "[indicators]\n\(indicators)\n".write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/frames", withIntermediateDirectories: true)
        let run = try runBuilt("flickd", ["replay", dir + "/drag.evemu", "--json", "--config", dir + "/flickd.toml",
                                          "--content", dir + "/page.png", "--snapshot-dir", dir + "/frames"])
        guard run.status == 0 else { throw TestFailure("flickd replay exited \(run.status): \(run.err)") }
        let frames = try run.out.split(separator: "\n").compactMap { line -> [String: Any]? in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["type"] as? String == "frame" ? object : nil
        }
        // Every presented frame is written, numbered from 1 in order: the N-th frame line's PNG.
        let index = try #require(frames.lastIndex { ($0["t"] as? Double ?? .infinity) < lift })
        let offset = try #require(frames[index]["offset"] as? [Double])
        #expect(offset[1] > 150, "the drag moved the page: \(offset)")
        let name = String(format: "frame-%06d.png", index + 1)
        let bytes = try #require(FileManager.default.contents(atPath: dir + "/frames/" + name), "no \(name)")
        let frame = try PNGCodec.decode([UInt8](bytes), path: name, pixelBudget: 1 << 22)
        return (offset[1], frame)
    }

    /// The columns of row `y` that are not the black page, from `x0` on.
    static func lit(_ frame: PixelBuffer, row y: Int, from x0: Int) -> [Int] {
        (x0..<frame.width).filter { frame[$0, y] != Color.black.pixel }
    }

    /// The replay's panel density: the recording's touchscreen says 10 units per millimetre,
    /// mapped 1:1 onto the display, so 10 px/mm; the indicators are sized for it (issue 34):
    /// × 10 / 5.556 = 1.8 the reference panel's pixels, the body 0.54 mm = 5.4 px.
    /// An 800 × 480 panel at 10 px/mm is 93 mm across: read at arm's length (400 mm), nearer
    /// than the reference panel (1.2 × 15.6", 475 mm), so everything is 400/475 the millimetres.
    static let distance = 400 / (1.2 * 15.6 * 25.4)
    static let scale = 10 / (3 / 0.54) * distance, body = 0.54 * distance * 10

    @Test func styleAndInsetsOfTheConfigPlaceAndPaintTheBar() throws {
        let (y, frame) = try Self.lastDragFrame(indicators: "style = \"white\"\nscroll_indicator_insets = [10, 0, 10, 20]")
        // Inset and body 5.4 × 0.841 = 4.54 px. Track: 480 − 10 − 10 − 2 × 4.54 = 450.9 px from
        // y 14.5; bar 450.9 × 480/2000 = 108.2 px long; across: 800 − 20 − 4.54 − 4.54 = 770.9 …
        // 775.5, so columns 770…775 (the first and last in part).
        let inset = 3 * Self.scale
        let track = 480 - 20 - 2 * inset
        let length = track * 480 / 2000
        let top = 10 + inset + y / (2000 - 480) * (track - length)
        let middle = Int(top + length / 2)
        let left = 800 - 20 - inset - Self.body
        #expect(Self.lit(frame, row: middle, from: 700) == Array(Int(left.rounded(.down))..<Int((left + Self.body).rounded(.up))))
        #expect(Self.lit(frame, row: middle, from: 700) == Array(770...775))
        let rows = (0..<480).filter { frame[772, $0] != Color.black.pixel }
        let first = try #require(rows.first), last = try #require(rows.last)
        #expect(abs(Double(first) - top) <= 1 && abs(Double(last) + 1 - (top + length)) <= 1,
                "rows \(first)…\(last), expected \(top)…\(top + length)")
        #expect(frame[772, middle] & 0xFF == frame[772, middle] >> 8 & 0xFF && frame[772, middle] & 0xFF > 0x60, "white")
    }

    @Test func theDefaultStyleShowsItsLightBorderOnABlackPage() throws {
        let (y, frame) = try Self.lastDragFrame(indicators: "")
        // No insets: track 480 − 2 × 4.54 from y 4.54; across, the bar with its border (1.51 px
        // each side) ends 4.54 px from the edge: 787.9 … 795.5. A light border at 787.9 … 789.4
        // and 793.9 … 795.5 around a dark body (black on the black page).
        let inset = 3 * Self.scale, border = Self.scale
        let track = 480 - 2 * inset
        let length = track * 480 / 2000
        let middle = Int(inset + y / (2000 - 480) * (track - length) + length / 2)
        let right = 800 - inset, left = right - Self.body - 2 * border
        func columns(_ a: Double, _ b: Double) -> [Int] { Array(Int(a.rounded(.down))..<Int(b.rounded(.up))) }
        #expect(Self.lit(frame, row: middle, from: 700) == columns(left, left + border) + columns(right - border, right))
        #expect(Self.lit(frame, row: middle, from: 700) == [787, 788, 789, 793, 794, 795])
    }
}
