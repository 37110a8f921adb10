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
    ///
    /// Equal to `pixel(x:y:size:)` everywhere, but drawn a row at a time (ramp, then grid
    /// columns, markers and corners over it): it is what a fresh install shows, 16 screens of
    /// it, and drawing it pixel by pixel delayed the first frame by a third of a second.
    public static func make(_ size: PixelSize) -> PixelBuffer? {
        guard let buffer = PixelBuffer(width: size.width, height: size.height, format: .xrgb8888) else { return nil }
        let w = size.width, h = size.height, c = cornerSide
        let red = (0..<w).map { ramp($0, w) << 16 }
        for y in 0..<h {
            let row = buffer.row(y)
            if y % gridPitch == 0 {
                row.update(repeating: gridLine, count: w)
            } else {
                let base = 0xFF00_0080 | ramp(y, h) << 8
                red.withUnsafeBufferPointer { red in
                    for x in 0..<w { row[x] = base | red[x] }
                }
                if (4..<12).contains(y % gridPitch) {
                    let green = UInt32((y / gridPitch) & 0xFF) << 8
                    for cell in stride(from: 0, to: w - 4, by: gridPitch) {
                        let marker = 0xFF00_00FF | UInt32((cell / gridPitch) & 0xFF) << 16 | green
                        for x in (cell + 4)..<min(cell + 12, w) { row[x] = marker }
                    }
                }
                for x in stride(from: 0, to: w, by: gridPitch) { row[x] = gridLine }
            }
            // Corners last, left after right and top before bottom: the order `pixel` decides in.
            let top = y < c, bottom = y >= h - c
            if top || bottom {
                for x in max(0, w - c)..<w { row[x] = top ? topRight : bottomRight }
                for x in 0..<min(c, w) { row[x] = top ? topLeft : bottomLeft }
            }
        }
        return buffer
    }
}
