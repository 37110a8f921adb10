import FlickControl
import Foundation

/// Bytes from a control-socket client, cut into lines as the server cuts them, each through
/// `ControlRequest.decode` and `ControlCommand.init`.
///
/// Checks: a refused line is `malformed` with a reason; an accepted request writes back
/// (`line()`) to the same request; an unknown command is one `ControlCommand.names` lacks; every
/// reply the server would send is one JSON object.
enum ControlTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            answer(line)
        }
    }

    private static func answer(_ line: Slice<UnsafeRawBufferPointer>) {
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
            _ = try ControlCommand(request)
            fuzzCheck(ControlCommand.names.contains(request.cmd), "'\(request.cmd)' accepted but not in the names")
        } catch {
            if case .unknownCommand = error {
                fuzzCheck(!ControlCommand.names.contains(request.cmd), "'\(request.cmd)' refused as unknown")
            }
            checkReply(.failure(id: request.id, error))
        }
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
        return out
    }
}
