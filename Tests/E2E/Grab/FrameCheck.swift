import FlickDisplay

/// Checks a grabbed frame of the coordinate pattern against an offset and zoom: at a grid of
/// screen probes (clear of the edges, where scroll indicators draw), the content point shown
/// must be `(screen + offset) / zoom`.
struct FrameCheck {
    var offset: (x: Double, y: Double)
    var zoom: Double
    /// How far (content px) a decoded point may be from the expected one.
    var tolerance = 1.5

    /// The probes that disagree, as lines for the log; empty when the frame matches.
    func mismatches(in frame: PixelBuffer) -> (checked: Int, problems: [String]) {
        var checked = 0
        var problems: [String] = []
        let unit = abs(zoom - 1) < 1e-9
        for sy in stride(from: 40, to: frame.height - 40, by: 97) {
            for sx in stride(from: 40, to: frame.width - 40, by: 131) {
                let expected: (x: Double, y: Double)
                if unit {
                    // The compositor rounds the offset at zoom 1 and copies pixels exactly.
                    expected = (Double(sx) + offset.x.rounded(), Double(sy) + offset.y.rounded())
                } else {
                    // Bilinear sampling at pixel centres.
                    expected = ((Double(sx) + 0.5 + offset.x) / zoom - 0.5, (Double(sy) + 0.5 + offset.y) / zoom - 0.5)
                    if CoordinatePattern.nearWrap(expected.x) || CoordinatePattern.nearWrap(expected.y) { continue }
                }
                checked += 1
                let got = CoordinatePattern.decode(frame[sx, sy])
                if abs(Double(got.x) - expected.x) > tolerance || abs(Double(got.y) - expected.y) > tolerance {
                    problems.append("screen (\(sx), \(sy)) shows content (\(got.x), \(got.y)), expected "
                                    + "(\(format(expected.x)), \(format(expected.y)))")
                }
            }
        }
        return (checked, problems)
    }

    private func format(_ v: Double) -> String { String(Double(Int((v * 10).rounded())) / 10) }
}
