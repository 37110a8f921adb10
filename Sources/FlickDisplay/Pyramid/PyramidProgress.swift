/// How far a pyramid build has got, reported as it goes and once at the end.
public struct PyramidProgress: Sendable, CustomStringConvertible {
    /// Rows of the source image decoded so far.
    public var rowsDone: Int
    /// The source image's rows.
    public var rows: Int
    /// The source image's size.
    public var size: PixelSize
    /// The pyramid's levels, full resolution to 1×1.
    public var levels: Int
    /// Tile files written so far.
    public var tilesWritten: Int
    /// Seconds since the build started.
    public var elapsed: Double
    /// Whether the pyramid is complete and in place (the last report).
    public var finished: Bool

    /// The fraction of the source decoded, 0…1.
    public var fraction: Double { rows > 0 ? Double(rowsDone) / Double(rows) : 1 }

    /// "rows 2540/30000 (8 %), 1234 tiles, 3.2 s", or "built 16 levels, … in 61.0 s".
    public var description: String {
        let seconds = (elapsed * 10).rounded() / 10
        if finished { return "built \(size) in \(levels) levels, \(tilesWritten) tiles in \(seconds) s" }
        return "rows \(rowsDone)/\(rows) (\(Int(fraction * 100)) %), \(tilesWritten) tiles, \(seconds) s"
    }
}
