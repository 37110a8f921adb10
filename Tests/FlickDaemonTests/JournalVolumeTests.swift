import FlickCore
@testable import FlickDaemon
import Logging
import Testing

/// How many journal lines a busy kiosk's gestures make at each `log.gestures` level, counted over
/// one generated stream of every kind of gesture through the pipeline on virtual time; what
/// "all" writes is what `GestureLog` says, field for field; the key's values and errors; a
/// reload moving between levels. The figures are RELIABILITY.md's "Journal volume".
@Suite struct JournalVolumeTests {
    /// One stream of 1000 gestures, every level beside it.
    static func thousand() throws -> JournalVolumeRun {
        let run = try JournalVolumeRun(levels: GestureLogLevel.allCases)
        run.run(gestures: 1000)
        for j in run.journals { j.journal.flush(at: run.now) }
        return run
    }

    @Test func linesPerThousandGesturesAtEachLevel() throws {
        let run = try Self.thousand()
        let all = run.log(.all).lines, summary = run.log(.summary).lines, none = run.log(.none).lines
        let minutes = Int(((run.now - Instant.seconds(10)).inSeconds / 60).rounded(.up))
        var kinds: [String: Int] = [:]
        for line in all { kinds[line.metadata["gesture"]?.description ?? "?", default: 0] += 1 }
        func bytes(_ lines: [CapturedLog.Line]) -> Int { lines.map { $0.journalFields.map(\.utf8.count).reduce(0, +) }.reduce(0, +) }
        print("journal volume: \(run.generated.map { "\($0.value) \($0.key)" }.sorted()) gestures over \(minutes) min;"
              + " all \(all.count) lines \(kinds.sorted { $0.key < $1.key }) \(bytes(all)) bytes of fields,"
              + " summary \(summary.count) lines \(bytes(summary)) bytes, none \(none.count);"
              + " other lines (diagnostics, notices) \(run.otherLines)")

        // "all": one line per entry GestureLog names, nothing else, and one at least per gesture made.
        #expect(all.count == run.entries.count && all.count >= 1000)
        #expect((kinds["tap"] ?? 0) >= (run.generated[.tap] ?? 0))
        #expect(kinds["flick"] == run.generated[.flick] && kinds["drag"] == run.generated[.drag] && kinds["pinch"] == run.generated[.pinch])
        // A double tap or a long press that lands while the content still moves is a stop instead.
        let held = (kinds["double-tap"] ?? 0) + (kinds["long-press"] ?? 0) + (kinds["stop"] ?? 0)
        #expect(held >= (run.generated[.doubleTap] ?? 0) + (run.generated[.longPress] ?? 0))
        // "summary": the first gesture in full, then at most one line a minute, counting every entry.
        #expect(summary.first?.message == all.first?.message && summary.first?.metadata["gesture"] != nil)
        let tallies = summary.dropFirst()
        #expect(tallies.count <= minutes && tallies.count >= minutes / 2)
        #expect(tallies.allSatisfy { $0.metadata["gesture"] == nil && $0.level == .info })
        let counted = tallies.map { Int($0.metadata["gestures"]?.description ?? "") ?? 0 }.reduce(0, +)
        #expect(counted == all.count)
        // "none": nothing.
        #expect(none.isEmpty)
    }

    @Test func allWritesWhatGestureLogSaysFieldForField() throws {
        let run = try JournalVolumeRun(levels: [.all])
        run.run(gestures: 200)
        let lines = run.log(.all).lines
        #expect(lines.count == run.entries.count && !lines.isEmpty)
        for (line, entry) in zip(lines, run.entries) {
            let fields = ["MESSAGE=\(entry.message)", "PRIORITY=6", "SYSLOG_IDENTIFIER=flickd"]
                + entry.fields.sorted { $0.key < $1.key }.map { "FLICK_\($0.key)=\($0.value)" }
            #expect(line.journalFields == fields)
        }
        // A flick's line as JournalTests shows its fields.
        let flick = try #require(lines.first { $0.metadata["gesture"] == "flick" })
        for field in ["FLICK_GESTURE=flick", "FLICK_VELOCITY_X=", "FLICK_VELOCITY_Y=", "FLICK_REST_X=", "FLICK_REST_Y=",
                      "FLICK_DISTANCE=", "FLICK_DURATION=", "FLICK_OFFSET_X=", "FLICK_OFFSET_Y=", "FLICK_ZOOM="] {
            #expect(flick.journalFields.contains { $0.hasPrefix(field) }, "\(field)")
        }
    }

