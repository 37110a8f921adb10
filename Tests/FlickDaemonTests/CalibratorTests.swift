import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickInput
import Foundation
import Testing

/// Recordings of taps on a panel whose touch is skewed by a known matrix: a tap aimed at each
/// target lands where that matrix's inverse puts it, as on a misaligned panel.
enum SkewedTaps {
    static let skew: [Double] = [1.03, -0.04, -0.01, 0.06, 0.95, 0.02]
    static let size = Size(width: 1024, height: 768)
    /// Fine device units, so that rounding to whole units moves a tap by under 0.02 px.
    static let unitsX: Int32 = 65536, unitsY: Int32 = 49152

    /// Device units for screen point `p` on a panel that needs `m` (the matrix's inverse).
    static func units(_ p: Point, _ m: [Double]) -> (Double, Double) {
        let u = TouchMapping().unitPoint(screen: p, outputSize: size)
        let det = m[0] * m[4] - m[1] * m[3]
        let (x, y) = (u.x - m[2], u.y - m[5])
        return ((m[4] * x - m[1] * y) / det * Double(unitsX - 1), (m[0] * y - m[3] * x) / det * Double(unitsY - 1))
    }

    /// A recording with one held tap per target, a second apart, each off by `noise(i)` units;
    /// `before` adds touches first (a stray, a refused one).
    static func recording(points: Int = 5, matrix: [Double] = skew, noise: (Int) -> (Double, Double) = { _ in (0, 0) },
                          before: (inout TouchScript, Double) -> Double = { _, t in t }) throws -> String {
        var script = TouchScript(description: DeviceDescription.slotTouchscreen(name: "skewed panel", width: unitsX, height: unitsY))
        script.idle(0)
        var t = before(&script, 0.2)
        for (i, target) in try CalibrationTargets.layout(count: points, in: size).enumerated() {
            let (x, y) = units(target, matrix)
            let (nx, ny) = noise(i)
            t = script.hold(at: x + nx, y + ny, seconds: 0.08, t: t + 1)
        }
        return script.text
    }

    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-calibrate-\(UUID()).events").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

@Suite struct CalibratorTests {
    func calibrate(_ text: String, points: Int = 5, configuration: Configuration = Configuration())
        throws -> (Calibrator.Result, [String]) {
        let path = try SkewedTaps.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = Calibrator.Options()
        options.recording = path
        options.points = points
        options.display = .headless(size: PixelSize(width: 1024, height: 768))
        nonisolated(unsafe) var said: [String] = []
        let calibrator = try Calibrator(options: options, configuration: configuration, say: { said.append($0) })
        return (try calibrator.run(), said)
    }

    @Test func aRecordingOfSkewedTapsGivesBackTheSkew() throws {
        let (result, said) = try calibrate(try SkewedTaps.recording())
        for (got, want) in zip(result.fit.matrix, SkewedTaps.skew) { #expect(abs(got - want) < 1e-4, "\(result.fit.matrix)") }
        #expect(result.fit.rmsResidual < 0.05)
        #expect(result.deviceName == "skewed panel")
        #expect(said.contains("target 1/5 at (102, 77)") && said.contains("target 5/5 at (512, 384)"))
        #expect(result.residualLines.last?.hasPrefix("residuals: rms 0.0") == true, "\(result.residualLines)")
        #expect(result.outputLines.contains(result.fit.tomlLine) && result.fit.tomlLine.hasPrefix("calibration = [1.0299"),
                "\(result.outputLines)")
        #expect(result.outputLines.contains { $0.contains("ATTRS{name}==\"skewed panel\"") && $0.contains("LIBINPUT_CALIBRATION_MATRIX") })
    }

