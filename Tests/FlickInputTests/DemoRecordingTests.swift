import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// The bundled demo recording is the generator's output, and it plays as scripted.
@Suite struct DemoRecordingTests {
    static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("demo/flick-demo.event").path

    @Test func committedFileIsTheGeneratorsOutput() throws {
        if ProcessInfo.processInfo.environment["FLICKD_REGENERATE_DEMO"] == "1" {
            try DemoRecording.text().write(toFile: Self.committed, atomically: true, encoding: .utf8)
        }
        let text = try String(contentsOfFile: Self.committed, encoding: .utf8)
        #expect(text == DemoRecording.text(), "demo/flick-demo.event is stale: run FLICKD_REGENERATE_DEMO=1 swift test --filter DemoRecordingTests")
    }

    @Test func itPlaysItsScript() throws {
        let recording = try EvemuRecording.parse(DemoRecording.text(), path: "demo")
        let source = try RecordingSource(recording: recording, start: .seconds(1))
        #expect(source.outputSize == Size(width: 800, height: 480))
        let frames = source.dispatch(now: .seconds(100))
        let names = gestureNames(try gestures(frames, view: source.outputSize, pixelsPerMillimetre: source.pixelsPerMillimetre))
        // A pinch ends at its first lift; the pan the last finger carries on ends as a drag.
        #expect(names == ["tap", "flick", "drag", "pinch", "drag", "pinch", "drag", "tap", "double-tap", "long-press"], "\(names)")
    }
}
