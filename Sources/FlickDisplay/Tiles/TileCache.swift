/// Decoded tiles in memory, least recently drawn evicted first, within a byte budget.
///
/// The coarsest levels are pinned (`insert(_:_:pinned:)`): they are never evicted, so every part
/// of the content always has something to draw from. Tiles drawn in the current frame are not
/// evicted either, so a budget smaller than one frame's tiles overruns for that frame instead of
/// evicting what it is drawing. Used from the event loop's thread only.
public final class TileCache {
    /// The most bytes of decoded tiles kept, pinned ones included (less what a scan-out band
    /// takes of `content.cache_mb`).
    public internal(set) var budgetBytes: Int
    /// Bytes held now.
    public private(set) var usedBytes = 0
    /// Of those, bytes of pinned tiles.
    public private(set) var pinnedBytes = 0
    /// Tiles evicted so far.
    public private(set) var evictions = 0
    private var entries: [TileKey: Entry] = [:]
    /// The frame being drawn, counted up by `beginFrame()`; an entry's last use is one of these.
    private var frame: UInt64 = 1

    private struct Entry {
        let buffer: PixelBuffer
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
        if let old = entries[key] { remove(key, old) }
        let bytes = Self.bytes(of: buffer)
        entries[key] = Entry(buffer: buffer, lastUse: frame, pinned: pinned)
        usedBytes += bytes
        if pinned { pinnedBytes += bytes }
        evictOverBudget()
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
        for (key, entry) in entries where drop(key) { remove(key, entry) }
    }

    /// Drops every tile that is not pinned (content replaced, memory pressure).
    public func removeUnpinned() {
        for (key, entry) in entries where !entry.pinned { remove(key, entry) }
    }

    private func evictOverBudget() {
        guard usedBytes > budgetBytes else { return }
        let candidates = entries.filter { !$0.value.pinned && $0.value.lastUse != frame }
            .sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, entry) in candidates {
            guard usedBytes > budgetBytes else { break }
            remove(key, entry)
            evictions += 1
        }
    }

    private func remove(_ key: TileKey, _ entry: Entry) {
        entries[key] = nil
        let bytes = Self.bytes(of: entry.buffer)
        usedBytes -= bytes
        if entry.pinned { pinnedBytes -= bytes }
    }

    /// What a tile costs: its rows as allocated.
    static func bytes(of buffer: PixelBuffer) -> Int { buffer.stride * buffer.height }
}
