import FlickCore

/// How touch coordinates are turned to match the panel: rotation, flips and an optional
/// calibration matrix. Configured separately from the panel's own rotation.
public struct TouchMapping: Hashable, Sendable {
    /// Clockwise quarter turns of the touch axes relative to the screen: 0, 90, 180 or 270.
    public var rotation: Int
    /// Mirror left–right after rotating.
    public var flipX: Bool
    /// Mirror top–bottom after rotating.
    public var flipY: Bool
    /// libinput's calibration matrix `[a, b, c, d, e, f]` on normalised coordinates:
    /// x' = a·x + b·y + c, y' = d·x + e·y + f. Applied before rotation.
    public var calibration: [Double]?

    /// Creates a mapping; the identity by default.
    public init(rotation: Int = 0, flipX: Bool = false, flipY: Bool = false, calibration: [Double]? = nil) {
        self.rotation = rotation
        self.flipX = flipX
        self.flipY = flipY
        self.calibration = calibration
    }

    /// Whether the values are usable: a quarter-turn rotation and six finite matrix values.
    public var isValid: Bool {
        [0, 90, 180, 270].contains(rotation)
            && (calibration.map { $0.count == 6 && $0.allSatisfy(\.isFinite) } ?? true)
    }
}

/// Maps device units to screen pixels: normalise over the axis range, calibrate, rotate, flip,
/// then scale to the output (the axis minimum → the first pixel, the maximum → the last).
public struct TouchTransform: Hashable, Sendable {
    /// The device's X and Y axes.
    public var x: AbsAxis, y: AbsAxis
    /// The rotation, flips and calibration.
    public var mapping: TouchMapping
    /// The output (logical view) size in pixels.
    public var outputSize: Size

    /// Creates a transform for a device; nil when it has no X/Y axes.
    public init?(description: DeviceDescription, mapping: TouchMapping, outputSize: Size) {
        guard let (x, y) = description.positionAxes else { return nil }
        self.init(x: x, y: y, mapping: mapping, outputSize: outputSize)
    }

    /// Creates a transform from the axes.
    public init(x: AbsAxis, y: AbsAxis, mapping: TouchMapping, outputSize: Size) {
        self.x = x
        self.y = y
        self.mapping = mapping
        self.outputSize = outputSize
    }

    /// The screen point for raw device coordinates.
    public func apply(x rawX: Int32, y rawY: Int32) -> Point {
        // Kept as (distance from the axis minimum, span) pairs so that the identity mapping of
        // a pixel-ranged panel is exact: 110 of 0…799 on 800 px is 110, not 110.00000000000001.
        var (nx, sx) = (Double(rawX) - Double(x.minimum), x.span)
        var (ny, sy) = (Double(rawY) - Double(y.minimum), y.span)
        if let m = mapping.calibration, m.count == 6 {
            let (px, py) = (nx / sx, ny / sy)
            (nx, ny, sx, sy) = (m[0] * px + m[1] * py + m[2], m[3] * px + m[4] * py + m[5], 1, 1)
        }
        var (u, su, v, sv): (Double, Double, Double, Double)
        switch mapping.rotation {
        case 90: (u, su, v, sv) = (sy - ny, sy, nx, sx)
        case 180: (u, su, v, sv) = (sx - nx, sx, sy - ny, sy)
        case 270: (u, su, v, sv) = (ny, sy, sx - nx, sx)
        default: (u, su, v, sv) = (nx, sx, ny, sy)
        }
        if mapping.flipX { u = su - u }
        if mapping.flipY { v = sv - v }
        return Point(x: u * (max(0, outputSize.width - 1) / su), y: v * (max(0, outputSize.height - 1) / sv))
    }

    /// Screen pixels per millimetre of finger travel, when the device gives its resolution
    /// (the geometric mean of both axes, after rotation).
    public var pixelsPerMillimetre: Double? {
        guard x.resolution > 0, y.resolution > 0 else { return nil }
        let widthMM = x.span / Double(x.resolution), heightMM = y.span / Double(y.resolution)
        let turned = mapping.rotation == 90 || mapping.rotation == 270
        let (screenW, screenH) = turned ? (heightMM, widthMM) : (widthMM, heightMM)
        let ppmm = ((outputSize.width - 1) / screenW * (outputSize.height - 1) / screenH).squareRoot()
        return ppmm.isFinite && ppmm > 0 ? ppmm : nil
    }
}
