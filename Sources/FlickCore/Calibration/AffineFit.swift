/// The affine map that takes points `from` closest to points `to`, by least squares:
/// `to ≈ [a b c; d e f]·[from.x from.y 1]`, as libinput writes its calibration matrix.
///
/// Each output coordinate is its own three-parameter problem with the same normal equations.
/// Centring the points first splits off the offset (`c`, `f`) and leaves a 2×2 system, solved
/// in closed form: the same answer as the 3×3 normal equations, better conditioned, and its
/// determinant says directly whether the points span both axes.
public enum AffineFit {
    /// Below this, relative to the spread squared, the points are taken as lying on one line.
    /// Targets 10 % in from the corners of any panel are many orders of magnitude above it.
    public static let collinearityTolerance = 1e-9

    /// Fits `[a, b, c, d, e, f]`.
    /// - Throws: `CalibrationError` when there are fewer than three pairs, they do not pair up,
    ///   a value is not finite, or the `from` points lie on one line.
    public static func fit(from: [Point], to: [Point]) throws(CalibrationError) -> [Double] {
        guard from.count == to.count else { throw .mismatched(touches: from.count, targets: to.count) }
        guard from.count >= 3 else { throw .tooFewPoints(from.count) }
        guard (from + to).allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { throw .notFinite }
        let n = Double(from.count)
        let mx = from.reduce(0) { $0 + $1.x } / n, my = from.reduce(0) { $0 + $1.y } / n
        let mu = to.reduce(0) { $0 + $1.x } / n, mv = to.reduce(0) { $0 + $1.y } / n
        var (sxx, sxy, syy, sxu, syu, sxv, syv) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for (p, q) in zip(from, to) {
            let (x, y, u, v) = (p.x - mx, p.y - my, q.x - mu, q.y - mv)
            sxx += x * x; sxy += x * y; syy += y * y
            sxu += x * u; syu += y * u; sxv += x * v; syv += y * v
        }
        let det = sxx * syy - sxy * sxy
        let spread = sxx + syy
        guard spread > 0, det > collinearityTolerance * spread * spread else { throw .collinear(count: from.count) }
        let a = (syy * sxu - sxy * syu) / det, b = (sxx * syu - sxy * sxu) / det
        let d = (syy * sxv - sxy * syv) / det, e = (sxx * syv - sxy * sxv) / det
        let matrix = [a, b, mu - a * mx - b * my, d, e, mv - d * mx - e * my]
        guard matrix.allSatisfy(\.isFinite) else { throw .notFinite }
        return matrix
    }

    /// Where `[a, b, c, d, e, f]` takes `p`.
    public static func apply(_ m: [Double], to p: Point) -> Point {
        guard m.count == 6 else { return p }
        return Point(x: m[0] * p.x + m[1] * p.y + m[2], y: m[3] * p.x + m[4] * p.y + m[5])
    }
}
