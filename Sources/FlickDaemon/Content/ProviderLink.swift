import FlickControl
import FlickDisplay

/// How a content provider's session reaches the app: the control socket's connection, or a fuzz
/// target's model of the app.
public protocol ProviderLink: AnyObject {
    /// Carries a request or a cancel to the provider's connection.
    func send(_ message: TileProvider.Message, to caller: ControlServer.Caller)
    /// Sends the connection `types` of events without its asking (the content's touches).
    func subscribe(_ caller: ControlServer.Caller, to types: Set<String>)
}

extension ControlServer: ProviderLink {
    /// Sends a tile request or cancel as its protocol message (docs/protocol.md).
    public func send(_ message: TileProvider.Message, to caller: Caller) {
        _ = send(message.controlMessage, to: caller)
    }
}

extension TileProvider.Message {
    /// The protocol message that carries it: `tileRequest` or `tileCancel`.
    var controlMessage: ControlMessage {
        switch self {
        case .request(let r):
            let tile = ControlTileRequest(level: r.key.level, column: r.key.column, row: r.key.row, scale: r.scale,
                                          x: r.x, y: r.y, width: r.width, height: r.height, pixelWidth: r.pixelWidth,
                                          pixelHeight: r.pixelHeight, slot: r.slot, offset: r.offset, stride: r.stride)
            return .tileRequest(id: r.id, tile: tile)
        case .cancel(let id):
            return .tileCancel(id: id)
        }
    }
}
