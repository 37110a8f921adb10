/// Decoded tiles in memory, least recently drawn evicted first, within a byte budget.
///
/// The coarsest levels are pinned (`insert(_:_:pinned:)`): they are never evicted, so every part
/// of the content always has something to draw from. Tiles drawn in the current frame are not
/// evicted either, so a budget smaller than one frame's tiles overruns for that frame instead of
/// evicting what it is drawing. Used from the event loop's thread only.
///
/// The buffers of tiles that go are kept for the next tile of their size (`reusableBuffer`), so
/// an app redrawing its tiles costs no mapping, page faults and unmapping per tile; the kept
/// buffers count in the budget (`freeBytes`), so the cache never holds more than before.
public final class TileCache {
    /// The most bytes of decoded tiles kept, pinned ones included (less what a scan-out band
    /// takes of `content.cache_mb`), and of buffers kept for reuse.
    public internal(set) var budgetBytes: Int {
        didSet { free.trim(toBytes: budgetBytes - usedBytes) }
    }
    /// Bytes held now.
    public private(set) var usedBytes = 0
    /// Of those, bytes of pinned tiles.
    public private(set) var pinnedBytes = 0
    /// Tiles evicted so far.
    public private(set) var evictions = 0
    /// Buffers handed out again by `reusableBuffer` so far.
    public private(set) var reuses = 0
    /// Tiles' own buffers handed out by `overwritableBuffer` so far.
    public private(set) var overwrites = 0
    /// Bytes of buffers kept for reuse: with `usedBytes`, within the budget (unless the tiles
    /// of one frame overrun it: then none are kept).
    public var freeBytes: Int { free.bytes }
    private var entries: [TileKey: Entry] = [:]
    private var free = TileFreeList()
    /// The frame being drawn, counted up by `beginFrame()`; an entry's last use is one of these.
    private var frame: UInt64 = 1

    private struct Entry {
        var buffer: PixelBuffer
        var lastUse: UInt64
        let pinned: Bool
    }

    /// Creates an empty cache.
    public init(budgetBytes: Int) {
        self.budgetBytes = max(0, budgetBytes)
    }

    /// Tiles held.
    public var count: Int { entries.count }

    /// Starts a frame: what is drawn from here on counts as used by it.
    public func beginFrame() { frame &+= 1 }

    /// The tile, if held, marked as used by the current frame.
    public func tile(_ key: TileKey) -> PixelBuffer? {
        guard var entry = entries[key] else { return nil }
        entry.lastUse = frame
        entries[key] = entry
        return entry.buffer
    }

    /// Whether the tile is held (without marking it used).
    public func contains(_ key: TileKey) -> Bool { entries[key] != nil }

    /// Holds a tile, then evicts the least recently used unpinned tiles not drawn in the
    /// current frame until the cache is within its budget again (or nothing more may go).
    public func insert(_ key: TileKey, _ buffer: PixelBuffer, pinned: Bool = false) {
        // The same buffer again (`overwritableBuffer`) is held by the caller too, so `remove`
        // neither keeps it for reuse nor returns it.
        if entries[key] != nil { remove(key) }
        let bytes = Self.bytes(of: buffer)
        entries[key] = Entry(buffer: buffer, lastUse: frame, pinned: pinned)
        usedBytes += bytes
        if pinned { pinnedBytes += bytes }
        evictOverBudget()
        free.trim(toBytes: budgetBytes - usedBytes)
    }

    /// A buffer of `width` × `height` pixels in `format` whose pixels are about to be written
    /// whole: one kept from a tile that went, else, when the tile would take
    /// the cache over its budget, the buffer of the tile that must go for it (evicted now rather
    /// than after); `nil` when there is none to reuse (the caller maps a new one). Its pixels
    /// are an old tile's.
    public func reusableBuffer(width: Int, height: Int, format: PixelFormat) -> PixelBuffer? {
        let shape = TileFreeList.Shape(width: width, height: height, format: format)
        if let buffer = free.take(shape) {
            reuses += 1
            return buffer
        }
        // Even a tile replacing one of its size needs room for both until it arrives: the
        // old one is drawn until then, and its buffer is kept for the next tile after that.
        guard let bytes = shape.bytes else { return nil }
        free.trim(toBytes: budgetBytes - usedBytes - bytes)
        guard usedBytes + bytes > budgetBytes else { return nil }
        for victim in evictionOrder() {
            guard usedBytes + bytes > budgetBytes else { break }
            evictions += 1
            guard let buffer = remove(victim, keeping: false), shape.fits(buffer) else { continue }
            reuses += 1
            return buffer
        }
        return nil
    }

