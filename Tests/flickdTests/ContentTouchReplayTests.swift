import FlickCore
import FlickDisplay
import FlickInput
import Foundation
import Testing

/// Issue 21, part 6, through the real binary: `flickd replay --json` of generated recordings.
/// A touch that belongs to the content gets its whole stream — down, every move, up or cancel —
/// in content coordinates, each line with the finger's `contact` id; a touch that scrolls
/// nothing stays the content's and ends with an up. Exact sequences.
///
/// The content is 400 × 600 px on the 800 × 480 panel; a double tap at (400, 240) zooms it to
/// 2 (`zoom.double_tap_scale`) about the tap's content point (400, 240), clamped: the view rests
/// at offset (0, 240), zoom 2. The content is then exactly as wide as the view (nothing to
/// scroll sideways) and 1200 px tall. Screen point (x, y) is content point (x / 2, (y + 240) / 2).
@Suite struct ContentTouchReplayTests {
    /// When the scripted touch begins, after the zoom has settled.
    static let start = 1.5
    /// The slop: 3 mm at the panel's 10 units (pixels) per mm.
    static let slop = 30.0

    /// The recording: a double tap, then `touch` from `start`.
    static func recording(_ touch: (inout TouchScript) -> Void) -> String {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        s.tap(at: 400, 240, t: 0.1)
        s.tap(at: 400, 240, t: 0.3)
        touch(&s)
        return s.text
    }

    /// A finger down at `from`, then a report every 20 ms moving it by `step`, `count` times,
    /// then a lift where it stopped, 20 ms later. Returns the screen points it reported.
    static func drag(_ s: inout TouchScript, from: (Double, Double), step: (Double, Double), count: Int,
                     holdFirst: Double = 0) -> [(Double, Double)] {
        var t = start
        s.down(0, from.0, from.1, t); s.report(t)
        t += holdFirst
        var points = [from]
        for i in 1...count {
            t += 0.02
            let p = (from.0 + step.0 * Double(i), from.1 + step.1 * Double(i))
            s.move(0, p.0, p.1, t); s.report(t)
            points.append(p)
        }
        t += 0.02
        s.up(0, t); s.report(t)
        return points
    }

    /// The content point of screen point `p` at zoom 2, offset (0, 240).
    static func content(_ p: (Double, Double)) -> [Double] { [p.0 / 2, (p.1 + 240) / 2] }

    /// The replay's lines from the scripted touch on (the double tap's are not this test's; `t`
    /// is the script's time).
    static func run(_ recording: String, config: String = "") throws -> [[String: Any]] {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let image = try #require(PixelBuffer(width: 400, height: 600))
        image.fill(0xFF20_4060)
        try PNGCodec.write(image, to: dir + "/content.png")
        let lines = try ReplayJSON.run(recording, config: "[content]\npath = \"\(dir)/content.png\"\n" + config)
        let zoomed = try #require(lines.last { ($0["t"] as? Double ?? 0) < start })
        #expect(zoomed["zoomScale"] as? Double == 2 && zoomed["offset"] as? [Double] == [0, 240], "\(zoomed)")
        return lines.filter { ($0["t"] as? Double ?? 0) >= start }
    }

    /// The content touches as (type, [x, y]), and the contact ids they carry.
    static func contentTouches(_ lines: [[String: Any]]) -> (events: [String], contacts: Set<Int>) {
        var events: [String] = [], contacts: Set<Int> = []
        for line in lines {
            guard let type = line["type"] as? String, type.hasPrefix("contentTouch") || type == "tap" else { continue }
            let x = (line["x"] as? Double).map { $0.brief } ?? "-", y = (line["y"] as? Double).map { $0.brief } ?? "-"
            events.append(type == "contentTouchCancel" ? type : "\(type) \(x) \(y)")
            if let id = line["contact"] as? Int { contacts.insert(id) } else { contacts.insert(-1) }
        }
        return (events, contacts)
    }

    static func line(_ type: String, _ p: (Double, Double)) -> String {
        let c = content(p)
        return "\(type) \(c[0].brief) \(c[1].brief)"
    }

