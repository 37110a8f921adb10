import FlickCore
import FoundationEssentials

/// Reads evemu text line by line. Every malformed line is an error naming its number and what
/// was expected; unknown header lines are skipped with a warning.
enum EvemuParser {
    struct Parsed {
        var description: DeviceDescription?
        var events: [InputEvent] = []
        var warnings: [String] = []
    }

    static func parse(_ text: String, path: String) throws(EvemuError) -> Parsed {
        var out = Parsed()
        var lineNumber = 0
        // Bytes of each bitmask read so far: consecutive B: lines of one type (and P: lines)
        // continue the same mask.
        var maskBytes: [UInt16: Int] = [:]
        // "\r\n" is one Character, so splitting on "\n" alone would leave a CRLF file one line.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            // A '#' starts a comment, also after an E: line ("E: … 7411\t# EV_ABS / …").
            let content = rawLine.firstIndex(of: "#").map { rawLine[..<$0] } ?? rawLine[...]
            // Split on scalars, not Characters: a blank followed by a combining mark is one
            // Character (" ֞"), so a name starting with one would swallow the tag's separator
            // (found by fuzzing: `N: ֞…` written back did not read as an N: line).
            let fields = content.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                .map { Substring($0) }
            guard let tag = fields.first else { continue }
            let args = Array(fields.dropFirst())
            func fail(_ message: String) -> EvemuError { EvemuError(path: path, line: lineNumber, message: message) }
            switch tag {
            case "E:":
                if out.description == nil && out.events.isEmpty && sawHeader(text: text) {
                    throw fail("expected the header (N:, I:, B:, A: lines) before the first event")
                }
                out.events.append(try event(args, fail))
            case "N:":
                guard out.events.isEmpty else { throw fail("expected the header before the events, found N: after them") }
                var name = content.unicodeScalars.drop { $0 != ":" }.dropFirst()
                while let first = name.first, first == " " || first == "\t" { name = name.dropFirst() }
                while let last = name.last, last == " " || last == "\t" || last == "\r" { name = name.dropLast() }
                out.description = DeviceDescription(name: String(Substring(name)))
            case "I:", "P:", "B:", "A:", "L:":
                guard var d = out.description else {
                    throw fail("expected 'N: NAME' as the first header line, found '\(tag)'")
                }
                guard out.events.isEmpty else { throw fail("expected the header before the events, found '\(tag)' after them") }
                try header(String(tag), args, into: &d, maskBytes: &maskBytes, fail)
                out.description = d
            default:
                out.warnings.append("\(path):\(lineNumber): skipped unknown line '\(tag)'")
            }
        }
        return out
    }

    /// Whether the text has a header at all: events-only files legitimately start with E:.
    private static func sawHeader(text: String) -> Bool {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).contains { $0.hasPrefix("N:") }
    }

    private static func event(_ args: [Substring], _ fail: (String) -> EvemuError) throws(EvemuError) -> InputEvent {
        let expected = "expected 'E: SECONDS.MICROSECONDS TYPE CODE VALUE' (type and code in hex)"
        guard args.count >= 4 else { throw fail("\(expected); the line has \(args.count) of 4 fields") }
        guard let time = timestamp(args[0]) else { throw fail("\(expected); '\(args[0])' is not a timestamp") }
        guard let type = UInt16(args[1], radix: 16) else { throw fail("\(expected); '\(args[1])' is not a hex event type") }
        guard let code = UInt16(args[2], radix: 16) else { throw fail("\(expected); '\(args[2])' is not a hex event code") }
        guard let value = Int32(args[3]) else { throw fail("\(expected); '\(args[3])' is not a decimal 32-bit value") }
        guard let maximum = EventCode.maximumCode(type: type) else { throw fail("unknown event type 0x\(String(type, radix: 16))") }
        guard code <= maximum else {
            throw fail("unknown event code 0x\(String(code, radix: 16)) for type 0x\(String(type, radix: 16)) "
                       + "(at most 0x\(String(maximum, radix: 16)))")
        }
        return InputEvent(time: time, type: type, code: code, value: value)
    }

    /// The largest whole seconds whose every microsecond fits an `Instant`.
    static let maximumSeconds = (Int64.max - 999_999_000) / 1_000_000_000

    private static func timestamp(_ text: Substring) -> Instant? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        // Seconds beyond what an Instant holds in nanoseconds (~292 years) would wrap silently
        // into a time out of order (found by fuzzing, Fuzz/Regressions/evemu).
        guard parts.count == 2, let seconds = Int64(parts[0]), seconds >= 0, seconds <= maximumSeconds,
              !parts[1].isEmpty, parts[1].count <= 6, let fraction = Int64(parts[1]), fraction >= 0 else { return nil }
        var micro = fraction
        for _ in parts[1].count..<6 { micro *= 10 }
        return Instant(seconds: seconds, microseconds: micro)
    }

    private static func header(_ tag: String, _ args: [Substring], into d: inout DeviceDescription,
                               maskBytes: inout [UInt16: Int], _ fail: (String) -> EvemuError) throws(EvemuError) {
        switch tag {
        case "I:":
            let ids = args.compactMap { UInt16($0, radix: 16) }
            guard args.count == 4, ids.count == 4 else { throw fail("expected 'I: BUS VENDOR PRODUCT VERSION' in hex") }
            (d.bus, d.vendor, d.product, d.version) = (ids[0], ids[1], ids[2], ids[3])
        case "P:":
            let bytes = try hexBytes(args, "expected 'P: ' and property bytes in hex", fail)
            let start = maskBytes[UInt16.max, default: 0]
            maskBytes[UInt16.max] = start + bytes.count
            for bit in bits(bytes, firstByte: start) { d.properties.insert(bit) }
        case "B:":
            guard let type = args.first.flatMap({ UInt16($0, radix: 16) }) else {
                throw fail("expected 'B: TYPE BYTES…' in hex")
            }
            let bytes = try hexBytes(Array(args.dropFirst()), "expected 'B: TYPE BYTES…' in hex", fail)
            let start = maskBytes[type, default: 0]
            maskBytes[type] = start + bytes.count
            if type != 0 {
                for bit in bits(bytes, firstByte: start) { d.enable(type, bit) }
            }
        case "A:":
            guard args.count == 5 || args.count == 6, let code = UInt16(args[0], radix: 16) else {
                throw fail("expected 'A: CODE MIN MAX FUZZ FLAT [RESOLUTION]' (code in hex)")
            }
            let numbers = args.dropFirst().compactMap { Int32($0) }
            guard numbers.count == args.count - 1 else {
                throw fail("expected 'A: CODE MIN MAX FUZZ FLAT [RESOLUTION]'; a value is not a decimal number")
            }
            guard code <= EventCode.ABS_MAX else { throw fail("unknown axis 0x\(String(code, radix: 16))") }
            d.setAxis(code, AbsAxis(minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
                                    resolution: numbers.count > 4 ? numbers[4] : 0))
        default:
            // L: (LED state) is valid evemu but means nothing to a touchscreen.
            break
        }
    }

    private static func hexBytes(_ args: [Substring], _ expected: String,
                                 _ fail: (String) -> EvemuError) throws(EvemuError) -> [UInt8] {
        var bytes: [UInt8] = []
        for arg in args {
            guard let byte = UInt8(arg, radix: 16) else { throw fail("\(expected); '\(arg)' is not a hex byte") }
            bytes.append(byte)
        }
        return bytes
    }

    private static func bits(_ bytes: [UInt8], firstByte: Int) -> [UInt16] {
        var out: [UInt16] = []
        for (i, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 { out.append(UInt16((firstByte + i) * 8 + bit)) }
        }
        return out
    }
}
