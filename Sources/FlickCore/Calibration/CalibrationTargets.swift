/// Where the calibration targets go on a screen: on a grid inset from the edges (10 % by
/// default), the corners first, so that the first three already span both axes, then the
/// points nearest the centre. Five, the default, are the four corners and the centre.
public enum CalibrationTargets {
    /// The default number of targets.
    public static let defaultCount = 5
    /// How many targets a layout can have: three for an affine fit, at most a 5 × 5 grid.
    public static let allowedCounts = 3...25

    /// The targets, in the order they are asked for, on whole pixels.
    /// - Parameters:
    ///   - count: how many (`allowedCounts`).
    ///   - size: the screen (the logical view touches are mapped to).
    ///   - inset: the fraction of the screen between an edge and the outer targets.
    /// - Throws: `CalibrationError.pointCount` outside `allowedCounts`.
    public static func layout(count: Int, in size: Size, inset: Double = 0.1) throws(CalibrationError) -> [Point] {
        guard allowedCounts.contains(count) else { throw .pointCount(count, allowed: allowedCounts) }
        var side = 3
        while side * side < count { side += 1 }
        let last = side - 1
        var cells: [(col: Int, row: Int)] = []
        for row in 0...last { for col in 0...last { cells.append((col, row)) } }
        let corners = [(0, 0), (last, 0), (0, last), (last, last)]
        let rest = cells.filter { cell in !corners.contains { $0 == cell } }
            .enumerated()
            .sorted { lhs, rhs in
                let dl = centreDistance(lhs.element, last), dr = centreDistance(rhs.element, last)
                return dl != dr ? dl < dr : lhs.offset < rhs.offset
            }
            .map(\.element)
        let chosen = (corners.map { (col: $0.0, row: $0.1) } + rest).prefix(count)
        let span = 1 - 2 * inset
        return chosen.map { cell in
            let fx = inset + span * Double(cell.col) / Double(last)
            let fy = inset + span * Double(cell.row) / Double(last)
            return Point(x: (fx * max(0, size.width - 1)).rounded(), y: (fy * max(0, size.height - 1)).rounded())
        }
    }

    /// Twice the squared distance from the grid's centre, in cells (integers: no ties by rounding).
    private static func centreDistance(_ cell: (col: Int, row: Int), _ last: Int) -> Int {
        let dx = 2 * cell.col - last, dy = 2 * cell.row - last
        return dx * dx + dy * dy
    }
}