    @Test func aSlowDragWhereTheContentFitsIsTheContentsWholeTouch() throws {
        // Sideways, 5 px a report (250 px/s): past the 30 px slop at the 7th report, before the
        // 150 ms delay; nothing to scroll that way, so the content gets the down where the finger
        // landed, then every move, then the up. No cancel, no scroll.
        var points: [(Double, Double)] = []
        let lines = try Self.run(Self.recording { points = Self.drag(&$0, from: (200, 300), step: (5, 0), count: 20) })
        let (events, contacts) = Self.contentTouches(lines)
        let crossing = 7  // 35 px > 30
        #expect(events == [Self.line("contentTouchDown", points[0])]
                + points[crossing...].map { Self.line("contentTouchMove", $0) }
                + [Self.line("contentTouchUp", points.last!)])
        #expect(contacts.count == 1 && !contacts.contains(-1))
        #expect(ReplayJSON.folded(lines).filter { !$0.hasPrefix("contentTouch") } == [])
    }

    @Test func withoutDelaysTheContentHearsEveryMoveFromTheDown() throws {
        var points: [(Double, Double)] = []
        let lines = try Self.run(Self.recording { points = Self.drag(&$0, from: (200, 300), step: (5, 0), count: 20) },
                                 config: "[gestures]\ndelays_content_touches = false\n")
        let (events, contacts) = Self.contentTouches(lines)
        #expect(events == [Self.line("contentTouchDown", points[0])]
                + points[1...].map { Self.line("contentTouchMove", $0) }
                + [Self.line("contentTouchUp", points.last!)])
        #expect(contacts.count == 1)
        #expect(ReplayJSON.folded(lines).filter { !$0.hasPrefix("contentTouch") } == [])
    }

    @Test func aDragThatScrollsIsCancelledAsBefore() throws {
        // Held 200 ms (the content has it at 150 ms), then up 10 px a report: the moves within
        // the slop reach the content, the one past it (40 px) cancels it and scrolls.
        var points: [(Double, Double)] = []
        let lines = try Self.run(Self.recording {
            points = Self.drag(&$0, from: (400, 300), step: (0, -10), count: 10, holdFirst: 0.2)
        })
        let (events, contacts) = Self.contentTouches(lines)
        #expect(events == [Self.line("contentTouchDown", points[0])] + points[1...3].map { Self.line("contentTouchMove", $0) }
                + ["contentTouchCancel"])
        #expect(contacts.count == 1)
        let folded = ReplayJSON.folded(lines)
        #expect(Array(folded.prefix(6)) == ["contentTouchDown", "contentTouchMove", "contentTouchMove", "contentTouchMove",
                                            "contentTouchCancel", "willBeginDragging"], "\(folded)")
        #expect(folded.contains("didEndDragging(true)") || folded.contains("didEndDragging(false)"))
    }

    @Test func withScrollingOffAScrollingDragIsTheContents() throws {
        // The same drag with scroll.scroll_enabled = false: every move reaches the content, and
        // it ends with an up.
        var points: [(Double, Double)] = []
        let lines = try Self.run(Self.recording {
            points = Self.drag(&$0, from: (400, 300), step: (0, -10), count: 10, holdFirst: 0.2)
        }, config: "[scroll]\nscroll_enabled = false\n")
        let (events, _) = Self.contentTouches(lines)
        #expect(events == [Self.line("contentTouchDown", points[0])] + points[1...].map { Self.line("contentTouchMove", $0) }
                + [Self.line("contentTouchUp", points.last!)])
        #expect(ReplayJSON.folded(lines).filter { !$0.hasPrefix("contentTouch") } == [])
    }

    @Test func aTapAndALongPressAreAsBefore() throws {
        let tap = try Self.run(Self.recording { $0.tap(at: 300, 100, t: Self.start) })
        #expect(Self.contentTouches(tap).events == [Self.line("contentTouchDown", (300, 100)), Self.line("contentTouchUp", (300, 100)),
                                                    Self.line("tap", (300, 100))])
        #expect(Set(tap.compactMap { $0["contact"] as? Int }).count == 1)
        let press = try Self.run(Self.recording { $0.hold(at: 300, 100, seconds: 0.7, t: Self.start, jitter: 1) })
        let events = Self.contentTouches(press).events
        // The 1 px jitter (301, 300, 301, …) reaches the content as moves; the up is where the
        // last one left the finger.
        let jitter = (1..<events.count - 1).map { Self.line("contentTouchMove", ($0 % 2 == 1 ? 301 : 300, 100)) }
        #expect(events == [Self.line("contentTouchDown", (300, 100))] + jitter
                + [Self.line("contentTouchUp", (events.count % 2 == 1 ? 301 : 300, 100))], "\(events)")
        // Reports every 8 ms for 0.7 s: moves 1…87; the content has the touch from 150 ms, so it
        // hears moves 19…87 (x 301, 300, …), between its down and its up.
        #expect(events.count == 1 + 69 + 1)
        #expect(ReplayJSON.folded(press).filter { !$0.hasPrefix("contentTouch") } == ["longPress", "gesture:long-press"])
    }
}
