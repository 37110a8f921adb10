import FlickCore
import Testing
@testable import FlickInput

/// The fit works in flickd's own terms: the matrix it finds, put into `TouchTransform` with the
/// rotation and flips in force, lands each touch on its target.
@Suite struct CalibrationFitTests {
    let size = Size(width: 1024, height: 768)
    let axis = AbsAxis(minimum: 0, maximum: 65535)
    let skew: [Double] = [1.03, -0.04, -0.01, 0.06, 0.95, 0.02]

    var mappings: [TouchMapping] {
        [0, 90, 180, 270].flatMap { r in [(false, false), (true, false), (false, true)].map { TouchMapping(rotation: r, flipX: $0.0, flipY: $0.1) } }
    }

    /// The raw device units that a matrix `m` takes onto screen point `p` (its inverse).
    func raw(for p: Point, _ m: [Double], _ mapping: TouchMapping) -> (Int32, Int32) {
        let u = mapping.unitPoint(screen: p, outputSize: size)
        let det = m[0] * m[4] - m[1] * m[3]
        let (x, y) = (u.x - m[2], u.y - m[5])
        let nx = (m[4] * x - m[1] * y) / det, ny = (m[0] * y - m[3] * x) / det
        return (Int32((nx * 65535).rounded()), Int32((ny * 65535).rounded()))
    }

    @Test func screenAndUnitPointsAreInverses() {
        for mapping in mappings {
            for p in [Point(x: 0, y: 0), Point(x: 1023, y: 0), Point(x: 100, y: 700), Point(x: 512.5, y: 384.25)] {
                let back = mapping.screenPoint(unit: mapping.unitPoint(screen: p, outputSize: size), outputSize: size)
                #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9, "\(mapping) \(p) → \(back)")
            }
        }
    }

    @Test func theMatrixThenTheTurnIsWhatTouchTransformDoes() {
        for mapping in mappings {
            var calibrated = mapping
            calibrated.calibration = skew
            let transform = TouchTransform(x: axis, y: axis, mapping: calibrated, outputSize: size)
            for (x, y) in [(Int32(0), Int32(0)), (65535, 100), (30000, 50000), (12345, 65535)] {
                let unit = Point(x: Double(x) / 65535, y: Double(y) / 65535)
                let mine = mapping.screenPoint(unit: AffineFit.apply(skew, to: unit), outputSize: size)
                let theirs = transform.apply(x: x, y: y)
                #expect(abs(mine.x - theirs.x) < 1e-9 && abs(mine.y - theirs.y) < 1e-9, "\(mapping)")
            }
        }
    }

    @Test func theFitRecoversTheSkewUnderEveryRotationAndFlip() throws {
        let targets = try CalibrationTargets.layout(count: 5, in: size)
        for mapping in mappings {
            let raws = targets.map { raw(for: $0, skew, mapping) }
            // The touches as calibrate reads them: an old matrix in the mapping is ignored.
            var old = mapping
            old.calibration = [2, 0, 0, 0, 2, 0]
            let reading = TouchTransform(x: axis, y: axis, mapping: old.uncalibrated, outputSize: size)
            let touches = raws.map { reading.apply(x: $0.0, y: $0.1) }
            let fit = try CalibrationFit(touches: touches, targets: targets, mapping: old, outputSize: size)
            for (got, want) in zip(fit.matrix, skew) { #expect(abs(got - want) < 1e-4, "\(mapping): \(fit.matrix)") }
            #expect(fit.rmsResidual < 0.05)
            // And flickd's transform with the fitted matrix puts each touch on its target.
            var fitted = mapping
            fitted.calibration = fit.matrix
            let transform = TouchTransform(x: axis, y: axis, mapping: fitted, outputSize: size)
            for (r, t) in zip(raws, targets) {
                let p = transform.apply(x: r.0, y: r.1)
                #expect(abs(p.x - t.x) < 0.05 && abs(p.y - t.y) < 0.05, "\(mapping): \(p) for \(t)")
            }
        }
    }

    @Test func theLinesCarrySixDecimals() throws {
        let targets = try CalibrationTargets.layout(count: 3, in: size)
        let fit = try CalibrationFit(touches: targets, targets: targets, mapping: TouchMapping(), outputSize: size)
        #expect(fit.tomlLine == "calibration = [1.000000, 0.000000, 0.000000, 0.000000, 1.000000, 0.000000]")
        #expect(fit.udevRule(deviceName: "ACME \"panel\"") == "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"ACME ?panel?\", "
                + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"1.000000 0.000000 0.000000 0.000000 1.000000 0.000000\"")
        #expect(UdevCalibration.parse("1.000000 0.000000 0.000000 0.000000 1.000000 0.000000") == [1, 0, 0, 0, 1, 0])
    }
}
