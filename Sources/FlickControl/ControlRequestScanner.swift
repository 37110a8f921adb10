/// Reads the common shape of a request line without Foundation's `JSONDecoder`, which costs a
/// provider's hot lines (`invalidate`, `tile`: thousands a second) more than everything the
/// daemon then does with them. It takes only what it is sure of: one flat JSON object whose
/// keys are `ControlRequest`'s scalar fields, each once, with a value of the field's type in a
/// plain form (ASCII strings without escapes, whole numbers that fit an Int, numbers whose value
/// is finite and normal). Anything else — another key, `null`, an array, an escape, a number in
/// another form, a duplicate, a missing `cmd`, bytes after the object — is `nil`, and
/// `ControlRequest.decode` hands the line to `JSONDecoder`, so every line refused is refused
/// with the decoder's own error and every line taken is the request the decoder makes of it
/// (`ControlRequestScannerTests` compares the two).
enum ControlRequestScanner {
    /// The request in `bytes`, or `nil` when the line is not of the plain shape.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ControlRequest? {
        var s = Cursor(bytes: bytes)
        s.skipSpace()
        guard s.take(0x7B) else { return nil }
        var request = ControlRequest(cmd: "")
        var seen: UInt32 = 0
        s.skipSpace()
        if !s.take(0x7D) {
            repeat {
                s.skipSpace()
                guard let key = s.plainString(), let field = Field(key) else { return nil }
                let bit: UInt32 = 1 << field.rawValue
                guard seen & bit == 0 else { return nil }
                seen |= bit
                s.skipSpace()
                guard s.take(0x3A) else { return nil }
                s.skipSpace()
                guard s.read(field, into: &request) else { return nil }
                s.skipSpace()
            } while s.take(0x2C)
            guard s.take(0x7D) else { return nil }
        }
        s.skipSpace()
        guard s.atEnd, seen & (1 << Field.cmd.rawValue) != 0 else { return nil }
        return request
    }

    /// Whether `bytes` cannot be JSON in any encoding: its first byte is a control character
    /// other than JSON's whitespace (what the fuzz targets' step lines start with). A zero first
    /// byte is not taken: JSON in UTF-16 or UTF-32 may start with one.
    static func isSurelyNotJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return first >= 0x01 && first < 0x20 && first != 0x09 && first != 0x0A && first != 0x0D
    }

    /// `ControlRequest`'s fields this reader takes, with their JSON names (`events`, an array,
    /// is left to the decoder).
    private enum Field: UInt32 {
        case id, cmd, x, y, width, height, scale, page, animated, path, enabled, tileSize, slots, detail, opaque,
             background, name, request, drawn, state, contact

        /// The JSON names, in the cases' order.
        static let names: [StaticString] = ["id", "cmd", "x", "y", "width", "height", "scale", "page", "animated", "path",
                                            "enabled", "tileSize", "slots", "detail", "opaque", "background", "name",
                                            "request", "drawn", "state", "contact"]

        /// The field named by `key`'s bytes (compared as bytes: no String is made per key).
        init?(_ key: UnsafeBufferPointer<UInt8>) {
            for (i, name) in Self.names.enumerated() where name.utf8CodeUnitCount == key.count {
                let bytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
                if bytes.elementsEqual(key), let field = Field(rawValue: UInt32(i)) {
                    self = field
                    return
                }
            }
            return nil
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        var atEnd: Bool { at == bytes.count }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        /// A string of printable ASCII without escapes, its quotes taken: its bytes.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard take(0x22) else { return nil }
            let start = at
            while at < bytes.count, bytes[at] != 0x22 {
                guard bytes[at] >= 0x20, bytes[at] < 0x7F, bytes[at] != 0x5C else { return nil }
                at += 1
            }
            guard at < bytes.count else { return nil }
            at += 1
            return UnsafeBufferPointer(rebasing: bytes[start..<at - 1])
        }

        /// Whether the value ends here: JSON's whitespace, the next pair, the object's end.
        private var atDelimiter: Bool {
            guard at < bytes.count else { return true }
            switch bytes[at] {
            case 0x20, 0x09, 0x0A, 0x0D, 0x2C, 0x7D: return true
            default: return false
            }
        }

        private mutating func digits() -> Int {
            let start = at
            while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
            return at - start
        }

        /// A whole number: `-`, then `0` or up to 19 digits not starting with 0 that fit an Int
        /// (no `-0`, which the decoder may read otherwise).
        mutating func whole() -> Int? {
            let negative = take(0x2D), start = at
            let count = digits()
            guard count >= 1, count <= 19, bytes[start] != 0x30 || (count == 1 && !negative), atDelimiter else { return nil }
            // Summed toward the sign, so that Int.min is read too.
            var value = 0
            for i in start..<at {
                let digit = Int(bytes[i] - 0x30)
                let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
                let (next, overflowPlus) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflowTimes, !overflowPlus else { return nil }
                value = next
            }
            return value
        }

        /// A JSON number of at most 32 characters whose value is finite and, unless every digit
        /// is 0 (then without an exponent), normal: read exactly as the decoder reads it
        /// (correctly rounded). Numbers the decoder may refuse (overflowing, underflowing to a
        /// subnormal or zero, a zero with an exponent) are left to it.
        mutating func number() -> Double? {
            let start = at
            _ = take(0x2D)
            let first = at, count = digits()
            guard count >= 1, bytes[first] != 0x30 || count == 1 else { return nil }
            var zero = bytes[first] == 0x30
            if take(0x2E) {
                let fraction = at
                guard digits() >= 1 else { return nil }
                zero = zero && bytes[fraction..<at].allSatisfy { $0 == 0x30 }
            }
            if take(0x65) || take(0x45) {
                // Foundation's decoder refuses some zeros with an exponent ("0e5") and takes
                // others ("0e0"): whichever, it decides.
                guard !zero else { return nil }
                if !take(0x2B) { _ = take(0x2D) }
                guard digits() >= 1 else { return nil }
            }
            guard atDelimiter, at - start <= 32,
                  let value = Double(Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)),
                  value.isFinite, zero ? value == 0 : value.isNormal else { return nil }
            return value
        }

        mutating func bool() -> Bool? {
            let value: Bool
            if word("true") {
                value = true
            } else if word("false") {
                value = false
            } else {
                return nil
            }
            return atDelimiter ? value : nil
        }

        private mutating func word(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            for i in 0..<count where bytes[at + i] != text.utf8Start[i] { return false }
            at += count
            return true
        }

        mutating func string() -> String? { plainString().map { String(decoding: $0, as: UTF8.self) } }

        /// The value of `field`, into `request`; `false` when it is not of the plain shape.
        mutating func read(_ field: Field, into r: inout ControlRequest) -> Bool {
            switch field {
            case .id: r.id = whole(); return r.id != nil
            case .cmd:
                guard let cmd = string() else { return false }
                r.cmd = cmd
                return true
            case .x: r.x = number(); return r.x != nil
            case .y: r.y = number(); return r.y != nil
            case .width: r.width = number(); return r.width != nil
            case .height: r.height = number(); return r.height != nil
            case .scale: r.scale = number(); return r.scale != nil
            case .page: r.page = whole(); return r.page != nil
            case .animated: r.animated = bool(); return r.animated != nil
            case .path: r.path = string(); return r.path != nil
            case .enabled: r.enabled = bool(); return r.enabled != nil
            case .tileSize: r.tileSize = whole(); return r.tileSize != nil
            case .slots: r.slots = whole(); return r.slots != nil
            case .detail: r.detail = whole(); return r.detail != nil
            case .opaque: r.opaque = bool(); return r.opaque != nil
            case .background: r.background = string(); return r.background != nil
            case .name: r.name = string(); return r.name != nil
            case .request: r.request = whole(); return r.request != nil
            case .drawn: r.drawn = bool(); return r.drawn != nil
            case .state: r.state = string(); return r.state != nil
            case .contact: r.contact = whole(); return r.contact != nil
            }
        }
    }
}
