import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// What fuzzing the evemu parser found (RELIABILITY.md, "Fuzzing"), and its whole corpus
/// (Fuzz/Corpus/evemu, Fuzz/Regressions/evemu) through the parser and a replay.
@Suite struct FuzzRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static let header = EvemuWriter(description: .slotTouchscreen(width: 800, height: 480)).header

    /// Seconds past what an `Instant` holds used to wrap into a time long before the others,
    /// and crashed `EvemuWriter` writing it back.
    @Test func aTimestampBeyondAnInstantIsALineError() throws {
        let lines = Self.header.split(separator: "\n").count
        let last = EvemuParser.maximumSeconds
        let ok = try EvemuRecording.parse(Self.header + "E: \(last).999999 0000 0000 0\n", path: "ok.evemu")
        #expect(ok.events.first?.time.nanoseconds == last * 1_000_000_000 + 999_999_000)
        #expect(throws: EvemuError(path: "big.evemu", line: lines + 1, message:
            "expected 'E: SECONDS.MICROSECONDS TYPE CODE VALUE' (type and code in hex); '\(last + 1).000000' is not a timestamp")) {
            try EvemuRecording.parse(Self.header + "E: \(last + 1).000000 0000 0000 0\n", path: "big.evemu")
        }
    }

    /// The fuzzer's input itself: refused at its line 39.
    @Test func theFoundRecordingIsRefusedAtItsLine() throws {
        let path = Self.fuzz.appendingPathComponent("Regressions/evemu/timestamp-beyond-instant.evemu").path
        let error = try #require(throws: EvemuError.self) { try EvemuRecording.load(path: path) }
        #expect(error.line == 39 && error.message.contains("'170000000700000000.024000' is not a timestamp"))
    }

    /// "\r\n" is one Character in Swift: a CRLF file used to read as a single line.
    @Test func crlfLineEndingsReadLikeLF() throws {
        var script = TouchScript(description: .slotTouchscreen(width: 800, height: 480))
        script.tap(at: 100, 200, t: 0.1)
        let lf = try EvemuRecording.parse(script.text, path: "lf.evemu")
        let crlf = try EvemuRecording.parse(script.text.replacingOccurrences(of: "\n", with: "\r\n"), path: "crlf.evemu")
        #expect(crlf.description == lf.description && crlf.events == lf.events && !lf.events.isEmpty)
        let bad = Self.header.replacingOccurrences(of: "\n", with: "\r\n") + "E: 1.0 0003 0035\r\n"
        #expect(throws: EvemuError.self) { try EvemuRecording.parse(bad, path: "crlf.evemu") }
        let lines = Self.header.split(separator: "\n").count
        do { _ = try EvemuRecording.parse(bad, path: "crlf.evemu") } catch { #expect(error.line == lines + 1) }
    }

    /// A device name that starts with a combining mark, written back as `N: NAME`, reads as the
    /// same name: the blank and the mark are one Character, so fields are split on scalars
    /// (RELIABILITY.md, fuzzing #25; Fuzz/Regressions/evemu/name-starting-with-a-combining-mark.evemu).
    @Test func aNameStartingWithACombiningMarkSurvivesARoundTrip() throws {
        let name = "\u{059E}\u{FFFD} flick\t\tW"
        var script = TouchScript(description: .slotTouchscreen(name: name, width: 800, height: 480))
        script.tap(at: 100, 200, t: 0.1)
        let recording = try EvemuRecording.parse(script.text, path: "mark.evemu")
        #expect(recording.description.name == name)
        var writer = EvemuWriter(description: recording.description)
        for e in recording.events { writer.event(e.time, e.type, e.code, e.value) }
        let again = try EvemuRecording.parse(writer.text, path: "again.evemu")
        #expect(again.description == recording.description && again.events == recording.events)
    }

    /// A protocol A device repeating a tracking id within one frame used to make one contact
    /// appear twice in `contacts` (the evdev target's input in Fuzz/Regressions/evdev).
    @Test func aRepeatedProtocolATrackingIDGivesTwoContacts() throws {
        let d = DeviceDescription.protocolATouchscreen(width: 800, height: 480, trackingIDs: true)
        let transform = try #require(TouchTransform(description: d, mapping: TouchMapping(), outputSize: Size(width: 800, height: 480)))
        var decoder = TouchDecoder(description: d, transform: transform)
        func frame(_ ms: Int64, _ points: [(Int32, Int32)]) -> TouchFrame? {
            let t = Instant(nanoseconds: ms * 1_000_000)
            for (x, y) in points {
                for (code, value) in [(EventCode.ABS_MT_TRACKING_ID, Int32(5)), (EventCode.ABS_MT_POSITION_X, x), (EventCode.ABS_MT_POSITION_Y, y)] {
                    _ = decoder.feed(InputEvent(time: t, type: EventCode.EV_ABS, code: code, value: value))
                }
                _ = decoder.feed(InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_MT_REPORT, value: 0))
            }
            return decoder.feed(InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0))
        }
        let first = try #require(frame(0, [(10, 10), (400, 300)]))
        #expect(Set(first.contacts.map(\.id)).count == 2 && first.began.count == 2)
        let second = try #require(frame(8, [(12, 10), (402, 300)]))
        #expect(second.contacts.map(\.id) == first.contacts.map(\.id) && second.began.isEmpty && second.ended.isEmpty)
        #expect(second.contacts.map(\.position) == [Point(x: 12, y: 10), Point(x: 402, y: 300)])
    }

    /// Every seed and every input the fuzzer kept: read, or refused at a line of the file; read
    /// ones replay to the end with no contact left down.
    @Test func everyCorpusFileParsesOrNamesALine() throws {
        var count = 0
        for folder in ["Corpus/evemu", "Regressions/evemu"] {
            let dir = Self.fuzz.appendingPathComponent(folder).path
            for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() {
                count += 1
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), as: UTF8.self)
                let lines = text.unicodeScalars.filter { $0 == "\n" }.count + 1
                do {
                    let recording = try EvemuRecording.parse(text, path: name)
                    guard let source = try? RecordingSource(recording: recording, start: .seconds(1000)) else { continue }
                    let frames = source.dispatch(now: Instant(nanoseconds: .max))
                    #expect(source.isFinished, "\(name)")
                    #expect(frames.last.map(\.contacts.isEmpty) ?? true, "\(name): contacts left down")
                } catch {
                    #expect((0...lines).contains(error.line), "\(name): \(error)")
                }
            }
        }
        #expect(count >= 8)
    }
}
