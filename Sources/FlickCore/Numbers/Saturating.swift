/// Conversions from `Double` that cannot trap.
///
/// Swift's `Int(_: Double)` stops the process on NaN, an infinity or a value out of the integer's
/// range. Numbers reach flickd from control clients, config files, recordings and devices, so a
/// conversion of such a number must never be the plain initialiser: one out-of-range value from
/// any local client would kill the service (`flickctl set-offset --no-animate 1e19 0` did).
extension FixedWidthInteger {
    /// `value` rounded toward zero and clamped to the type's range; NaN gives zero.
    ///
    /// - Parameter value: any number.
    @inlinable
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Self.max) {
            // Double(Int64.max) rounds up to 2^63, so `>=` also catches the first value past it.
            self = .max
        } else if value <= Double(Self.min) {
            self = .min
        } else {
            self.init(value)
        }
    }
}
