import FoundationEssentials

/// Writes the messages a content provider's session sends by the thousand — the plain success
/// reply to each `tile` and `invalidate`, `tileRequest`, `tileCancel` — byte for byte as
/// `ControlMessage.line()`'s JSONEncoder writes them (keys sorted, no spaces), without the
/// encoder, which cost the loop thread more than the rest of answering them
/// (`ControlRequestScannerTests` compares the two). A number it cannot be sure to write as the
/// encoder does (not a whole number below 2⁵³, or −0) leaves the message to the encoder.
enum ControlLineWriter {
    /// `message`'s line (with the newline), or `nil` when it is none of these shapes.
    static func line(_ message: ControlMessage) -> Data? {
        if message.ok == true, message == .reply(id: message.id) {
            return Data((message.id.map { "{\"id\":\($0),\"ok\":true}\n" } ?? "{\"ok\":true}\n").utf8)
        }
        guard let type = message.type, let id = message.request else { return nil }
        if type == "tileCancel", message == .tileCancel(id: id) {
            return Data("{\"request\":\(id),\"type\":\"tileCancel\"}\n".utf8)
        }
        guard type == "tileRequest", let t = message.tile, message == .tileRequest(id: id, tile: t),
              let scale = whole(t.scale), let x = whole(t.x), let y = whole(t.y), let width = whole(t.width),
              let height = whole(t.height) else { return nil }
        return Data(("{\"request\":\(id),\"tile\":{\"column\":\(t.column),\"height\":\(height),\"level\":\(t.level),"
            + "\"offset\":\(t.offset),\"pixelHeight\":\(t.pixelHeight),\"pixelWidth\":\(t.pixelWidth),\"row\":\(t.row),"
            + "\"scale\":\(scale),\"slot\":\(t.slot),\"stride\":\(t.stride),\"width\":\(width),\"x\":\(x),\"y\":\(y)},"
            + "\"type\":\"tileRequest\"}\n").utf8)
    }

    /// `value` as the encoder writes a whole number, if it is one it surely writes so.
    private static func whole(_ value: Double) -> Int? {
        guard value.rounded() == value, abs(value) < 0x1p53, !(value == 0 && value.sign == .minus) else { return nil }
        return Int(value)
    }
}
