import FlickCore
import FlickInput
import Foundation
import Testing

/// `flickd calibrate` as a user runs it, on a recording of taps on a panel that needs a known
/// matrix: the targets it asks for, the residuals, the two output lines, `--write`, and the
/// command-line errors with their statuses.
@Suite struct CalibrateCommandTests {
    /// A stretch and a shift, no shear: the panel needs x' = 1.05·x − 0.02, y' = 0.96·y + 0.03.
    static let matrix = [1.05, 0, -0.02, 0, 0.96, 0.03]

    /// Taps aimed at the five default targets of a 1024x768 screen, on 0…65535 axes.
    static func recording(in dir: String, taps: Int = 5) throws -> String {
        let targets = try CalibrationTargets.layout(count: 5, in: Size(width: 1024, height: 768)).prefix(taps)
        var script = TouchScript(description: .slotTouchscreen(name: "calibrate panel", width: 65536, height: 65536))
        script.idle(0)
        var t = 0.2
        for p in targets {
            let u = ((p.x / 1023) - matrix[2]) / matrix[0], v = ((p.y / 767) - matrix[5]) / matrix[4]
            t = script.hold(at: u * 65535, v * 65535, seconds: 0.06, t: t + 1)
        }
        let path = dir + "/taps.events"
        try script.text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func printsTheTargetsTheResidualsAndBothLines() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let taps = try Self.recording(in: dir)
        try "".write(toFile: dir + "/empty.toml", atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["calibrate", "--recording", taps, "--display", "headless:1024x768",
                                          "--config", dir + "/empty.toml"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("target ") && $0.contains(" at (") }
                == ["target 1/5 at (102, 77)", "target 2/5 at (921, 77)", "target 3/5 at (102, 690)", "target 4/5 at (921, 690)",
                    "target 5/5 at (512, 384)"])
        #expect(lines.contains { $0.hasPrefix("residuals: rms 0.0") }, "\(run.out)")
        let toml = try #require(lines.first { $0.hasPrefix("calibration = [") })
        let numbers = toml.dropFirst("calibration = [".count).dropLast().split(separator: ",").compactMap { Double($0.trimmingBlanks()) }
        #expect(numbers.count == 6)
        for (got, want) in zip(numbers, Self.matrix) { #expect(abs(got - want) < 1e-4, "\(toml)") }
        #expect(lines.contains { $0.contains("ATTRS{name}==\"calibrate panel\"") && $0.contains("ENV{LIBINPUT_CALIBRATION_MATRIX}=\"1.0") })
    }

    @Test func writeSetsTheConfigKeyAndKeepsTheRest() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let taps = try Self.recording(in: dir)
        let config = dir + "/flickd.toml"
        try "# my panel\n[input]\n# the old one\ncalibration = [2, 0, 0, 0, 2, 0]\ngrab = false\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = try runBuilt("flickd", ["calibrate", "--recording", taps, "--display", "headless:1024x768", "--config", config, "--write"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("wrote calibration = [") && !run.out.contains("LIBINPUT_CALIBRATION_MATRIX"))
        let text = try String(contentsOfFile: config, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 6 && lines[0] == "# my panel" && lines[2] == "# the old one" && lines[4] == "grab = false")
        #expect(lines[3].hasPrefix("calibration = [1.05"), "\(text)")
        #expect(try runBuilt("flickd", ["check-config", config, "--user", FlickdProcess.user]).status == 0)
    }

    @Test func badArgumentsAndShortRecordingsFailWithTheirStatus() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let short = try Self.recording(in: dir, taps: 2)
        try "".write(toFile: dir + "/empty.toml", atomically: true, encoding: .utf8)
        let base = ["calibrate", "--display", "headless:1024x768", "--config", dir + "/empty.toml"]
        let cases: [([String], Int32, String)] = [
            (base + ["--recording", short, "--points", "2"], 64, "--points takes 3 to 25"),
            (base + ["--recording", short, "--timeout", "0"], 64, "--timeout takes seconds above 0"),
            (base + ["--recording", short], 65, "flickd: evemu:\(short): the input ended after 2 of 5 targets"),
            // The first tap comes 1.2 s in (virtual time): past a 0.5 s timeout.
            (base + ["--recording", short, "--timeout", "0.5"], 69, "flickd: calibrate: no touch on target 1/5 within 0.5 s (--timeout)"),
            (["calibrate", "--recording", short, "--display", "drm", "--config", dir + "/empty.toml"], 64, "flickd: --display: expected headless"),
            (["calibrate", "--recording", short, "--write", "--config", dir + "/missing.toml"], 78, "flickd: \(dir)/missing.toml"),
        ]
        for (arguments, status, message) in cases {
            let run = try runBuilt("flickd", arguments)
            #expect(run.status == status, "\(arguments): \(run.err)")
            #expect(run.err.contains(message), "\(arguments): \(run.err)")
        }
    }
}
