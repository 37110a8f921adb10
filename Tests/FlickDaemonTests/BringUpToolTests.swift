import FlickCore
@testable import FlickDaemon
import FlickSystem
import FlickInput
import Foundation
import Testing

/// `flickd events` and `flickd record` through recordings on the virtual clock: the exact lines
/// of a session, and a recording written through the live command's path replaying to the same
/// gestures as the touches it recorded.
@Suite struct BringUpToolTests {
    private func file(_ text: String, _ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-bringup-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func events(_ path: String, _ configuration: Configuration = Configuration(),
                        _ change: (inout Events.Options) -> Void = { _ in }) throws -> (lines: [String], reports: Int) {
        var options = Events.Options(recording: path)
        change(&options)
        var lines: [String] = []
        let reports = try Events.run(options, configuration: configuration, out: { lines.append($0) }, note: { _ in })
        return (lines, reports)
    }

    /// A tap, then a 10-report drag, on a panel whose touch axes are turned 180°.
    private func tapAndDrag() -> TouchScript {
        var script = TouchScript(description: .slotTouchscreen(width: 800, height: 480))
        script.tap(at: 100, 50, t: 0)
        script.drag(from: (400, 400), to: (400, 160), seconds: 0.08, t: 1)
        return script
    }

    @Test func eachContactInDeviceUnitsAndScreenPixelsTheRateAndTheGestures() throws {
        let path = try file(tapAndDrag().text, "tap-drag.event")
        var configuration = Configuration()
        configuration.touchMapping = TouchMapping(rotation: 180)
        let (lines, reports) = try events(path, configuration)
        #expect(Array(lines.prefix(7)) == [
            "device \(path) 'flickd test touchscreen (B)': protocol B, x 0…799, y 0…479, 10 slots",
            "screen 800x480 px, touch rotation 180, calibration none",
            "    0.000 s  #1 down  slot 0  dev (100, 50)  px (699.0, 429.0)",
            "    0.090 s  #1 up  px (699.0, 429.0)",
            "    0.090 s  gesture: tap at (699, 429)",
            "    1.000 s  #2 down  slot 0  dev (400, 400)  px (399.0, 79.0)",
            "    1.008 s  #2 move  slot 0  dev (400, 376)  px (399.0, 103.0)",
        ])
        #expect(lines.contains("    1.080 s  #2 move  slot 0  dev (400, 160)  px (399.0, 319.0)"))
        #expect(lines.contains("    1.088 s  #2 up  px (399.0, 319.0)"))
        #expect(lines.contains { $0.hasPrefix("    1.088 s  gesture: flick down ") })
        #expect(lines.last == "rate over the run: 125.0 reports/s, interval median 8.00 ms, p95 8.00 ms, jitter 0.00 ms (10 intervals)")
        #expect(reports == 14)
        #expect(!lines.contains { $0.contains("pressure") || $0.contains("major") || $0.contains("SYN_DROPPED") })
    }

    @Test func pressureAndSizeOnlyWhenTheDeviceHasThem() throws {
        var d = DeviceDescription.slotTouchscreen(width: 800, height: 480)
        d.setAxis(EventCode.ABS_MT_PRESSURE, AbsAxis(minimum: 0, maximum: 255))
        d.setAxis(EventCode.ABS_MT_TOUCH_MAJOR, AbsAxis(minimum: 0, maximum: 30))
        var w = EvemuWriter(description: d)
        let t = Instant.seconds(5)
        w.abs(t, EventCode.ABS_MT_SLOT, 0); w.abs(t, EventCode.ABS_MT_TRACKING_ID, 7)
        w.abs(t, EventCode.ABS_MT_POSITION_X, 10); w.abs(t, EventCode.ABS_MT_POSITION_Y, 20)
        w.abs(t, EventCode.ABS_MT_PRESSURE, 57); w.abs(t, EventCode.ABS_MT_TOUCH_MAJOR, 9); w.report(t)
        let t2 = t + .milliseconds(10)
        w.abs(t2, EventCode.ABS_MT_PRESSURE, 60); w.report(t2)
        let path = try file(w.text, "pressure.event")
        let (lines, _) = try events(path)
        #expect(lines[0].hasSuffix("10 slots, pressure 0…255, touch major 0…30"))
        #expect(lines[2] == "    0.000 s  #1 down  slot 0  dev (10, 20)  px (10.0, 20.0)  pressure 57  major 9")
        // Only the pressure changed: still a line, since the device said something new.
        #expect(lines[3] == "    0.010 s  #1 move  slot 0  dev (10, 20)  px (10.0, 20.0)  pressure 60  major 9")
    }

    @Test func droppedEventsAreNamedAndTheRateSaysItsJitter() throws {
        var script = TouchScript(description: .slotTouchscreen(width: 800, height: 480))
        script.down(0, 100, 100, 0); script.report(0)
        script.move(0, 110, 100, 0.008); script.report(0.008)
        script.move(0, 120, 100, 0.020); script.report(0.020)   // a late report: 12 ms
        var writer = script.writer
        writer.event(script.time(0.025), EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)
        writer.abs(script.time(0.026), EventCode.ABS_MT_POSITION_X, 999)   // garbage until the report
        writer.report(script.time(0.026))
        writer.abs(script.time(0.028), EventCode.ABS_MT_POSITION_X, 130); writer.report(script.time(0.028))
        let path = try file(writer.text, "dropped.event")
        let (lines, _) = try events(path)
        #expect(lines.contains("    0.025 s  SYN_DROPPED on \(path): events lost, the next report resynchronises"))
        #expect(lines.contains("    0.028 s  #1 move  slot 0  dev (130, 100)  px (130.0, 100.0)"))
        #expect(!lines.contains { $0.contains("dev (999") })
        // Intervals 8, 12 and 8 ms: median 8, p95 12, jitter (median distance from the median) 0.
        #expect(lines.last == "rate over the run: 125.0 reports/s, interval median 8.00 ms, p95 12.00 ms, jitter 0.00 ms (3 intervals)")
    }

    @Test func aCountOrADurationStopsTheSession() throws {
        let path = try file(tapAndDrag().text, "tap-drag.event")
        #expect(try events(path) { $0.count = 3 }.reports == 3)
        let (lines, reports) = try events(path) { $0.duration = .milliseconds(500) }
        #expect(reports == 2 && lines.contains("    0.090 s  gesture: tap at (400, 240)") == false)
        #expect(lines.contains { $0.contains("gesture: tap at (100, 50)") })
    }

    @Test func periodicRateLinesAndTheirFigures() {
        var rate = ReportRate()
        for (t, continuing) in [(0, false), (8, true), (16, true), (25, true), (33, true), (63, true), (300, true), (308, false)] {
            rate.add(.milliseconds(Double(t)), continuing: continuing)
        }
        // 8, 8, 9, 8 and 30 ms; the 237 ms pause and the new touch's first report are left out.
        let summary = rate.takeWindow()
        #expect(summary?.intervals == 5 && summary?.median == 8 && summary?.p95 == 30 && summary?.jitter == 0)
        #expect(rate.takeWindow() == nil)
        #expect(rate.total == summary)
    }

    // MARK: record

    /// A device whose reads are scripted batches of a recording's events.
    final class ScriptedReader: EventReader {
        let path = "/dev/input/event-scripted"
        let description: DeviceDescription
        let fileDescriptor = Descriptor(owning: -1)
        var batches: [[ReadItem]]
        var seed: [InputEvent] = []

        init(_ recording: EvemuRecording, batch: Int, droppedAfter: Int? = nil) {
            description = recording.description
            var items = recording.events.map { ReadItem.event($0) }
            if let droppedAfter { items.insert(.dropped, at: droppedAfter) }
            batches = stride(from: 0, to: items.count, by: batch).map { Array(items[$0..<min(items.count, $0 + batch)]) }
        }

        func read() -> (items: [ReadItem], removed: Bool) {
            guard !batches.isEmpty else { return ([], true) }
            return (batches.removeFirst(), false)
        }

        func close() {}

        func lastValues() -> [InputEvent] { seed }
    }

    /// A tap whose X the kernel left out (the last finger lifted at the same X), after a
    /// device state that holds it.
    private func tapWithoutX() throws -> (recording: EvemuRecording, seed: [InputEvent]) {
        var w = EvemuWriter(description: .slotTouchscreen(width: 800, height: 480))
        let t = Instant.seconds(100)
        w.abs(t, EventCode.ABS_MT_TRACKING_ID, 5); w.abs(t, EventCode.ABS_MT_POSITION_Y, 60); w.report(t)
        w.abs(t + .milliseconds(90), EventCode.ABS_MT_TRACKING_ID, -1); w.report(t + .milliseconds(90))
        let seed = [InputEvent(time: t - .seconds(1), type: EventCode.EV_ABS, code: EventCode.ABS_MT_SLOT, value: 0),
                    InputEvent(time: t - .seconds(1), type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_X, value: 100),
                    InputEvent(time: t - .seconds(1), type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_Y, value: 50),
                    InputEvent(time: t - .seconds(1), type: EventCode.EV_ABS, code: EventCode.ABS_MT_SLOT, value: 0),
                    InputEvent(time: t - .seconds(1), type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)]
        return (try EvemuRecording.parse(w.text, path: "tap-without-x.event"), seed)
    }

    @Test func aRecordingStartsWithWhatTheKernelWillNotRepeat() throws {
        let (recording, seed) = try tapWithoutX()
        let path = try file("", "seeded.event")
        let reader = ScriptedReader(recording, batch: 4)
        reader.seed = seed
        let recorder = try EvemuRecorder(reader: reader, path: path)
        while try !recorder.drain() {}
        try recorder.finish()
        let (lines, _) = try events(path)
        #expect(lines.contains("    1.000 s  #1 down  slot 0  dev (100, 60)  px (100.0, 60.0)"))
        #expect(lines.contains("    1.090 s  gesture: tap at (100, 60)"))
        // Without the device's last values the contact has no X: no touch at all.
        let bare = try file("", "bare.event")
        let unseeded = try EvemuRecorder(reader: ScriptedReader(recording, batch: 4), path: bare)
        while try !unseeded.drain() {}
        try unseeded.finish()
        #expect(try events(bare).lines.contains { $0.contains("gesture: tap") } == false)
    }

    @Test func aLiveDeviceIsDecodedFromItsLastValues() throws {
        let (recording, seed) = try tapWithoutX()
        let dir = try file("", "event7")
        let folder = String(dir[..<dir.lastIndex(of: "/")!])
        let reader = ScriptedReader(recording, batch: 100)
        reader.seed = seed
        let input = TouchInput(options: TouchInputOptions(directory: folder, outputSize: Size(width: 800, height: 480)),
                               opener: { _, _ in reader }, calibration: { _ in nil })
        let frames = input.dispatch(now: .seconds(200))
        #expect(frames.first?.contacts.first?.position == Point(x: 100, y: 60))
    }

    private func gestures(_ path: String) throws -> (names: [String], offset: Point) {
        let sink = KeptOutputs()
        let summary = try Replay.run(Replay.Options(recording: path), configuration: Configuration(), sink: sink, note: { _ in })
        let names = sink.outputs.compactMap { if case let .gesture(g) = $0.kind { g.name } else { nil } }
        return (names, summary.offset)
    }

    @Test func aRecordingOfTheDeviceReplaysToTheSameGestures() throws {
        var script = tapAndDrag()
        script.hold(at: 300, 200, seconds: 0.7, t: 5)
        let original = try file(script.text, "original.event")
        let recording = try EvemuRecording.load(path: original)
        let recorded = original.replacingOccurrences(of: "original", with: "recorded")
        let recorder = try EvemuRecorder(reader: ScriptedReader(recording, batch: 7), path: recorded)
        while try !recorder.drain() {}
        try recorder.finish()
        #expect(recorder.events == recording.events.count)

        let text = try String(contentsOfFile: recorded, encoding: .utf8)
        #expect(text.hasSuffix(" 0000 0000 0\n"))   // whole lines, the last a SYN_REPORT
        let back = try EvemuRecording.load(path: recorded)
        #expect(back.description == recording.description)
        #expect(back.events.first?.time == .zero)   // times from the first event, as evemu-record writes them
        let expected = try gestures(original)
        #expect(expected.names == ["tap", "flick", "bounce", "long-press"])
        #expect(try gestures(recorded).names == expected.names)
        #expect(try gestures(recorded).offset == expected.offset)
    }

    /// `flickd record /dev/input/event3` with FILE forgotten: the node is the file argument.
    /// Text written into a device node would reach the kernel (as input events, for a uinput or
    /// evdev node the group may write): only a regular file or a pipe is recorded into.
    @Test func aDeviceNodeIsNoFileToRecordInto() throws {
        let recording = try EvemuRecording.load(path: try file(tapAndDrag().text, "original.event"))
        #expect(throws: EvemuError.self) { _ = try EvemuRecorder(reader: ScriptedReader(recording, batch: 7), path: "/dev/null") }
        do { _ = try EvemuRecorder(reader: ScriptedReader(recording, batch: 7), path: "/dev/null") } catch {
            #expect(error.kind == .usage && "\(error)".contains("not a file to record into"), "\(error)")
        }
    }

    @Test func droppedEventsAreRecordedSoTheReplayResynchronises() throws {
        let original = try file(tapAndDrag().text, "original.event")
        let recording = try EvemuRecording.load(path: original)
        let recorded = original.replacingOccurrences(of: "original", with: "recorded")
        let recorder = try EvemuRecorder(reader: ScriptedReader(recording, batch: 5, droppedAfter: 30), path: recorded)
        while try !recorder.drain() {}
        try recorder.finish()
        #expect(recorder.dropped == 1)
        let back = try EvemuRecording.load(path: recorded)
        #expect(back.events.count == recording.events.count + 2)
        let (lines, _) = try events(recorded)
        #expect(lines.contains { $0.contains("SYN_DROPPED on \(recorded)") })
    }

    @Test func aFileThatCannotBeWrittenIsAnIOError() throws {
        let recording = try EvemuRecording.load(path: try file(tapAndDrag().text, "x.event"))
        #expect {
            _ = try EvemuRecorder(reader: ScriptedReader(recording, batch: 1), path: "/nonexistent-dir/x.event")
        } throws: { ($0 as? EvemuError)?.kind == .io }
    }
}
