import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// Acceptance 2: every real-panel recording in `$FLICKD_RECORDINGS` loads and gives what its
/// README describes. `.ci/run` (through scripts/test.sh) points the variable at
/// ../shared/recordings; without it these tests are skipped, and say so.
@Suite(.enabled(if: RealRecordings.folder != nil, "FLICKD_RECORDINGS is unset: the real-panel recording tests are skipped"))
struct RealRecordingTests {
    func load(_ name: String) throws -> EvemuRecording {
        try EvemuRecording.load(path: try #require(RealRecordings.folder) + "/" + name)
    }

    /// Decodes and recognises a recording on its own panel size.
    func run(_ name: String) throws -> (frames: [TouchFrame], outputs: [GestureOutput], size: Size) {
        let recording = try load(name)
        let source = try RecordingSource(recording: recording, start: .seconds(10))
        let frames = source.dispatch(now: .seconds(1_000_000))
        #expect(source.isFinished)
        return (frames, try gestures(frames, view: source.outputSize), source.outputSize)
    }

    /// Touches recognised as taps: single taps, and second taps of a double tap (with the
    /// default double-tap zoom, a tap within 300 ms of the last is the second of a pair).
    func taps(_ outputs: [GestureOutput]) -> Int {
        outputs.filter {
            switch $0.kind {
            case .gesture(.tap), .gesture(.doubleTap): true
            default: false
            }
        }.count
    }

    func scrolled(_ outputs: [GestureOutput]) -> Bool {
        outputs.contains { $0.kind == .scroll(.willBeginDragging) }
    }

    @Test func everyFileLoads() throws {
        let folder = try #require(RealRecordings.folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".event") || $0.hasSuffix(".events") }
        #expect(names.count >= 10)
        for name in names {
            let recording = try load(name)
            #expect(!recording.events.isEmpty, "\(name)")
            #expect(!recording.description.name.isEmpty, "\(name)")
        }
    }

    @Test func nonStandardEGalaxIsRejectedWithItsReason() throws {
        let recording = try load("eGalax Inc. USB TouchController.events")
        // Its capabilities say it is no touchscreen: replay judges it as the live daemon would.
        let verdict = TouchscreenClassifier.verdict(for: recording.description)
        #expect(!verdict.isTouchscreen)
        #expect(verdict.reason.hasPrefix("BTN_TOOL_PEN"), "\(verdict.reason)")
    }

    @Test func theOthersAreTouchscreens() throws {
        for name in ["3m.event", "wetab.event", "ntrig-dell-xt2.event", "Atmel maXTouch Touchscreen.1-finger-fast-taps.events",
                     "ELAN CANDO Windows7.1-finger-drag-up-down.events",
                     "eGalax_eMPIA Technology Inc. PCAP MultiTouch Controller.tap.events"] {
            let verdict = TouchscreenClassifier.verdict(for: try load(name).description)
            #expect(verdict.isTouchscreen, "\(name): \(verdict.reason)")
        }
    }

    @Test func nineFastTapsAreTapsDoubleTapsAndStops() throws {
        let (frames, outputs, size) = try run("Atmel maXTouch Touchscreen.1-finger-fast-taps.events")
        #expect(size == Size(width: 800, height: 480))
        #expect(frames.filter { !$0.began.isEmpty }.count == 9)
        // Taps 230 ms apart: two make a double tap, whose zoom animates for 0.3 s, and the next
        // lands while it visibly moves: it stops the zoom where it is and is no tap (as a touch
        // on moving content is not), so the pattern is tap, double tap, stop, three times.
        #expect(gestureNames(outputs) == Array(repeating: ["tap", "double-tap", "stop"], count: 3).flatMap { $0 },
                "\(gestureNames(outputs))")
        #expect(!scrolled(outputs) && !gestureNames(outputs).contains("drag"))
        // Each tap is also delivered to the content as a tap or as the second of a double tap.
        #expect(outputs.filter { if case .content(.tap) = $0.kind { true } else { false } }.count
                + gestureNames(outputs).filter { $0 == "double-tap" }.count == taps(outputs))
    }

    @Test func thirtyMicrosecondTapIsATap() throws {
        let (frames, outputs, _) = try run("eGalax_eMPIA Technology Inc. PCAP MultiTouch Controller.tap.events")
        #expect(frames.flatMap(\.began).count == 1)
        #expect(taps(outputs) == 1 && !scrolled(outputs))
    }

    @Test func dragsScroll() throws {
        for name in ["Atmel maXTouch Touchscreen.1-finger-drag-up-down.events", "ELAN CANDO Windows7.1-finger-drag-up-down.events",
                     "Atmel maXTouch Touchscreen.4-finger-drag-down.events"] {
            let (_, outputs, _) = try run(name)
            #expect(scrolled(outputs), "\(name)")
            #expect(taps(outputs) == 0, "\(name)")
        }
    }

    @Test func twoFingersDownAndUp() throws {
        let (frames, _, _) = try run("Atmel maXTouch Touchscreen.2-fingers-touch-release.events")
        #expect(frames.flatMap(\.began).count == 2)
        #expect(frames.map(\.contacts.count).max() == 2)
        #expect(frames.last?.contacts.isEmpty == true && frames.flatMap(\.cancelled).isEmpty)
    }

    @Test func wetabElevenTaps() throws {
        let (frames, outputs, _) = try run("wetab.event")
        #expect(frames.flatMap(\.began).count == 11)
        // Some are close enough to pair up as double taps; a touch during a double tap's zoom
        // stops it (see nineFastTapsAreTapsDoubleTapsAndStops): each touch is one tap or one stop.
        #expect(taps(outputs) + gestureNames(outputs).filter { $0 == "stop" }.count == 11, "\(gestureNames(outputs))")
        #expect(gestureNames(outputs).contains("double-tap"))
        #expect(!scrolled(outputs))
    }

    @Test func ntrigFourContactsWithoutIDs() throws {
        let recording = try load("ntrig-dell-xt2.event")
        #expect(recording.description.touchProtocol == .multiTouchA)
        let (frames, _, _) = try run("ntrig-dell-xt2.event")
        #expect(frames.map(\.contacts.count).max() == 4)
        #expect(frames.flatMap(\.began).count == 4)
        #expect(frames.last?.contacts.isEmpty == true)
    }

    @Test func threeMEndsWithItsContactsCancelled() throws {
        let (frames, outputs, _) = try run("3m.event")
        #expect(frames.map(\.contacts.count).max() == 10)
        let last = try #require(frames.last)
        #expect(last.contacts.isEmpty && !last.cancelled.isEmpty)
        #expect(scrolled(outputs) && taps(outputs) > 0)
    }
}

enum RealRecordings {
    /// The folder of real recordings, from the environment.
    static let folder: String? = {
        guard let path = ProcessInfo.processInfo.environment["FLICKD_RECORDINGS"], !path.isEmpty else {
            print("note: FLICKD_RECORDINGS is unset — skipping the real-panel recording tests")
            return nil
        }
        return path
    }()
}
