import FlickCore
import Foundation
import Testing

/// `flickd replay` never reads the machine's wall clock or zone: with `[power] on_hours` the
/// same recording and config print byte-identical `--json` lines under any TZ, at any hour; the
/// hours are read on `--wall-clock` (UTC at the first event) and `--time-zone`, by default
/// 2000-01-01 12:00 UTC. Through the real binary.
@Suite struct ReplayWallClockTests {
    /// Within 07:30-22:00 the flicks scroll; outside it the panel is off from the start and the
    /// first flick only wakes it (swallowed whole).
    static let config = "[power]\non_hours = [\"07:30-22:00\"]\noff_after_s = 30\n"

    /// `flickd replay --json` of three flicks with `arguments`, under TZ=`zone`: its standard
    /// output as bytes.
    func replay(_ arguments: [String] = [], zone: String) throws -> String {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Recordings.flicks(at: [0.2, 2, 4]).write(toFile: dir + "/input.evemu", atomically: true, encoding: .utf8)
        try Self.config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["replay", dir + "/input.evemu", "--json", "--config", dir + "/flickd.toml"] + arguments,
                               environment: ["TZ": zone])
        guard run.status == 0 else { throw TestFailure("flickd replay exited \(run.status): \(run.err)") }
        return run.out
    }

    /// The `power` lines' state and reason.
    func power(_ out: String) -> [String] {
        out.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["type"] as? String == "power" else { return nil }
            return "\(o["state"] ?? "?") \(o["reason"] ?? "?")"
        }
    }

    @Test func theSameRecordingPrintsTheSameBytesInEveryZone() throws {
        let utc = try replay(zone: "UTC")
        #expect(try replay(zone: "Pacific/Kiritimati") == utc)
        #expect(try replay(zone: "America/Los_Angeles") == utc)
        // 12:00 UTC by default: on from the start, the flicks scroll, off 30 s after the last
        // (the replay runs on to its settle limit, well before 22:00).
        #expect(power(utc) == ["on start", "off idle"], "\(power(utc))")
        #expect(utc.contains("\"didEndDecelerating\""))
        // The same moment read at -05:00 is 07:00, before the hours: off from the start, the
        // first flick wakes the panel.
        let east = try replay(["--time-zone=-05:00"], zone: "UTC")
        #expect(power(east) == ["off start", "on touch", "off idle"], "\(power(east))")
        #expect(try replay(["--time-zone=-05:00"], zone: "Pacific/Kiritimati") == east)
    }

    @Test func theWallClockFlagMovesTheHours() throws {
        let night = try replay(["--wall-clock", "2026-11-29T23:10"], zone: "UTC")
        #expect(night != (try replay(zone: "UTC")))
        #expect(power(night) == ["off start", "on touch", "off idle"], "\(power(night))")
        // 21:59:59 at the first event: the hours end a second later, by the schedule.
        let late = try replay(["--wall-clock", "2026-11-29T21:59:59"], zone: "Pacific/Kiritimati")
        #expect(power(late) == ["on start", "off schedule", "on touch", "off idle"], "\(power(late))")
    }

    @Test func aWallClockOrZoneThatIsNoneIsAUsageError() throws {
        for arguments in [["--wall-clock", "noon"], ["--wall-clock", "2026-02-30T12:00"], ["--time-zone", "Europe/Berlin"]] {
            let run = try runBuilt("flickd", ["replay", "/nonexistent.evemu"] + arguments)
            #expect(run.status == 64 && run.err.contains(arguments[0]), "\(arguments): \(run.status) \(run.err)")
        }
    }
}
