import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// Acceptance 4: malformed recordings give a line-numbered error and never crash.
@Suite struct MalformedRecordingTests {
    /// A valid header and two events, then `line` as line 3 of the events.
    func text(appending line: String) -> String {
        var s = SlotScript()
        s.down(0, 1, 2, at: 0)
        s.report(at: 0)
        s.writer.raw(line)
        return s.writer.text
    }

    func lineOf(_ text: String, _ needle: String) -> Int {
        (text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(needle) } ?? -2) + 1
    }

    func error(_ text: String) -> EvemuError? {
        do {
            _ = try EvemuRecording.parse(text, path: "bad.evemu")
            return nil
        } catch {
            return error
        }
    }

    @Test func truncatedLine() throws {
        let t = text(appending: "E: 1000.020000 0003 0035")
        let e = try #require(error(t))
        #expect(e.line == lineOf(t, "E: 1000.020000 0003 0035") && e.path == "bad.evemu")
        #expect(e.description.contains("has 3 of 4 fields"))
    }

    @Test func badNumber() throws {
        for bad in ["E: 1000.02x000 0003 0035 12", "E: 1000.020000 00g3 0035 12", "E: 1000.020000 0003 0035 twelve",
                    "E: 1000.020000 0003 0035 99999999999"] {
            let t = text(appending: bad)
            let e = try #require(error(t), "\(bad)")
            #expect(e.line == lineOf(t, bad), "\(bad)")
            #expect(e.description.hasPrefix("bad.evemu:\(e.line): expected 'E: SECONDS.MICROSECONDS TYPE CODE VALUE'"))
        }
        let a = try #require(error("N: x\nA: 00 0 zero 0 0 0\n"))
        #expect(a.line == 2 && a.message.contains("not a decimal number"))
    }

    @Test func eventsBeforeTheHeader() throws {
        let t = "E: 1000.000000 0003 0035 1\nN: late header\nI: 0003 0000 0000 0000\n"
        let e = try #require(error(t))
        #expect(e.line == 1 && e.message.contains("header"))
        let orphan = try #require(error("I: 0003 0000 0000 0000\n"))
        #expect(orphan.line == 1 && orphan.message.contains("'N: NAME' as the first header line"))
    }

    @Test func unknownEventCode() throws {
        let t = text(appending: "E: 1000.020000 0003 0045 1")
        let e = try #require(error(t))
        #expect(e.line == lineOf(t, "0045") && e.message.contains("unknown event code 0x45 for type 0x3"))
        let type = try #require(error(text(appending: "E: 1000.020000 0033 0000 1")))
        #expect(type.message.contains("unknown event type 0x33"))
    }

    @Test func unknownHeaderLinesAreWarningsNotErrors() throws {
        let recording = try EvemuRecording.parse("N: dev\nX: something new\n" + SlotScript().writer.header.split(separator: "\n")
            .filter { !$0.hasPrefix("N:") }.joined(separator: "\n"), path: "w.evemu")
        #expect(recording.warnings == ["w.evemu:2: skipped unknown line 'X:'"])
    }

    @Test func missingFilesAndMissingDescriptionsSaySo() throws {
        #expect(throws: EvemuError.self) { try EvemuRecording.load(path: "/nonexistent/x.events") }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "E: 1.000000 0000 0000 0\n".write(toFile: dir + "/lonely.tap.events", atomically: true, encoding: .utf8)
        do {
            _ = try EvemuRecording.load(path: dir + "/lonely.tap.events")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("NAME.desc"))
        }
    }

    @Test func randomGarbageNeverCrashes() {
        var rng = SystemRandomNumberGenerator()
        let pieces = ["E:", "N:", "A:", "B:", "P:", "I:", "#", " ", "\n", "0003", "ff", "-1", "1.5", "x", "\t", "2f", ".", "99999999999999"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            _ = try? EvemuRecording.parse(text, path: "fuzz")
        }
    }

    @Test func bothLayoutsLoad() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = SlotScript()
        s.down(0, 10, 20, at: 0); s.report(at: 0); s.up(0, at: 30); s.report(at: 30)
        // One file with both.
        try s.writer.text.write(toFile: dir + "/panel.event", atomically: true, encoding: .utf8)
        // A description and an events file whose device name holds dots.
        try s.writer.header.write(toFile: dir + "/Acme Inc. Panel.desc", atomically: true, encoding: .utf8)
        try s.writer.eventsText.write(toFile: dir + "/Acme Inc. Panel.tap.events", atomically: true, encoding: .utf8)
        let one = try EvemuRecording.load(path: dir + "/panel.event")
        let two = try EvemuRecording.load(path: dir + "/Acme Inc. Panel.tap.events")
        #expect(one.events == two.events && one.description == two.description)
        #expect(one.description == s.writer.description)
    }
}
