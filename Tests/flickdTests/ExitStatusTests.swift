import Foundation
import Testing

/// Runtime and data errors are said alone — `flickd: ` and the error's one rendering, no usage
/// text after it — with a sysexits status by kind (flickd(8)); usage errors are 64.
@Suite struct ExitStatusTests {
    @Test func eachKindOfFailureHasItsStatusAndNoUsageText() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let empty = dir + "/empty.toml"
        try "".write(toFile: empty, atomically: true, encoding: .utf8)
        try "[scroll]\nspring_mass = -1\n".write(toFile: dir + "/bad.toml", atomically: true, encoding: .utf8)
        try "N: broken\nE: x\n".write(toFile: dir + "/bad.evemu", atomically: true, encoding: .utf8)
        let cases: [([String], Int32, String)] = [
            (["replay", dir + "/missing.evemu", "--config", empty], 66, "flickd: \(dir)/missing.evemu: no such file"),
            (["replay", dir + "/bad.evemu", "--config", empty], 65, "flickd: \(dir)/bad.evemu:2: expected"),
            (["check-config", dir + "/bad.toml", "--user", FlickdProcess.user], 78, "flickd: \(dir)/bad.toml:2: scroll.spring_mass: expected a number greater than 0, got -1"),
            (["run", "--config", empty, "--input", "event4"], 64, "flickd: --input: expected auto"),
            (["replay", dir + "/bad.evemu", "--config", empty, "--display", "drm"], 64, "flickd: --display: expected headless"),
        ]
        for (arguments, status, message) in cases {
            let run = try runBuilt("flickd", arguments)
            #expect(run.status == status, "\(arguments): \(run.err)")
            #expect(run.err.hasPrefix(message), "\(arguments): \(run.err)")
            #expect(!run.err.contains("USAGE") && !run.err.contains("Usage"), "\(arguments): \(run.err)")
        }
    }
}
