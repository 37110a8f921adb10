import CPixman

/// A 2-D affine map `p ↦ (a·x + b·y + tx, c·x + d·y + ty)`, as pixman transforms need it.
struct Affine: Hashable {
    var a = 1.0, b = 0.0, tx = 0.0
    var c = 0.0, d = 1.0, ty = 0.0

    /// The map `p ↦ p·s` (separate scales per axis).
    static func scale(_ sx: Double, _ sy: Double) -> Affine { Affine(a: sx, d: sy) }

    /// This map followed by `next`.
    func then(_ next: Affine) -> Affine {
        Affine(a: next.a * a + next.b * c, b: next.a * b + next.b * d, tx: next.a * tx + next.b * ty + next.tx,
               c: next.c * a + next.d * c, d: next.c * b + next.d * d, ty: next.c * tx + next.d * ty + next.ty)
    }

    /// The map applied to (`x`, `y`).
    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (a * x + b * y + tx, c * x + d * y + ty) }

    /// The 16.16 fixed-point pixman transform, or `nil` when an entry overflows its ±32767 range.
    var pixman: pixman_transform? {
        var f = pixman_f_transform()
        f.m = ((a, b, tx), (c, d, ty), (0, 0, 1))
        var t = pixman_transform()
        return pixman_transform_from_pixman_f_transform(&t, &f) != 0 ? t : nil
    }
}
