import FlickDisplay

/// Content whose every pixel says where it is: red = x mod 256, green = y mod 256, blue = the
/// high nibbles of x and y. A pixel grabbed from the screen thus names the content point shown
/// there (up to 4096 × 4096), which checks offset and zoom at once.
enum CoordinatePattern {
    /// The pattern's pixel at content point (`x`, `y`).
    static func pixel(x: Int, y: Int) -> UInt32 {
        0xFF00_0000 | UInt32(x & 0xFF) << 16 | UInt32(y & 0xFF) << 8 | UInt32((x >> 8) & 0xF) << 4 | UInt32((y >> 8) & 0xF)
    }

    /// The content point a screen pixel shows.
    static func decode(_ pixel: UInt32) -> (x: Int, y: Int) {
        let r = Int((pixel >> 16) & 0xFF), g = Int((pixel >> 8) & 0xFF), b = Int(pixel & 0xFF)
        return ((b >> 4) << 8 | r, (b & 0xF) << 8 | g)
    }

    /// A buffer holding the pattern; nil for a size beyond what it can encode.
    static func make(width: Int, height: Int) -> PixelBuffer? {
        guard width <= 4096, height <= 4096, let buffer = PixelBuffer(width: width, height: height) else { return nil }
        for y in 0..<height {
            let row = buffer.row(y)
            for x in 0..<width { row[x] = pixel(x: x, y: y) }
        }
        return buffer
    }

    /// Where in a 256-pixel block bilinear sampling blends two unrelated codes: the low byte
    /// wraps there, so a zoomed probe that lands there says nothing.
    static func nearWrap(_ c: Double) -> Bool {
        let m = c.truncatingRemainder(dividingBy: 256)
        return m < 2 || m > 254
    }
}
