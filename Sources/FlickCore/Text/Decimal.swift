/// Fixed-point text for numbers in logs and tool output, without Foundation's `String(format:)`:
/// the daemon links only FoundationEssentials, which keeps ICU and its data out of its memory.
extension Double {
    /// Exactly `digits` decimals, rounded half away from zero (`1.25.fixed(1)` is `1.3`), padded
    /// on the left with spaces to `width` characters. Non-finite values read `nan`, `inf`, `-inf`.
    public func fixed(_ digits: Int, width: Int = 0) -> String {
        precondition(digits >= 0 && digits <= 9, "fixed(_:) takes 0 to 9 decimals")
        var text: String
        if !isFinite {
            text = isNaN ? "nan" : (self < 0 ? "-inf" : "inf")
        } else {
            var scale = 1.0
            for _ in 0..<digits { scale *= 10 }
            let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
            if scaled >= 9.0e15 {
                text = String(self)
            } else {
                let units = UInt64(scaled)
                let whole = units / UInt64(scale), fraction = units % UInt64(scale)
                text = (self < 0 && units > 0 ? "-" : "") + String(whole)
                if digits > 0 {
                    let f = String(fraction)
                    text += "." + String(repeating: "0", count: digits - f.count) + f
                }
            }
        }
        return text.count < width ? String(repeating: " ", count: width - text.count) + text : text
    }

    /// At most one decimal, no trailing zero, for log lines and event text: `919`, `2.5`,
    /// `-1840`; beyond 10¹⁵ in Swift's exponent form (`1e+19`), and `nan`, `inf`, `-inf`. Any
    /// value, however large, gives text: numbers in logs come from clients and must not trap.
    public var brief: String {
        guard isFinite else { return isNaN ? "nan" : (self < 0 ? "-inf" : "inf") }
        guard abs(self) < 1e15 else { return String(self) }
        let r = (self * 10).rounded() / 10
        if r == r.rounded() { return String(Int64(r)) }
        return String(r)
    }
}
