import FlickControl
import FlickCore
import FlickDaemon
import Foundation

/// Bytes from a control-socket client, driven through the whole daemon path: each line through
/// `ControlRequest.decode` and `ControlCommand.init` as the server cuts and reads it, then the
/// accepted command through `CommandHandler` into the model, the frames it animates on a
/// headless display, the journal entries and subscriber events it causes, and the reply
/// (`DaemonPath`).
///
/// An input starting with a NUL byte is structured instead: records of a command number, a
/// flag byte and the raw bits of every numeric field, so each field takes every Double (NaN,
/// infinities, −0, subnormals, 1e308) — numbers JSON cannot carry but a bug could make. Each
/// record goes through `ControlCommand.init` (which must refuse a non-finite field by name) and
/// also straight into the handler as a command, bypassing that check.
///
/// Checks: a refused line is `malformed` with a reason; an accepted request writes back
/// (`line()`) to the same request; an unknown command is one `ControlCommand.names` lacks; every
/// reply is one JSON object line; every event and journal entry is text (`DaemonPath`).
enum ControlTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let daemon = DaemonPath()
        if bytes.first == 0 {
            structured(bytes.dropFirst(), daemon)
            return
        }
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            answer(line, daemon)
        }
    }

    private static func answer(_ line: Slice<UnsafeRawBufferPointer>, _ daemon: DaemonPath) {
        // The hand-written fast path (`ControlRequestScanner`) must read every line as Foundation's
        // JSONDecoder does: the same request, or the same refusal.
        let fast = Result { () throws(ControlError) in try ControlRequest.decode(line) }
        let reference = Result { () throws(ControlError) in try ControlRequest.decodeWithFoundation(line) }
        switch (fast, reference) {
        case let (.success(a), .success(b)): fuzzCheck(a == b, "the scanner read \(a), JSONDecoder \(b)")
        case let (.failure(a), .failure(b)): fuzzCheck("\(a)" == "\(b)", "the scanner refused with \(a), JSONDecoder with \(b)")
        default: fuzzCheck(false, "the scanner gave \(fast), JSONDecoder \(reference)")
        }
        let request: ControlRequest
        do {
            request = try ControlRequest.decode(line)
        } catch {
            guard case .malformed = error else { return fuzzCheck(false, "decode threw \(error)") }
            checkReply(.failure(id: nil, error))
            return
        }
        do {
            let again = try ControlRequest.decode(request.line())
            fuzzCheck(again == request, "\(request) wrote back as \(again)")
        } catch {
            fuzzCheck(false, "\(request) wrote back as a line that does not decode: \(error)")
        }
        do {
            let command = try ControlCommand(request)
            fuzzCheck(ControlCommand.names.contains(request.cmd), "'\(request.cmd)' accepted but not in the names")
            daemon.answer(command, id: request.id)
            daemon.settle()
        } catch {
            if case .unknownCommand = error {
                fuzzCheck(!ControlCommand.names.contains(request.cmd), "'\(request.cmd)' refused as unknown")
            }
            checkReply(.failure(id: request.id, error))
        }
    }

    /// Record layout: command number, flags (bit 0: animated, and touch-overlay's `enabled`), x,
    /// y, width, height, scale as raw little-endian Double bits, page as a raw Int64 (its bits
    /// also give `provide`'s, `tile`'s, `display`'s and `claim`'s fields).
    private static let recordSize = 2 + 5 * 8 + 8

    private static func structured(_ bytes: Slice<UnsafeRawBufferPointer>, _ daemon: DaemonPath) {
        var rest = bytes
        while rest.count >= recordSize {
            let record = rest.prefix(recordSize)
            rest = rest.dropFirst(recordSize)
            let base = record.startIndex
            func double(_ i: Int) -> Double {
                var bits: UInt64 = 0
                for k in 0..<8 { bits |= UInt64(record[base + 2 + 8 * i + k]) << (8 * k) }
                return Double(bitPattern: bits)
            }
            var page: Int64 = 0
            for k in 0..<8 { page |= Int64(record[base + 42 + k]) << (8 * k) }
            let names = ControlCommand.names
            let cmd = names[Int(record[base]) % names.count]
            let animated = record[base + 1] & 1 == 1
            let (x, y, width, height, scale) = (double(0), double(1), double(2), double(3), double(4))
            // The content provider's fields (`provide`, `tile`), `display`'s state and `claim`'s
            // contact come from the page's bits too, so every command finds each field it needs.
            let request = ControlRequest(id: Int(page & 0xFF), cmd: cmd, x: x, y: y, width: width, height: height,
                                         scale: scale, page: Int(page), animated: animated, path: "fuzz.png",
                                         enabled: animated, tileSize: Int(page >> 8 & 0xFFFF), slots: Int(page >> 24 & 0xFF),
                                         detail: Int(page >> 32 & 0xF), opaque: animated, name: "fuzz",
                                         request: Int(page), drawn: animated,
                                         state: ["on", "off", "dim", "bright"][Int(page >> 40 & 3)], contact: Int(page))
            do {
                daemon.answer(try ControlCommand(request), id: request.id)
            } catch {
                // Every field is present, so only a bad value (or a page out of range) refuses.
                if case .badField = error {} else { fuzzCheck(false, "\(request) refused with \(error)") }
                checkReply(.failure(id: request.id, error))
            }
            // The handler takes whatever a command holds, finite or not, without trapping.
            let direct: ControlCommand? = switch cmd {
            case "set-offset": .setOffset(x: x, y: y, animated: animated)
            case "scroll-rect-to-visible": .scrollRectToVisible(x: x, y: y, width: width, height: height, animated: animated)
            case "set-zoom": .setZoomScale(scale, animated: animated)
            case "zoom-to-rect": .zoomToRect(x: x, y: y, width: width, height: height, animated: animated)
            case "page": .showPage(Int(page), animated: animated)
            default: nil
            }
            if let direct { daemon.answer(direct, id: nil) }
            daemon.settle(seconds: Double(record[base + 1] >> 1) / 128)
        }
        daemon.settle()
    }

    /// Replies already checked: most fuzz inputs repeat a few failures, whose JSON encoding and
    /// parsing took two thirds of the target's time (the long run's 1 100 exec/s).
    nonisolated(unsafe) private static var checked: Set<ControlMessage> = []

    /// The reply is one line holding one JSON object.
    private static func checkReply(_ message: ControlMessage) {
        if checked.count > 100_000 { checked.removeAll() }
        guard checked.insert(message).inserted else { return }
        let line = message.line()
        fuzzCheck(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil, "the reply is not one line")
        let object = try? JSONSerialization.jsonObject(with: line.dropLast()) as? [String: Any]
        fuzzCheck(object?["ok"] as? Bool == false, "the reply is not a JSON failure: \(String(decoding: line, as: UTF8.self))")
    }

    /// One request of every command, as flickctl writes them, and a few malformed lines.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let requests: [ControlRequest] = [
            ControlRequest(id: 1, cmd: "status"),
            ControlRequest(id: 2, cmd: "set-offset", x: 0, y: 480, animated: true),
            ControlRequest(id: 3, cmd: "scroll-rect-to-visible", x: 10, y: 20, width: 300, height: 200, animated: false),
            ControlRequest(id: 4, cmd: "set-zoom", scale: 2.5, animated: false),
            ControlRequest(id: 5, cmd: "zoom-to-rect", x: 0, y: 0, width: 400.5, height: 240, animated: true),
            ControlRequest(id: 6, cmd: "page", page: 3),
            ControlRequest(id: 7, cmd: "scroll-to-top"),
            ControlRequest(id: 8, cmd: "stop"),
            ControlRequest(id: 9, cmd: "flash-indicators"),
            ControlRequest(id: 10, cmd: "load", path: "/srv/kiosk/map.png"),
            ControlRequest(id: 11, cmd: "subscribe", events: ["didScroll", "gesture"]),
            ControlRequest(cmd: "subscribe"),
            ControlRequest(id: 12, cmd: "snapshot", path: "/tmp/frame.png"),
            ControlRequest(id: 13, cmd: "reload"),
            ControlRequest(id: 14, cmd: "touch-overlay", enabled: true),
            ControlRequest(id: 15, cmd: "scroll-enabled", enabled: false),
            ControlRequest(id: 16, cmd: "scrolls-to-top", enabled: false),
            ControlRequest(id: 17, cmd: "delays-content-touches", enabled: false),
            ControlRequest(id: 18, cmd: "can-cancel-content-touches", enabled: true),
            ControlRequest(id: 19, cmd: "display", state: "off"),
            ControlRequest(id: 20, cmd: "claim", contact: 3),
        ]
        var out = requests.map { (name: "\($0.cmd)-\($0.id ?? 0).json", bytes: [UInt8]($0.line())) }
        let malformed = [
            ("missing-field.json", #"{"id": 20, "cmd": "set-offset", "x": 1}"#),
            ("wrong-type.json", #"{"id": "21", "cmd": "set-zoom", "scale": "big"}"#),
            ("unknown-command.json", #"{"cmd": "explode"}"#),
            ("not-json.txt", "set-offset 0 480"),
            ("two-lines.json", "{\"cmd\": \"status\"}\r\n\t\n{\"cmd\": \"page\", \"page\": -1}\n"),
            ("unicode.json", #"{"cmd": "load", "path": "/srv/k\u00efosk/\ud83d\ude00.png", "id": -9223372036854775808}"#),
        ]
        out += malformed.map { (name: $0.0, bytes: Array($0.1.utf8)) }
        // Every numeric field of every command at the ends of what JSON carries.
        let extremes = ["1e19", "-1e19", "1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "-0.0",
                        "9223372036854775807", "-9223372036854775808"]
        var lines = ""
        for value in extremes {
            for line in [#"{"cmd": "set-offset", "x": V, "y": V, "animated": false}"#, #"{"cmd": "set-offset", "x": V, "y": 0}"#,
                         #"{"cmd": "scroll-rect-to-visible", "x": V, "y": V, "width": V, "height": V}"#,
                         #"{"cmd": "set-zoom", "scale": V, "animated": false}"#, #"{"cmd": "set-zoom", "scale": V}"#,
                         #"{"cmd": "zoom-to-rect", "x": V, "y": V, "width": V, "height": V, "animated": false}"#,
                         #"{"cmd": "page", "page": V, "id": V}"#] {
                lines += line.replacingOccurrences(of: "V", with: value) + "\n"
            }
            lines += #"{"cmd": "scroll-to-top"}"# + "\n" + #"{"cmd": "status"}"# + "\n"
        }
        out.append((name: "extreme-numbers.json", bytes: Array(lines.utf8)))
        // The structured form: each command with NaN, ±infinity, ±huge, ±0 and subnormals.
        let specials: [Double] = [.nan, .infinity, -.infinity, 1e19, -1e19, .greatestFiniteMagnitude, -0.0,
                                  .leastNonzeroMagnitude, 0, 2.5]
        var records: [UInt8] = [0]
        for (i, value) in specials.enumerated() {
            for command in 0..<ControlCommand.names.count {
                records.append(UInt8(command))
                records.append(UInt8(i % 2) | 0x08)
                let fields = [value, specials[(i + 1) % specials.count], value, value, value]
                for field in fields { withUnsafeBytes(of: field.bitPattern.littleEndian) { records += $0 } }
                withUnsafeBytes(of: Int64(i == 0 ? .max : -i).littleEndian) { records += $0 }
            }
        }
        out.append((name: "structured-specials.bin", bytes: records))
        return out
    }
}
