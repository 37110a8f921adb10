import FlickCore

extension TouchMapping {
    /// The calibration matrix that changes nothing.
    public static let identityCalibration: [Double] = [1, 0, 0, 0, 1, 0]

    /// This mapping with the identity matrix in place of its own (and of udev's): how touches
    /// are read for a calibration, so that a new fit never compounds the old one.
    public var uncalibrated: TouchMapping {
        var m = self
        m.calibration = Self.identityCalibration
        return m
    }

    /// Where `TouchTransform` puts a calibrated unit point (0…1 on both axes, before rotation):
    /// the rotation, flips and scaling to `outputSize`, the steps after the matrix.
    public func screenPoint(unit p: Point, outputSize: Size) -> Point {
        var (u, v): (Double, Double)
        switch rotation {
        case 90: (u, v) = (1 - p.y, p.x)
        case 180: (u, v) = (1 - p.x, 1 - p.y)
        case 270: (u, v) = (p.y, 1 - p.x)
        default: (u, v) = (p.x, p.y)
        }
        if flipX { u = 1 - u }
        if flipY { v = 1 - v }
        return Point(x: u * max(0, outputSize.width - 1), y: v * max(0, outputSize.height - 1))
    }

    /// The inverse of `screenPoint(unit:outputSize:)`: the calibrated unit point that lands on
    /// screen point `p`.
    public func unitPoint(screen p: Point, outputSize: Size) -> Point {
        var u = outputSize.width > 1 ? p.x / (outputSize.width - 1) : 0
        var v = outputSize.height > 1 ? p.y / (outputSize.height - 1) : 0
        if flipX { u = 1 - u }
        if flipY { v = 1 - v }
        switch rotation {
        case 90: return Point(x: v, y: 1 - u)
        case 180: return Point(x: 1 - u, y: 1 - v)
        case 270: return Point(x: 1 - v, y: u)
        default: return Point(x: u, y: v)
        }
    }
}

/// A fitted calibration: libinput's matrix for flickd's `TouchTransform` with the mapping's
/// rotation and flips, and how far each touch lands from its target with it.
public struct CalibrationFit: Hashable, Sendable {
    /// `[a, b, c, d, e, f]` on normalised device coordinates, applied before rotation.
    public var matrix: [Double]
    /// The targets, screen px.
    public var targets: [Point]
    /// The touches as read without calibration, screen px.
    public var touches: [Point]
    /// Where the matrix puts each touch, screen px.
    public var corrected: [Point]

    /// Fits the matrix that puts each touch on its target.
    /// - Parameters:
    ///   - touches: where the panel reported each touch, read with `mapping.uncalibrated`.
    ///   - targets: where each touch was meant to land, in the same order.
    ///   - mapping: the rotation and flips in force (its own matrix is ignored).
    ///   - outputSize: the screen touches are mapped to.
    /// - Throws: `CalibrationError` for fewer than three points, or points on one line.
    public init(touches: [Point], targets: [Point], mapping: TouchMapping, outputSize: Size) throws(CalibrationError) {
        // Undo the rotation, flips and scale on both sides: the matrix works between
        // normalised device coordinates and calibrated ones, both before rotation.
        let raw = touches.map { mapping.unitPoint(screen: $0, outputSize: outputSize) }
        let wanted = targets.map { mapping.unitPoint(screen: $0, outputSize: outputSize) }
        let m = try AffineFit.fit(from: raw, to: wanted)
        matrix = m
        self.targets = targets
        self.touches = touches
        corrected = raw.map { mapping.screenPoint(unit: AffineFit.apply(m, to: $0), outputSize: outputSize) }
    }

    /// How far each corrected touch is from its target, px.
    public var residuals: [Double] {
        zip(corrected, targets).map { c, t in ((c.x - t.x) * (c.x - t.x) + (c.y - t.y) * (c.y - t.y)).squareRoot() }
    }

    /// The root mean square of the residuals, px.
    public var rmsResidual: Double {
        let r = residuals
        return r.isEmpty ? 0 : (r.reduce(0) { $0 + $1 * $1 } / Double(r.count)).squareRoot()
    }

    /// The matrix's numbers with six decimals, as both TOML and udev take them.
    public var numbers: [String] { matrix.map { $0.fixed(6) } }

    /// The config line for `[input]`: `calibration = [a, b, c, d, e, f]`.
    public var tomlLine: String { "calibration = [" + numbers.joined(separator: ", ") + "]" }

    /// A udev rule giving the device this matrix (`LIBINPUT_CALIBRATION_MATRIX`), which flickd
    /// reads when the config has none.
    public func udevRule(deviceName: String) -> String {
        let name = deviceName.replacing("\"", with: "?")
        return "ACTION==\"add|change\", KERNEL==\"event*\", ATTRS{name}==\"\(name)\", "
            + "ENV{LIBINPUT_CALIBRATION_MATRIX}=\"" + numbers.joined(separator: " ") + "\""
    }
}
