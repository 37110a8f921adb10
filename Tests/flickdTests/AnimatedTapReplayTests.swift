import FlickInput
import Foundation
import Testing

/// Issue 21, parts 1 and 5, through the real binary: `flickd replay --json` of generated
/// recordings on the 800×480 panel (the built-in test pattern, 3200 × 1920, zoom 1 to 4). A
/// double tap and a tap in the scroll-to-top strip animate over several frames, the double tap
/// about the finger (checked on every `frame` line and every `didZoom`), a touch stops either
/// where it is, and `scroll.animation_curve`/`animation_speed` change the frames exactly.
@Suite struct AnimatedTapReplayTests {
    /// One line's time and view.
    struct View {
        var type: String
        var t: Double
        var x: Double
        var y: Double
        var scale: Double
    }

    static func views(_ lines: [[String: Any]]) -> [View] {
        lines.compactMap { line in
            guard let type = line["type"] as? String, let t = line["t"] as? Double, let offset = line["offset"] as? [Double],
                  let scale = line["zoomScale"] as? Double else { return nil }
            return View(type: type, t: t, x: offset[0], y: offset[1], scale: scale)
        }
    }

    /// How far (screen px) the content point `c` is from the view point `p` in `view`.
    static func slip(_ view: View, content c: (Double, Double), at p: (Double, Double)) -> Double {
        hypot(c.0 * view.scale - view.x - p.0, c.1 * view.scale - view.y - p.1)
    }

    /// A recording: a double tap at (x, y) whose second tap lifts at `t` + 0.29 s.
    static func doubleTap(_ s: inout TouchScript, at x: Double, _ y: Double, t: Double) {
        s.tap(at: x, y, t: t)
        s.tap(at: x, y, t: t + 0.2)
    }

    static let zoomIn = ["contentTouchDown", "contentTouchUp", "tap", "gesture:tap", "willBeginZooming", "gesture:double-tap",
                         "didZoom", "didScroll", "didEndZooming", "didEndScrollingAnimation"]

    // MARK: Part 1: double tap

    @Test func aDoubleTapZoomsInOverSeveralFramesAboutTheFinger() throws {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        Self.doubleTap(&s, at: 200, 150, t: 0.1)
        s.idle(1.5)
        let lines = try ReplayJSON.run(s.text, frames: true)
        let events = lines.filter { $0["type"] as? String != "frame" }
        #expect(ReplayJSON.folded(events) == Self.zoomIn, "\(ReplayJSON.folded(events))")
        let views = Self.views(lines)
        // The second tap lifts at 0.39 s; 0.3 s of animation at 60 Hz.
        let frames = views.filter { $0.type == "frame" && $0.t > 0.39 && $0.t <= 0.69 + 1e-6 }
        #expect(frames.count >= 17, "\(frames.count) frames")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.scale < $1.scale })
        // At zoom 1, offset 0, the content point under the finger is the finger's point; it
        // stays there on every frame and every didZoom.
        for view in views where view.t > 0.39 && (view.type == "frame" || view.type == "didZoom") {
            #expect(Self.slip(view, content: (200, 150), at: (200, 150)) <= 0.5, "\(view)")
        }
        // It ends at the first frame at or after 0.69 s, exactly at the anchored end.
        let end = try #require(views.first { $0.type == "didEndZooming" })
        #expect(end.t >= 0.69 && end.t < 0.69 + 1.0 / 60, "\(end)")
        #expect(end.scale == 2 && abs(end.x - 200) < 1e-9 && abs(end.y - 150) < 1e-9, "\(end)")
    }

    @Test func aSecondDoubleTapZoomsBackOutAboutTheFinger() throws {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        Self.doubleTap(&s, at: 200, 150, t: 0.1)
        Self.doubleTap(&s, at: 200, 150, t: 1.0)
        s.idle(2.5)
        let lines = try ReplayJSON.run(s.text, frames: true)
        let events = lines.filter { $0["type"] as? String != "frame" }
        #expect(ReplayJSON.folded(events) == Self.zoomIn + Self.zoomIn, "\(ReplayJSON.folded(events))")
        let out = Self.views(lines).filter { $0.t > 1.29 }
        #expect(out.filter { $0.type == "frame" }.count >= 17)
        for view in out where view.type == "frame" || view.type == "didZoom" {
            #expect(Self.slip(view, content: (200, 150), at: (200, 150)) <= 0.5, "\(view)")
        }
        let last = try #require(out.last)
        #expect(last.scale == 1 && abs(last.x) < 1e-9 && abs(last.y) < 1e-9, "\(last)")
    }

