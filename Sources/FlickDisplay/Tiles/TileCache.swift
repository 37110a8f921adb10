/// Decoded tiles in memory, least recently drawn evicted first, within a byte budget.
///
/// The coarsest levels are pinned (`insert(_:_:pinned:)`): they are never evicted, so every part
/// of the content always has something to draw from. Tiles drawn in the current frame are not
/// evicted either, so a budget smaller than one frame's tiles overruns for that frame instead of
/// evicting what it is drawing. Used from the event loop's thread only.
///
/// The buffers of tiles that go are kept for the next tile of their size (`reusableBuffer`), so
/// an app redrawing its tiles costs no mapping, page faults and unmapping per tile; the kept
/// buffers count in the budget (`freeBytes`), beyond it by at most `spareBytes`.
///
/// A buffer something else still reads when its tile goes (a band's worker copying it, a frame)
/// cannot be written yet: it is **retired**, and free once they let it go (looked at when a
/// frame begins and when no free buffer is left).
/// Without that, an app redrawing tiles a band's worker was reading got a fresh mapping for
/// each, and the old buffer was unmapped when the worker let go (one answer in six under attack
/// (d) of BENCHMARKS.md section 11, "app tiles").
///
/// A kept buffer's states: retired (someone else reads it) → free (`reusableBuffer` may hand
/// it out) → a tile's again; or let go (unmapped) when the budget and spare have no room.
public final class TileCache {
    /// The most bytes of decoded tiles kept, pinned ones included (less what a scan-out band
    /// takes of `content.cache_mb`), and of buffers kept for reuse (beyond it by `spareBytes`).
    public internal(set) var budgetBytes: Int {
        didSet { trimKept() }
    }
    /// Bytes of buffers kept for reuse (free and retired) allowed beyond the budget. An app's
    /// store sets its pool's size: a cache at its budget with every tile drawn this frame then
    /// still has buffers for the tiles the app redraws, instead of mapping one for each.
    public var spareBytes = 0 {
        didSet { trimKept() }
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
    /// Times `reusableBuffer` had none (its caller mapped a new buffer) so far.
    public private(set) var misses = 0
    /// Bytes of buffers kept for reuse: with `usedBytes` and `retiredBytes`, within the budget
    /// and `spareBytes` (unless the tiles of one frame overrun it: then none are kept).
    public var freeBytes: Int { free.bytes }
    /// Bytes of retired buffers: kept for reuse once no one else reads them.
    public private(set) var retiredBytes = 0
    private var entries: [TileKey: Entry] = [:]
    private var free = TileFreeList()
    /// Buffers of tiles that went while something else still read them, oldest first.
    private var retired: [PixelBuffer] = []
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

    /// Starts a frame: what is drawn from here on counts as used by it. Retired buffers no one
    /// else reads any more are free from now on.
    public func beginFrame() {
        frame &+= 1
        reclaimRetired()
    }

    /// Frees the retired buffers no one else reads any more.
    private func reclaimRetired() {
        var index = 0
        // Tested in place: a copy of the reference would itself make it shared.
        while index < retired.count {
            guard isKnownUniquelyReferenced(&retired[index]) else {
                index += 1
                continue
            }
            let buffer = retired.remove(at: index)
            retiredBytes -= Self.bytes(of: buffer)
            free.put(buffer)
        }
    }

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
        // The same buffer again (`overwritableBuffer`, its new pixels) is forgotten as the
        // tile's, not kept for reuse or retired: it is the tile's again below.
        switch entries[key].map({ $0.buffer === buffer }) {
        case true?: forget(key)
        case false?: remove(key)
        case nil: break
        }
        let bytes = Self.bytes(of: buffer)
        entries[key] = Entry(buffer: buffer, lastUse: frame, pinned: pinned)
        usedBytes += bytes
        if pinned { pinnedBytes += bytes }
        evictOverBudget()
        trimKept()
    }

    /// A buffer of `width` × `height` pixels in `format` whose pixels are about to be written
    /// whole: one kept from a tile that went, else, when the tile would take
    /// the cache over its budget, the buffer of the tile that must go for it (evicted now rather
    /// than after); `nil` when there is none to reuse (the caller maps a new one). Its pixels
    /// are an old tile's.
    public func reusableBuffer(width: Int, height: Int, format: PixelFormat) -> PixelBuffer? {
        let found = keptOrEvicted(TileFreeList.Shape(width: width, height: height, format: format))
        if found == nil { misses += 1 } else { reuses += 1 }
        return found
    }

    /// `reusableBuffer`'s search: a free buffer of `shape` (a retired one let go counts), else
    /// the buffer of the tile evicted to make room.
    private func keptOrEvicted(_ shape: TileFreeList.Shape) -> PixelBuffer? {
        if let buffer = free.take(shape) { return buffer }
        reclaimRetired()
        if let buffer = free.take(shape) { return buffer }
        // Even a tile replacing one of its size needs room for both until it arrives: the
        // old one is drawn until then, and its buffer is kept for the next tile after that.
        guard let bytes = shape.bytes else { return nil }
        trimKept(making: bytes)
        guard usedBytes + bytes > budgetBytes else { return nil }
        for victim in evictionOrder() {
            guard usedBytes + bytes > budgetBytes else { break }
            evictions += 1
            if let buffer = remove(victim, keeping: false), shape.fits(buffer) { return buffer }
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
        retired.removeAll()
        retiredBytes = 0
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

    /// Forgets a tile; its buffer is kept for reuse when the budget and spare have room for it
    /// beside the tiles (`keeping`; retired while someone else reads it), or returned to the
    /// caller when no one else holds it (`keeping: false`; else retired).
    @discardableResult
    private func remove(_ key: TileKey, keeping: Bool = true) -> PixelBuffer? {
        guard var entry = forget(key) else { return nil }
        let bytes = Self.bytes(of: entry.buffer)
        guard entry.buffer.ownsPixels else { return nil }
        let room = budgetBytes + spareBytes - usedBytes - free.bytes - retiredBytes
        // A buffer a frame or a band's worker still reads is not written again: it is retired
        // until they let it go (or goes with them when there is no room to keep it).
        guard isKnownUniquelyReferenced(&entry.buffer) else {
            if bytes <= room {
                retired.append(entry.buffer)
                retiredBytes += bytes
            }
            return nil
        }
        if keeping {
            if bytes <= room { free.put(entry.buffer) }
            return nil
        }
        return entry.buffer
    }

    /// Forgets a tile, its buffer with it.
    @discardableResult
    private func forget(_ key: TileKey) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        let bytes = Self.bytes(of: entry.buffer)
        usedBytes -= bytes
        if entry.pinned { pinnedBytes -= bytes }
        return entry
    }

    /// Lets kept buffers go (retired ones first: they cannot be handed out yet) until the tiles
    /// and the kept buffers, and `making` bytes more, are within the budget and the spare.
    private func trimKept(making extra: Int = 0) {
        let room = budgetBytes + spareBytes - usedBytes - extra
        while retiredBytes + free.bytes > max(0, room), !retired.isEmpty {
            retiredBytes -= Self.bytes(of: retired.removeFirst())
        }
        free.trim(toBytes: room)
    }

    /// What a tile costs: its rows as allocated.
    static func bytes(of buffer: PixelBuffer) -> Int { buffer.stride * buffer.height }
}
