import FlickControl
import FlickCore
@testable import FlickDaemon
import Foundation
import Testing

/// The saved state and the gesture journal lines.
@Suite struct StateAndLogTests {
    func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-state-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func stateRoundTripsAtomically() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = StateStore(path: dir + "/state.json")
        #expect(store.load().state == nil && store.load().warning == nil)
        let state = PersistedState(content: "a.png|10|20", offsetX: 12.5, offsetY: 900, zoomScale: 2)
        try store.save(state)
        #expect(store.load().state == state)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"]) // no temporary left
    }

    @Test func corruptOrTruncatedStateIsIgnoredWithAWarning() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = StateStore(path: dir + "/state.json")
        try store.save(PersistedState(content: "c", offsetX: 1, offsetY: 2, zoomScale: 1))
        let full = try Data(contentsOf: URL(fileURLWithPath: store.path))
        for broken in [full.prefix(full.count / 2), Data("garbage".utf8), Data()] {
            try broken.write(to: URL(fileURLWithPath: store.path))
            let (state, warning) = store.load()
            #expect(state == nil && warning?.contains("ignoring") == true)
        }
    }

    func view() throws -> ScrollView {
        var v = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 800, height: 5000))
        try v.setContentOffset(Point(x: 0, y: 100), animated: false, at: .zero)
        return v
    }

    @Test func oneLinePerGestureWithFields() throws {
        let v = try view()
        func entry(_ g: Gesture) -> GestureLog.Entry? { GestureLog.entry(for: GestureOutput(time: .zero, kind: .gesture(g)), view: v) }
        let flick = try #require(entry(.flick(velocity: Vector(dx: 0, dy: -1840), restOffset: Point(x: 0, y: 1019), duration: 3.6)))
        #expect(flick.message == "flick up 1840 px/s → 919 px to rest at (0, 1019) in 3.6 s")
        #expect(flick.fields["GESTURE"] == "flick" && flick.fields["VELOCITY_Y"] == "-1840" && flick.fields["REST_Y"] == "1019")
        #expect(flick.fields["DISTANCE"] == "919" && flick.fields["DURATION"] == "3.6")
        #expect(entry(.tap(Point(x: 10, y: 20.25)))?.message == "tap at (10, 20.25)")
        #expect(entry(.tap(Point(x: 10, y: 20.25 + 1e-9)))?.message == "tap at (10, 20.3)")
        #expect(entry(.doubleTap(Point(x: 1, y: 2), zoomedTo: 2))?.message == "double tap at (1, 2) → zoom 2")
        #expect(entry(.longPress(Point(x: 5, y: 6)))?.fields["X"] == "5")
        #expect(entry(.drag(translation: Vector(dx: 0, dy: 200)))?.message == "drag by (0, 200) px, no momentum")
        #expect(entry(.drag(translation: Vector(dx: 0, dy: 0))) == nil)
        #expect(entry(.pinch(fromScale: 1, toScale: 2.5))?.message == "pinch 1 → 2.5")
        #expect(entry(.cancelled)?.fields["GESTURE"] == "cancelled")
        // Delegate messages and content touches are not journal entries.
        #expect(GestureLog.entry(for: GestureOutput(time: .zero, kind: .scroll(.didScroll)), view: v) == nil)
        #expect(GestureLog.entry(for: GestureOutput(time: .zero, kind: .content(.tap(.zero))), view: v) == nil)
    }

    /// Zooms far below 1 keep their significant digits in the message and the fields (the
    /// view's ZOOM too).
    @Test func zoomsBelowOneKeepTheirDigits() throws {
        var v = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 20000, height: 20000))
        try v.setZoomScaleLimits(minimum: 0.01, maximum: 2)
        try v.setZoomScale(0.025, animated: false, at: .zero)
        func entry(_ g: Gesture) throws -> GestureLog.Entry {
            try #require(GestureLog.entry(for: GestureOutput(time: .zero, kind: .gesture(g)), view: v))
        }
        let pinch = try entry(.pinch(fromScale: 1, toScale: 0.0244140625))
        #expect(pinch.message == "pinch 1 → 0.0244" && pinch.fields["SCALE_TO"] == "0.0244", "\(pinch)")
        #expect(pinch.fields["ZOOM"] == "0.025", "\(pinch.fields)")
        #expect(try entry(.doubleTap(Point(x: 1, y: 2), zoomedTo: 0.05)).message == "double tap at (1, 2) → zoom 0.05")
    }

    /// A paged flick rests on a page's edge: the message names the rest the fields hold, and
    /// the distance still to go has a field of its own.
    @Test func aFlicksRestIsThePositionItsFieldsHold() throws {
        var v = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 3200, height: 480))
        try v.setContentOffset(Point(x: 170, y: 0), animated: false, at: .zero)
        let flick = try #require(GestureLog.entry(for: GestureOutput(time: .zero, kind: .gesture(
            .flick(velocity: Vector(dx: 1200.4, dy: 0), restOffset: Point(x: 800, y: 0), duration: 0.35))), view: v))
        #expect(flick.message == "flick right 1200 px/s → 630 px to rest at (800, 0) in 0.35 s", "\(flick.message)")
        #expect(flick.fields["REST_X"] == "800" && flick.fields["DISTANCE"] == "630" && flick.fields["DURATION"] == "0.35")
        #expect(flick.message.contains("(\(try #require(flick.fields["REST_X"])), \(try #require(flick.fields["REST_Y"])))"))
    }

    @Test func logBackendFollowsTheEnvironment() {
        #expect(LogBackend.choose(environment: ["JOURNAL_STREAM": "8:1234"]) == .journal)
        #expect(LogBackend.choose(environment: [:]) == .stderr)
        #expect(LogBackend.choose(environment: ["JOURNAL_STREAM": "8:1", "FLICKD_LOG": "stderr"]) == .stderr)
        #expect(FlickdLogHandler.fieldName("velocity_y") == "VELOCITY_Y" && FlickdLogHandler.fieldName("a-b") == "A_B")
    }

    @Test func replayOfTheDemoEndsAtRestWithItsGestures() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("demo/flick-demo.event").path
        let sink = KeptOutputs()
        let summary = try Replay.run(Replay.Options(recording: demo), configuration: Configuration(), sink: sink, note: { _ in })
        let types = sink.outputs.map { ControlMessage.event($0, view: sink.view!).type ?? "?" }
        #expect(summary.frames > 100 && summary.zoomScale == 2)
        #expect(types.contains("didEndDecelerating") && types.contains("didEndZooming") && types.contains("tap"))
        #expect(summary.events == sink.outputs.count { $0.isEvent })
    }
}

/// A sink that keeps what a replay emits.
final class KeptOutputs: PipelineSink {
    var outputs: [GestureOutput] = []
    var view: ScrollView?
    var onOutput: ((GestureOutput, ScrollView) -> Void)?
    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        self.outputs += outputs
        self.view = view
        if let onOutput { for output in outputs { onOutput(output, view) } }
    }
    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}
}