    @Test func zoomingOutWhereTheBoundsForbidKeepingTheFingerStaysInsideThem() throws {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        Self.doubleTap(&s, at: 200, 150, t: 0.1)
        // Back out at (600, 400): keeping its content point (400, 275) there at zoom 1 would
        // need the offset (-200, -125), past the top-left edge. The end is clamped to (0, 0)
        // and the animation zooms about the one point start and end share: (200, 150).
        Self.doubleTap(&s, at: 600, 400, t: 1.0)
        s.idle(2.5)
        let lines = try ReplayJSON.run(s.text, frames: true)
        let out = Self.views(lines).filter { $0.t > 1.29 }
        #expect(out.filter { $0.type == "frame" }.count >= 17)
        for view in out {
            #expect(view.x >= -1e-9 && view.y >= -1e-9, "past the edge: \(view)")
            #expect(Self.slip(view, content: (200, 150), at: (200, 150)) <= 0.5, "\(view)")
        }
        let last = try #require(out.last)
        #expect(last.scale == 1 && abs(last.x) < 1e-9 && abs(last.y) < 1e-9, "\(last)")
    }

    @Test func aTouchDuringTheZoomStopsItWhereItIs() throws {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        Self.doubleTap(&s, at: 200, 150, t: 0.1)
        s.hold(at: 400, 240, seconds: 0.2, t: 0.49)
        s.idle(1.5)
        let lines = try ReplayJSON.run(s.text, frames: true)
        let events = lines.filter { $0["type"] as? String != "frame" }
        // The touch catches the moving content: it ends the zoom and is no tap of the content's.
        #expect(ReplayJSON.folded(events) == Self.zoomIn + ["gesture:stop"], "\(ReplayJSON.folded(events))")
        let views = Self.views(lines)
        let stop = try #require(views.firstIndex { $0.type == "didEndZooming" })
        let end = views[stop]
        // Stamped where the model was stopped: the touch's time, or the vblank the frame in
        // preparation had stepped it to (times never go back), at most a frame later.
        #expect(end.t >= 0.49 - 1e-6 && end.t <= 0.49 + 1.0 / 60 + 1e-6 && end.scale > 1.1 && end.scale < 1.9, "\(end)")
        #expect(Self.slip(end, content: (200, 150), at: (200, 150)) <= 0.5)
        // It stops where the model was (the frame being prepared for the next vblank had stepped
        // it a little past the touch's time): every line after it shows that view, and no
        // didZoom or didScroll follows.
        for view in views[(stop + 1)...] {
            #expect(view.x == end.x && view.y == end.y && view.scale == end.scale, "\(view)")
            #expect(view.type != "didZoom" && view.type != "didScroll", "\(view)")
        }
        let lastBefore = try #require(views[..<stop].last { $0.type == "didZoom" })
        #expect(end.scale == lastBefore.scale && end.x == lastBefore.x)
    }

    // MARK: Part 1: the scroll-to-top strip

    static let strip = "[kiosk]\nscroll_to_top_strip_px = 40\n"

    /// A slow drag up by 300 px that stops before its lift (no momentum), then a tap in the
    /// strip at (300, 10) lifting at 1.59 s, and `after` (e.g. a touch during the animation).
    static func dragThenStripTap(_ after: (inout TouchScript) -> Void = { _ in }) -> String {
        var s = TouchScript(description: Recordings.panel)
        s.idle(0)
        s.down(0, 400, 400, 0.1); s.report(0.1)
        for i in 1...50 { s.move(0, 400, 400 - 6 * Double(i), 0.1 + 0.008 * Double(i)); s.report(0.1 + 0.008 * Double(i)) }
        s.up(0, 0.8); s.report(0.8)
        s.tap(at: 300, 10, t: 1.5)
        after(&s)
        s.idle(3.5)
        return s.text
    }

    static let dragged = ["willBeginDragging", "didScroll", "willEndDragging", "didEndDragging(false)", "gesture:drag"]

    /// The frame lines from the strip tap's lift on, the events, and the offset the drag left
    /// (less than 300 px: the content follows the finger from the slop on).
    static func stripTap(config: String, _ after: (inout TouchScript) -> Void = { _ in }) throws
        -> (frames: [View], events: [[String: Any]], y0: Double) {
        let lines = try ReplayJSON.run(dragThenStripTap(after), config: strip + config, frames: true)
        let frames = views(lines).filter { $0.type == "frame" && $0.t > 1.59 }
        let events = lines.filter { $0["type"] as? String != "frame" }
        let dragged = try #require(views(events).first { $0.type == "didEndDragging" })
        #expect(dragged.y > 250 && dragged.y <= 300, "\(dragged)")
        return (frames, events, dragged.y)
    }