    @Test func anOldMatrixInTheConfigDoesNotCompound() throws {
        var configuration = Configuration()
        configuration.touchMapping.calibration = [0.5, 0, 0.2, 0, 0.5, 0.2]
        let (result, _) = try calibrate(try SkewedTaps.recording(), configuration: configuration)
        for (got, want) in zip(result.fit.matrix, SkewedTaps.skew) { #expect(abs(got - want) < 1e-4) }
    }

    @Test func noisyTapsShowTheirResiduals() throws {
        // ±0.5 % of the panel, alternating: a fit cannot absorb it all, so the residuals say so.
        let wobble: [(Double, Double)] = [(300, -200), (-300, 250), (-250, -250), (300, 200), (0, 150)]
        let (result, _) = try calibrate(try SkewedTaps.recording(noise: { wobble[$0] }))
        let rms = result.fit.rmsResidual
        #expect(rms > 1 && rms < 6, "rms \(rms)")
        for (got, want) in zip(result.fit.matrix, SkewedTaps.skew) { #expect(abs(got - want) < 0.02) }
        // The RMS is that of the per-point residuals, as printed.
        let r = result.fit.residuals
        #expect(abs(rms - (r.map { $0 * $0 }.reduce(0, +) / 5).squareRoot()) < 1e-12)
        #expect(result.residualLines.last == "residuals: rms \(rms.fixed(2)) px, max \(r.max()!.fixed(2)) px")
    }

    @Test func aTouchOutsideTheScreenIsRefusedAndTheTargetAskedAgain() throws {
        let text = try SkewedTaps.recording(before: { script, t in
            // Beyond the axis maximum: far off the screen. Then two fingers at once.
            let end = script.hold(at: 200_000, 1000, seconds: 0.08, t: t)
            script.down(0, 1000, 1000, end + 0.5); script.down(1, 9000, 9000, end + 0.5); script.report(end + 0.5)
            script.up(0, end + 0.6); script.up(1, end + 0.6); script.report(end + 0.6)
            return end + 0.6
        })
        let (result, said) = try calibrate(text)
        #expect(said.contains { $0.hasPrefix("target 1/5: refused a touch at (") && $0.contains("far outside") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("target 1/5: refused 2 fingers down") }, "\(said)")
        #expect(said.filter { $0 == "target 1/5 at (102, 77)" }.count == 3)
        for (got, want) in zip(result.fit.matrix, SkewedTaps.skew) { #expect(abs(got - want) < 1e-4) }
    }

    @Test func threePointsAreEnoughAndARecordingThatEndsEarlyIsAnError() throws {
        let (result, _) = try calibrate(try SkewedTaps.recording(points: 3), points: 3)
        for (got, want) in zip(result.fit.matrix, SkewedTaps.skew) { #expect(abs(got - want) < 1e-4) }
        #expect(throws: CalibrationError.self) { try calibrate(try SkewedTaps.recording(points: 3), points: 5) }
        do {
            _ = try calibrate(try SkewedTaps.recording(points: 3), points: 5)
        } catch {
            #expect("\(error)".contains("ended after 3 of 5 targets"), "\(error)")
        }
    }

    @Test func theTargetIsDrawnAndTurnedWithThePanel() throws {
        let buffer = try #require(PixelBuffer(width: 300, height: 200))
        TargetScreen(targets: [Point(x: 20, y: 10), Point(x: 180, y: 90)], current: 1, done: 1).draw(into: buffer)
        #expect(buffer[180, 90] == TargetScreen.active.pixel && buffer[180 + 30, 90] == TargetScreen.active.pixel)
        #expect(buffer[180 + 31, 90] == TargetScreen.background.pixel && buffer[180 + 12, 90 + 5] == TargetScreen.active.pixel)
        #expect(buffer[20, 10] == TargetScreen.touched.pixel && buffer[100, 50] == TargetScreen.background.pixel)
        // A quarter turn: the logical view is 200x300, its (10, 20) is the panel's (279, 10).
        TargetScreen(targets: [Point(x: 10, y: 20)], current: 0, done: 0, rotation: .clockwise90).draw(into: buffer)
        #expect(buffer[279, 10] == TargetScreen.active.pixel && buffer[10, 20] == TargetScreen.background.pixel)
    }
}

@Suite struct CalibrationConfigEditTests {
    let line = "calibration = [1.000000, 0.000000, 0.000000, 0.000000, 1.000000, 0.000000]"

    @Test func replacesTheKeyAndKeepsEverythingElse() {
        let text = "# top\n[input]\n# why\nrotation = 0\ncalibration = [] # none yet\ngrab = true\n\n[display]\nbackground = \"#000000\"\n"
        #expect(CalibrationConfigEdit.setting(line, in: text)
                == "# top\n[input]\n# why\nrotation = 0\n\(line)\ngrab = true\n\n[display]\nbackground = \"#000000\"\n")
        let multiline = "[input]\ncalibration = [\n  1, 0, 0, # row one\n  0, 1, 0,\n]\ngrab = false\n"
        #expect(CalibrationConfigEdit.setting(line, in: multiline) == "[input]\n\(line)\ngrab = false\n")
    }

    @Test func addsTheKeyOrTheSectionWhenMissing() {
        #expect(CalibrationConfigEdit.setting(line, in: "[input]\ngrab = true\n# trailing comment\n\n[display]\n")
                == "[input]\ngrab = true\n\(line)\n# trailing comment\n\n[display]\n")
        #expect(CalibrationConfigEdit.setting(line, in: "[scroll]\npaging = true") == "[scroll]\npaging = true\n\n[input]\n\(line)\n")
        #expect(CalibrationConfigEdit.setting(line, in: "") == "[input]\n\(line)\n")
        // Not fooled by a key that only starts the same, or by a commented-out section.
        #expect(CalibrationConfigEdit.setting(line, in: "# [input]\n[input] # here\ncalibrationx = 1\n")
                == "# [input]\n[input] # here\ncalibrationx = 1\n\(line)\n")
    }

    @Test func writesAFileThatLoadsWithTheMatrixAndNeverABadOne() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-calib-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let targets = try CalibrationTargets.layout(count: 3, in: SkewedTaps.size)
        let touches = targets.map { Point(x: $0.x * 0.9 + 10, y: $0.y * 1.1 - 5) }
        let fit = try CalibrationFit(touches: touches, targets: targets, mapping: TouchMapping(), outputSize: SkewedTaps.size)
        let good = dir + "/good.toml"
        try "# mine\n[input]\nrotation = 0\ncalibration = []\n".write(toFile: good, atomically: true, encoding: .utf8)
        chmod(good, 0o640)
        try CalibrationConfigEdit.write(fit, to: good)
        let (loaded, _) = try ConfigLoader.load(path: good)
        #expect(loaded.touchMapping.calibration == fit.numbers.compactMap(Double.init))
        #expect(try String(contentsOfFile: good, encoding: .utf8).hasPrefix("# mine\n[input]\nrotation = 0\ncalibration = ["))
        var info = stat()
        #expect(stat(good, &info) == 0 && info.st_mode & 0o777 == 0o640)
        // A file that does not load is left alone.
        let bad = dir + "/bad.toml"
        let badText = "[input]\nrotation = 45\n"
        try badText.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try CalibrationConfigEdit.write(fit, to: bad) }
        #expect(try String(contentsOfFile: bad, encoding: .utf8) == badText)
        #expect(!FileManager.default.fileExists(atPath: bad + ".tmp"))
        // A matrix set another way (a dotted key) would not be replaced: refused, nothing written.
        let dotted = dir + "/dotted.toml"
        let dottedText = "input.calibration = []\n"
        try dottedText.write(toFile: dotted, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try CalibrationConfigEdit.write(fit, to: dotted) }
        #expect(try String(contentsOfFile: dotted, encoding: .utf8) == dottedText)
    }
}