    @Test func aSummaryCountsAMinuteByKindAndSaysNothingWhileIdle() throws {
        let run = try JournalVolumeRun(levels: [.summary])
        run.run(gestures: 40)
        let idleFrom = run.now
        run.advance(to: idleFrom + .seconds(3600))
        let lines = run.log(.summary).lines
        let tallies = lines.dropFirst()
        let last = try #require(tallies.last)
        // The last tally is written a minute after its first gesture, not at the next gesture.
        #expect(run.journals[0].journal.nextDeadline == nil)
        #expect(last.metadata["window"] == "60")
        for tally in tallies {
            let counts = tally.metadata.filter { $0.key.hasPrefix("count_") }.map { Int($0.value.description) ?? 0 }
            #expect(counts.reduce(0, +) == Int(tally.metadata["gestures"]?.description ?? ""), "\(tally.message)")
            #expect(tally.message.hasPrefix("\(tally.metadata["gestures"]!) gesture"), "\(tally.message)")
        }
        // An hour idle: no line after the last tally.
        let more = run.log(.summary).lines.count
        run.advance(to: idleFrom + .seconds(7200))
        #expect(run.log(.summary).lines.count == more)
    }

    @Test func aReloadMovesBetweenLevelsAndLosesNoCount() throws {
        let run = try JournalVolumeRun(levels: [.all])
        let journal = run.journals[0].journal, log = run.log(.all)
        func reload(_ level: GestureLogLevel) {
            var c = Configuration()
            c.logGestures = level
            journal.apply(c, at: run.now)
        }
        run.run(gestures: 30)
        #expect(log.lines.count == run.entries.count)
        // To summary: the next gesture in full, then tallies.
        reload(.summary)
        let atSummary = (lines: log.lines.count, entries: run.entries.count)
        run.run(gestures: 30)
        #expect(log.lines[atSummary.lines].message == run.entries[atSummary.entries].message)
        #expect(log.lines.count < atSummary.lines + 10)
        // To none: the open tally is written at the reload, then nothing.
        reload(.none)
        let tallied = log.lines[(atSummary.lines + 1)...].map { Int($0.metadata["gestures"]?.description ?? "") ?? 0 }.reduce(0, +)
        #expect(tallied == run.entries.count - atSummary.entries)
        #expect(journal.nextDeadline == nil)
        let atNone = (lines: log.lines.count, entries: run.entries.count)
        run.run(gestures: 30)
        #expect(log.lines.count == atNone.lines && run.entries.count > atNone.entries)
        // Back to all: every entry again.
        reload(.all)
        let atAll = (lines: log.lines.count, entries: run.entries.count)
        run.run(gestures: 10)
        #expect(log.lines.count - atAll.lines == run.entries.count - atAll.entries)
    }

    @Test func theKeyTakesALevelOrTheOldTrueAndFalse() throws {
        for (text, level) in [("\"all\"", GestureLogLevel.all), ("\"summary\"", .summary), ("\"none\"", .none),
                              ("true", .all), ("false", .none)] {
            let c = try ConfigLoader.parse("[log]\ngestures = \(text)\n", path: "flickd.toml")
            #expect(c.logGestures == level, "\(text)")
        }
        for (text, found) in [("\"some\"", "\"some\""), ("1", "1"), ("\"true\"", "\"true\""), ("1.5", "1.5")] {
            let e = try #require(configError("\n[log]\ngestures = \(text)\n"), "\(text)")
            #expect(e.key == "log.gestures" && e.line == 3 && e.path == "flickd.toml", "\(e)")
            #expect(e.message.contains("expected \"all\", \"summary\" or \"none\" (true is \"all\", false is \"none\"), got \(found)"),
                    "\(e.message)")
        }
    }
}
