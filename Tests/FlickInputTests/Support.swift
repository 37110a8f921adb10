import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// A scripted protocol B session: fingers by slot, frames by time (ms from 1000 s).
struct SlotScript {
    var writer: EvemuWriter
    private var nextTrackingID: Int32 = 100
    private var currentSlot: Int32 = -1

    init(width: Int32 = 800, height: Int32 = 480, resolution: Int32 = 0) {
        writer = EvemuWriter(description: .slotTouchscreen(width: width, height: height, resolution: resolution))
    }

    static func t(_ ms: Double) -> Instant { .seconds(1000) + .nanoseconds(Int64(ms * 1e6)) }

    private mutating func select(_ slot: Int32, _ ms: Double) {
        if slot != currentSlot { writer.abs(Self.t(ms), EventCode.ABS_MT_SLOT, slot); currentSlot = slot }
    }

    mutating func down(_ slot: Int32, _ x: Int32, _ y: Int32, at ms: Double, tool: Int32? = nil) {
        select(slot, ms)
        writer.abs(Self.t(ms), EventCode.ABS_MT_TRACKING_ID, nextTrackingID)
        nextTrackingID += 1
        if let tool { writer.abs(Self.t(ms), EventCode.ABS_MT_TOOL_TYPE, tool) }
        writer.abs(Self.t(ms), EventCode.ABS_MT_POSITION_X, x)
        writer.abs(Self.t(ms), EventCode.ABS_MT_POSITION_Y, y)
    }

    mutating func move(_ slot: Int32, _ x: Int32?, _ y: Int32?, at ms: Double) {
        select(slot, ms)
        if let x { writer.abs(Self.t(ms), EventCode.ABS_MT_POSITION_X, x) }
        if let y { writer.abs(Self.t(ms), EventCode.ABS_MT_POSITION_Y, y) }
    }

    mutating func up(_ slot: Int32, at ms: Double) {
        select(slot, ms)
        writer.abs(Self.t(ms), EventCode.ABS_MT_TRACKING_ID, -1)
    }

    mutating func report(at ms: Double) { writer.report(Self.t(ms)) }

    mutating func dropped(at ms: Double) { writer.event(Self.t(ms), EventCode.EV_SYN, EventCode.SYN_DROPPED, 0) }

    /// Parses what was written, through the text, as a file would be.
    func recording() throws -> EvemuRecording { try EvemuRecording.parse(writer.text, path: "generated.evemu") }
}

/// Decodes a whole recording on its own clock.
func frames(of recording: EvemuRecording, mapping: TouchMapping = TouchMapping(), size: Size? = nil) throws -> [TouchFrame] {
    let source = try RecordingSource(recording: recording, mapping: mapping, outputSize: size, start: .seconds(1000))
    return source.dispatch(now: .seconds(1_000_000))
}

/// Runs frames through the gesture recogniser over a large content; returns every output.
func gestures(_ frames: [TouchFrame], view size: Size, pixelsPerMillimetre: Double? = nil) throws -> [GestureOutput] {
    var view = try ScrollView(boundsSize: size, contentSize: Size(width: size.width * 4, height: size.height * 20))
    try view.setZoomScaleLimits(minimum: 1, maximum: 4)
    var configuration = GestureConfiguration()
    configuration.pixelsPerMillimetre = pixelsPerMillimetre
    var recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
    var outputs: [GestureOutput] = []
    for frame in frames {
        outputs += recognizer.handle(frame)
    }
    let end = (frames.last?.time ?? .zero) + .seconds(10)
    outputs += recognizer.fireTimers(upTo: end)
    outputs += recognizer.advance(to: end)
    return outputs
}

func gestureNames(_ outputs: [GestureOutput]) -> [String] {
    outputs.compactMap { if case let .gesture(g) = $0.kind { g.name } else { nil } }
}

func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-input-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