    /// The buffer of tile `key` itself, for its new pixels to be written over its old ones: an
    /// app redrawing a tile on screen (an invalidation) answers with the tile the cache holds,
    /// drawn this frame, so `reusableBuffer` can neither evict it nor find a free one, and each
    /// answer would cost a fresh mapping and its page faults. `nil` unless the tile is held in
    /// that shape and nothing else holds its buffer (a band's worker reading it, an arrival not
    /// taken yet). Its old pixels are drawn until the new ones are taken in (`insert` of the
    /// same buffer), which also marks what a band copied of it out of date.
    public func overwritableBuffer(_ key: TileKey, width: Int, height: Int, format: PixelFormat) -> PixelBuffer? {
        guard let index = entries.index(forKey: key),
              TileFreeList.Shape(width: width, height: height, format: format).fits(entries.values[index].buffer),
              entries.values[index].buffer.ownsPixels,
              isKnownUniquelyReferenced(&entries.values[index].buffer) else { return nil }
        overwrites += 1
        return entries.values[index].buffer
    }

    /// Bytes of the tiles eviction may not take now: pinned ones and those drawn in the current frame.
    public var bytesKept: Int {
        entries.values.reduce(0) { $0 + ($1.pinned || $1.lastUse == frame ? Self.bytes(of: $1.buffer) : 0) }
    }

    /// Bytes of a held tile that eviction may take (0 for one pinned or drawn in the current
    /// frame: `bytesKept` has it); `nil` when it is not held.
    public func evictableBytes(of key: TileKey) -> Int? {
        guard let entry = entries[key] else { return nil }
        return entry.pinned || entry.lastUse == frame ? 0 : Self.bytes(of: entry.buffer)
    }

    /// The keys of the tiles held, in no order.
    public var keys: [TileKey] { Array(entries.keys) }

    /// Drops the tiles `drop` picks.
    public func remove(where drop: (TileKey) -> Bool) {
        for key in entries.keys.filter(drop) { remove(key) }
    }

    /// Drops every tile that is not pinned (content replaced, memory pressure), and the
    /// buffers kept for reuse.
    public func removeUnpinned() {
        for key in entries.filter({ !$0.value.pinned }).map(\.key) { remove(key, keeping: false) }
        free.trim(toBytes: 0)
    }

    /// Unpinned tiles not drawn in the current frame, least recently drawn first.
    private func evictionOrder() -> [TileKey] {
        entries.filter { !$0.value.pinned && $0.value.lastUse != frame }.sorted { $0.value.lastUse < $1.value.lastUse }.map(\.key)
    }

    private func evictOverBudget() {
        guard usedBytes > budgetBytes else { return }
        for key in evictionOrder() {
            guard usedBytes > budgetBytes else { break }
            remove(key)
            evictions += 1
        }
    }

    /// Forgets a tile; its buffer is kept for reuse when the budget has room for it beside the
    /// tiles (`keeping`), or returned to the caller when no one else holds it (`keeping: false`).
    @discardableResult
    private func remove(_ key: TileKey, keeping: Bool = true) -> PixelBuffer? {
        guard var entry = entries.removeValue(forKey: key) else { return nil }
        let bytes = Self.bytes(of: entry.buffer)
        usedBytes -= bytes
        if entry.pinned { pinnedBytes -= bytes }
        // A buffer a frame or a band's worker still reads is not written again: it goes when they let it go.
        guard isKnownUniquelyReferenced(&entry.buffer), entry.buffer.ownsPixels else { return nil }
        if keeping {
            if usedBytes + free.bytes + bytes <= budgetBytes { free.put(entry.buffer) }
            return nil
        }
        return entry.buffer
    }

    /// What a tile costs: its rows as allocated.
    static func bytes(of buffer: PixelBuffer) -> Int { buffer.stride * buffer.height }
}
