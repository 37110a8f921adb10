/// A deterministic test image: colour ramps, a grid, cell-coordinate markers and marked corners.
///
/// Every pixel is a pure function of its position and the image size (`pixel(x:y:size:)`), so
/// tests can compute what any pixel of a composed frame should be. Demos show it when no content
/// is configured.
public enum TestPattern {
    /// The side of each corner square, in pixels.
    public static let cornerSide = 16
    /// The grid pitch, in pixels; a 1-pixel line on every multiple.
    public static let gridPitch = 64
    /// Red: the top-left corner square.
    public static let topLeft: UInt32 = 0xFFFF_0000
    /// Green: the top-right corner square.
    public static let topRight: UInt32 = 0xFF00_FF00
    /// Blue: the bottom-left corner square.
    public static let bottomLeft: UInt32 = 0xFF00_00FF
    /// White: the bottom-right corner square.
    public static let bottomRight: UInt32 = 0xFFFF_FFFF
    /// The grid lines' colour.
    public static let gridLine: UInt32 = 0xFF20_2020

    /// The pixel at (`x`, `y`) of a pattern of `size`.
    ///
    /// Corners win over grid lines, which win over the markers (an 8×8 square at (4, 4) in each
    /// grid cell, red = cell column, green = cell row, blue = 255), which win over the ramp
    /// (red grows to the right, green downwards, blue 128).
    public static func pixel(x: Int, y: Int, size: PixelSize) -> UInt32 {
        let w = size.width, h = size.height, c = cornerSide
        let left = x < c, right = x >= w - c, top = y < c, bottom = y >= h - c
        if top && left { return topLeft }
        if top && right { return topRight }
        if bottom && left { return bottomLeft }
        if bottom && right { return bottomRight }
        if x % gridPitch == 0 || y % gridPitch == 0 { return gridLine }
        let lx = x % gridPitch, ly = y % gridPitch
        if (4..<12).contains(lx) && (4..<12).contains(ly) {
            return 0xFF00_00FF | UInt32((x / gridPitch) & 0xFF) << 16 | UInt32((y / gridPitch) & 0xFF) << 8
        }
        return 0xFF00_0080 | ramp(x, w) << 16 | ramp(y, h) << 8
    }

    /// The ramp's channel value at `i` of `n`: `i·255/(n−1)`, rounded down.
    public static func ramp(_ i: Int, _ n: Int) -> UInt32 { n > 1 ? UInt32(i * 255 / (n - 1)) : 0 }

    /// A new `xrgb8888` buffer holding the pattern, or `nil` for an unusable size.
    public static func make(_ size: PixelSize) -> PixelBuffer? {
        guard let buffer = PixelBuffer(width: size.width, height: size.height, format: .xrgb8888) else { return nil }
        for y in 0..<size.height {
            let row = buffer.row(y)
            for x in 0..<size.width { row[x] = pixel(x: x, y: y, size: size) }
        }
        return buffer
    }
}
