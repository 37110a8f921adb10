/// A tile a content provider is asked to draw (`tileRequest`; docs/protocol.md, "Content
/// providers").
public struct ControlTileRequest: Codable, Hashable, Sendable {
    /// The tile's level of detail (the full resolution is the highest), column and row.
    public var level: Int
    public var column: Int
    public var row: Int
    /// Pixels per content pixel at that level.
    public var scale: Double
    /// The content rectangle the tile shows, in unscaled content pixels.
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    /// The tile's size in pixels.
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Where to draw it: the pool's slot, its byte offset, the bytes between rows.
    public var slot: Int
    public var offset: Int
    public var stride: Int

    /// Creates a tile request.
    public init(level: Int, column: Int, row: Int, scale: Double, x: Double, y: Double, width: Double, height: Double,
                pixelWidth: Int, pixelHeight: Int, slot: Int, offset: Int, stride: Int) {
        self.level = level
        self.column = column
        self.row = row
        self.scale = scale
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.slot = slot
        self.offset = offset
        self.stride = stride
    }
}

extension ControlMessage {
    /// The event asking the content provider to draw `tile` (request `id`).
    public static func tileRequest(id: Int, tile: ControlTileRequest) -> ControlMessage {
        var m = ControlMessage()
        m.type = "tileRequest"
        m.request = id
        m.tile = tile
        return m
    }

    /// The event telling the content provider that request `id`'s tile is no longer wanted.
    public static func tileCancel(id: Int) -> ControlMessage {
        var m = ControlMessage()
        m.type = "tileCancel"
        m.request = id
        return m
    }

    /// Event types of the content provider's own, which carry no `t` or state.
    public static let providerEventTypes: Set<String> = ["tileRequest", "tileCancel"]
}

/// The content provider, as `provide`'s reply (its layout) and `status` (its progress) report it.
public struct ControlProviderStatus: Codable, Hashable, Sendable {
    /// The provider's name.
    public var name: String
    /// The content's levels of detail.
    public var levels: Int?
    /// Bytes of one slot of the pool, and between rows of a tile in it.
    public var slotBytes: Int?
    public var stride: Int?
    /// Whether it is connected (status).
    public var connected: Bool?
    /// Tiles wanted and not drawn yet: asked for (and not given up), or waiting for a slot.
    public var pending: Int?
    /// Tiles it drew.
    public var drawn: Int?
    /// Requests given up for want of an answer in time.
    public var timeouts: Int?
    /// Requests cancelled (scrolled away before they were drawn).
    public var cancelled: Int?
    /// `invalidate`s received.
    public var invalidations: Int?
    /// Where answered tiles were copied: over the old pixels of the tile itself (nothing else
    /// read them), into the kept buffer of a tile that went, or into a buffer mapped for it (the
    /// kernel clears and faults it in, and unmaps one later: what `TileCache` avoids).
    public var tilesOverwritten: Int?
    public var tilesIntoKeptBuffers: Int?
    public var tilesIntoNewBuffers: Int?
    /// Changed tiles on screen that waited for their turn (`content.provider_redraw_hz`) so far,
    /// and waiting now.
    public var redrawsDeferred: Int?
    public var redrawsWaiting: Int?
    /// The mean time from a request to its answer over the last 64 answers, in milliseconds.
    public var latencyMs: Double?
    /// From a request to the frame showing its tile presented, median and 99th percentile of
    /// the last 1024 tiles, in milliseconds.
    public var presentedP50Ms: Double?
    public var presentedP99Ms: Double?

    /// Creates a provider status.
    public init(name: String, levels: Int? = nil, slotBytes: Int? = nil, stride: Int? = nil, connected: Bool? = nil,
                pending: Int? = nil, drawn: Int? = nil, timeouts: Int? = nil, cancelled: Int? = nil,
                invalidations: Int? = nil, latencyMs: Double? = nil) {
        self.name = name
        self.levels = levels
        self.slotBytes = slotBytes
        self.stride = stride
        self.connected = connected
        self.pending = pending
        self.drawn = drawn
        self.timeouts = timeouts
        self.cancelled = cancelled
        self.invalidations = invalidations
        self.latencyMs = latencyMs
    }
}