    /// Frames are stamped with their vblank to the nanosecond: at 1000 px/s that is a µpx.
    static let exact = 1e-4

    @Test func aTapInTheStripScrollsToTheTopOverSeveralFrames() throws {
        let (frames, events, y0) = try Self.stripTap(config: "")
        #expect(ReplayJSON.folded(events) == Self.dragged + ["gesture:scroll-to-top", "didScroll", "didScrollToTop"],
                "\(ReplayJSON.folded(events))")
        // The default: 0.3 s, ease in and out, from where the drag left it to the top.
        let moving = frames.filter { $0.t < 1.89 }
        #expect(moving.count >= 17, "\(moving.count) frames")
        for frame in frames {
            #expect(abs(frame.y - y0 * (1 - Self.easeInOut((frame.t - 1.59) / 0.3))) < Self.exact, "\(frame)")
        }
        let top = try #require(Self.views(events).first { $0.type == "didScrollToTop" })
        #expect(top.t >= 1.89 && top.t < 1.89 + 1.0 / 60 && top.x == 0 && top.y == 0, "\(top)")
    }

    @Test func aTouchDuringTheScrollToTopStopsItWhereItIs() throws {
        let (frames, events, y0) = try Self.stripTap(config: "") { $0.hold(at: 400, 300, seconds: 0.1, t: 1.7) }
        // Interrupted, it never got to the top: no didScrollToTop (UIKit's rule).
        #expect(ReplayJSON.folded(events) == Self.dragged + ["gesture:scroll-to-top", "didScroll", "didEndScrollingAnimation",
                                                             "gesture:stop"], "\(ReplayJSON.folded(events))")
        let end = try #require(Self.views(events).first { $0.type == "didEndScrollingAnimation" })
        // Where the model was at the touch: at most a frame past the touch's time.
        let atTouch = y0 * (1 - Self.easeInOut((1.7 - 1.59) / 0.3)), aFrameLater = y0 * (1 - Self.easeInOut((1.7 + 1.0 / 60 - 1.59) / 0.3))
        #expect(end.t >= 1.7 - 1e-6 && end.t <= 1.7 + 1.0 / 60 + 1e-6, "\(end)")
        #expect(end.y <= atTouch + Self.exact && end.y >= aFrameLater - Self.exact, "\(end)")
        #expect(end.y > 100)
        for frame in frames where frame.t > 1.7 + 1e-6 { #expect(frame.y == end.y, "\(frame)") }
    }

    // MARK: Part 5: the animation's curve and speed

    @Test func aLinearCurveAtAConstantSpeedChangesTheFramesExactly() throws {
        let (frames, events, y0) = try Self.stripTap(config: "[scroll]\nanimation_curve = \"linear\"\nanimation_speed = 600\n")
        #expect(ReplayJSON.folded(events) == Self.dragged + ["gesture:scroll-to-top", "didScroll", "didScrollToTop"])
        // At 600 px/s, evenly: y0 / 600 s (≈ 0.45 s, where the default takes 0.3 s).
        let duration = y0 / 600
        #expect(frames.filter { $0.t < 1.59 + duration }.count >= 25)
        for frame in frames {
            #expect(abs(frame.y - max(0, y0 - 600 * (frame.t - 1.59))) < Self.exact, "\(frame)")
        }
        let top = try #require(Self.views(events).first { $0.type == "didScrollToTop" })
        #expect(top.t >= 1.59 + duration && top.t < 1.59 + duration + 1.0 / 60, "\(top)")
    }

    @Test func aLinearCurveAloneKeepsTheDuration() throws {
        let (frames, events, y0) = try Self.stripTap(config: "[scroll]\nanimation_curve = \"linear\"\n")
        #expect(ReplayJSON.folded(events) == Self.dragged + ["gesture:scroll-to-top", "didScroll", "didScrollToTop"])
        for frame in frames {
            #expect(abs(frame.y - max(0, y0 * (1 - (frame.t - 1.59) / 0.3))) < Self.exact, "\(frame)")
        }
        let top = try #require(Self.views(events).first { $0.type == "didScrollToTop" })
        #expect(top.t >= 1.89 && top.t < 1.89 + 1.0 / 60, "\(top)")
    }

    static func easeInOut(_ p: Double) -> Double {
        let p = min(max(p, 0), 1)
        return p < 0.5 ? 4 * p * p * p : 1 - (2 - 2 * p) * (2 - 2 * p) * (2 - 2 * p) / 2
    }
}
