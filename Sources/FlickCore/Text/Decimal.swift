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

    /// The one number format of messages (log lines, config errors, events in words, tool
    /// output). A number with at most six significant digits reads as written, a whole one
    /// without a point: `919`, `-5`, `0`, `2.54`, `0.025`, `0.00099` (what a config file or a
    /// command gives is echoed exactly: an error saying "from 0.001, got 0.001" would contradict
    /// itself). Any other (a computed offset, velocity or zoom) has three significant digits, at
    /// least one decimal and no trailing zero: `-376.2`, `1.33`, `0.0244`; and more when fewer
    /// would make a number that is not whole read as one (`1.0000001`). A zoom of 0.025 is then
    /// never `0`, nor an offset `-376.20000000000005`. Beyond 10¹⁵ and below 10⁻⁴ in Swift's
    /// exponent form (`1e+19`, `5e-324`); `nan`, `inf`, `-inf`. Any value gives text: numbers in messages come from
    /// clients and must not trap.
    public var brief: String {
        guard isFinite else { return isNaN ? "nan" : (self < 0 ? "-inf" : "inf") }
        let magnitude = abs(self)
        guard magnitude < 1e15 else { return String(self) }
        let shortest = String(self)
        // Below 10⁻⁴ Swift writes an exponent (`1e-07`), kept: `0` would misstate a value that
        // must be greater than 0.
        let mantissa = shortest.prefix { $0 != "e" }
        if mantissa.filter(\.isNumber).drop(while: { $0 == "0" }).count <= 6 {
            return String(mantissa).trimmingFractionZeros() + shortest.dropFirst(mantissa.count)
        }
        guard magnitude >= 1e-4 else { return shortest }
        var decimals = 1
        if magnitude < 1 {
            var m = magnitude * 10
            decimals = 3
            while m < 1 { m *= 10; decimals += 1 }
        } else if magnitude < 10 {
            decimals = 2
        }
        var text = fixed(decimals).trimmingFractionZeros()
        while !text.contains("."), self != rounded(), decimals < 9 {
            decimals += 1
            text = fixed(decimals).trimmingFractionZeros()
        }
        return text
    }

    /// A setting as a config file writes it, for echoing it back (`ScaleSetting`,
    /// `DoubleTapZoom`): every digit it has, unlike `brief` (`0.3333333333`, not `0.333`), and
    /// no `.0`.
    var written: String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

extension String {
    /// `2.500` → `2.5`, `3.000` → `3`, `-0.000` → `0`; text without a point is left alone.
    fileprivate func trimmingFractionZeros() -> String {
        guard contains(".") else { return self }
        var text = Substring(self)
        while text.last == "0" { text = text.dropLast() }
        if text.last == "." { text = text.dropLast() }
        return text == "-0" ? "0" : String(text)
    }
}
