import FlickCore
import FlickSystem

/// One content's tiles: where they come from, the decoded ones in memory, and the workers that
/// make the missing ones; the compositor asks it for tiles, the loop feeds it what arrived.
///
/// The coarsest levels are made when the store is created and pinned in the cache, so every
/// frame has something to draw everywhere: a tile not in memory yet is drawn from the best
/// coarser tile that is, and asked for. With no workers (`workers: 0`: replays and tests, which
/// must be deterministic) a missing tile is made the moment a frame needs it.
public final class TileStore {
    /// Where tiles come from.
    public let source: any TileSource
    /// Decoded tiles.
    public let cache: TileCache
    /// What makes missing tiles away from the loop (the workers, or an app drawing them), or
    /// `nil` when tiles are made as frames need them.
    public let fetcher: (any TileFetching)?
    /// The workers, when the tiles come from them.
    public var loader: TileLoader? { fetcher as? TileLoader }
    /// The finest pinned level: it and every coarser one stay in memory (below `lowestLevel`:
    /// none is pinned).
    public private(set) var pinnedLevel: Int
    /// Tiles that could not be made, with why: drawn from a coarser level and never asked again.
    public private(set) var failed: [TileKey: ContentError] = [:]
    /// Failures not yet taken by `takeFailures()` (each is logged once, not per frame).
    private var unreported: [ContentError] = []
    /// The files already reported: one message per file per content load.
    private var reportedPaths: Set<String> = []
    /// Frames drawn so far, and of those, the frames where some part came from a coarser level
    /// than the frame's own because its tile was not in memory yet.
    public private(set) var frames = 0
    /// See `frames`.
    public private(set) var framesFromCoarser = 0
    /// Frames where some part of the content had nothing at all to draw (background showed).
    public private(set) var framesWithHoles = 0
    private var coarserThisFrame = false
    private var holeThisFrame = false
    private var missing: [TileKey] = []
    /// What the scan-out band asked for since the last frame was drawn: kept in the next
    /// frame's list, after its own missing tiles.
    private var bandWanted: [TileKey] = []
    /// Tiles whose content the app has changed (`invalidate`): still drawn, and asked for
    /// again whenever a frame draws them, until their new pixels arrive. A stale tile the cache
    /// evicted stays stale only while a scan-out band may hold its old pixels
    /// (`applyInvalidations(bandHolds:)`), so the set never outgrows the cache and the bands.
    public private(set) var stale: Set<TileKey> = []
    /// Of those, the pages' stand-ins (drawn from a preview until the page's own pixels come):
    /// missing tiles really, so asked for whatever the redraw budget says.
    private var standIns: Set<TileKey> = []
    /// How fast the app's changed tiles on screen are asked for again, and the time it goes by
    /// (`paceRedraws`); `nil`: each as soon as a frame shows it.
    private var redrawBudget: RedrawBudget?
    private var redrawClock: () -> Instant = { .zero }
    /// Invalidated rectangles not applied yet (merged: a flood costs one pass per frame).
    private var invalidated: [PixelRect] = []
    /// Parts of the content whose tiles got new pixels since `takeChanges()`: what a scan-out
    /// band holds of them is out of date.
    private var changes: [PixelRect] = []
    /// The rectangles the last `applyInvalidations` applied, merged (full-resolution pixels).
    public private(set) var lastApplied: [PixelRect] = []
    /// Invalidations received so far.
    public private(set) var invalidations = 0
    /// When the tiles taken since the last frame were asked of an app, and those of the frame
    /// in flight: each becomes a request → presented latency when its frame is presented.
    private var takenRequests: [Instant] = []
    private var requestsInFrame: [Instant] = []
    /// The last 1024 request → presented latencies of an app's tiles.
    public private(set) var presentLatencies: [Duration] = []
    private var presentLatencyNext = 0

    /// The most pixels the pinned levels may hold together: about one 1080p screen.
    public static let pinnedPixels = 2 << 20

    /// Creates the store and makes the pinned levels (synchronously: they are small).
    /// - Parameters:
    ///   - source: the tiles.
    ///   - cacheBytes: the cache's budget.
    ///   - workers: worker threads; 0 makes tiles as frames need them.
    /// - Throws: `ContentError` when not even the coarsest level can be made.
    public convenience init(source: any TileSource, cacheBytes: Int, workers: Int) throws {
        try self.init(source: source, cacheBytes: cacheBytes,
                      fetcher: workers > 0 ? TileLoader(source: source, workers: workers) : nil)
    }

    /// Creates the store with tiles made by `fetcher` (`nil`: as frames need them) and makes the
    /// pinned levels, if the source pins any.
    /// - Throws: `ContentError` when not even the coarsest level can be made.
    public init(source: any TileSource, cacheBytes: Int, fetcher: (any TileFetching)?) throws {
        self.source = source
        cache = TileCache(budgetBytes: cacheBytes)
        self.fetcher = fetcher
        // An app's answered tiles are copied over their old pixels, else into the buffers of
        // tiles that went, of which up to its pool's size may be kept beyond the budget.
        if let provider = fetcher as? TileProvider {
            cache.spareBytes = provider.pool.slots * provider.pool.slotBytes
            provider.reusableBuffer = { [cache] key, width, height, format in
                cache.overwritableBuffer(key, width: width, height: height, format: format)
                    ?? cache.reusableBuffer(width: width, height: height, format: format)
            }
        }
        let grid = source.grid
        var level = source.lowestLevel, pixels = grid.levelSize(level).area
        while level < grid.maxLevel, pixels + grid.levelSize(level + 1).area <= Self.pinnedPixels {
            level += 1
            pixels += grid.levelSize(level).area
        }
        pinnedLevel = source.pinsCoarseLevels ? level : source.lowestLevel - 1
        var firstError: ContentError?
        var made = 0
        for l in stride(from: source.lowestLevel, through: pinnedLevel, by: 1) {
            let count = grid.tileCount(l)
            for row in 0..<count.rows {
                for column in 0..<count.columns {
                    let key = TileKey(level: l, column: column, row: row)
                    if let buffer = make(key) {
                        cache.insert(key, buffer, pinned: true)
                        made += 1
                    } else {
                        firstError = firstError ?? failed[key]
                    }
                }
            }
        }
        if made == 0 && pinnedLevel >= source.lowestLevel, let firstError {
            fetcher?.stop()
            throw firstError
        }
    }

    deinit { fetcher?.stop() }

    /// Asks for the app's changed tiles on screen at most `viewsPerSecond` views' worth a second
    /// (`RedrawBudget`; 0: each one as soon as a frame shows it, as without a budget), a view
    /// being `viewTiles` tiles, with time from `clock`. Keeps what the budget already admitted.
    public func paceRedraws(viewsPerSecond: Double, viewTiles: Int, clock: @escaping () -> Instant) {
        var budget = redrawBudget ?? RedrawBudget(viewsPerSecond: viewsPerSecond, viewTiles: viewTiles)
        budget.viewsPerSecond = max(0, viewsPerSecond)
        budget.viewTiles = max(1, viewTiles)
        redrawBudget = budget
        redrawClock = clock
    }

    /// The redraw budget's figures: tiles that waited for their turn so far, and waiting now.
    public var redrawsDeferred: (total: Int, now: Int)? { redrawBudget.map { ($0.deferred, $0.waiting) } }

    /// True once, when the app's changed tiles first had to wait for their turn (for the journal).
    public func takeStartedPacing() -> Bool { redrawBudget?.takeStartedPacing() ?? false }

    /// Stops the workers (also done when the store goes away).
    public func close() { fetcher?.stop() }

    /// Whether new tiles are copied into the buffers of tiles the cache evicted (an app's
    /// answers), rather than arriving in buffers of their own (decoded tiles).
    public var reusesEvictedBuffers: Bool { fetcher is TileProvider }

    /// The fd that is readable when tiles arrived (`nil` without workers).
    public var fileDescriptor: Descriptor? { fetcher?.fileDescriptor }

    /// Tiles wanted or being made.
    public var pendingCount: Int { fetcher?.pendingCount ?? 0 }

    /// When `expire(now:)` is due next, if ever (an app's tile overdue).
    public var nextDeadline: Instant? { fetcher?.nextDeadline }

    /// Gives up on tiles overdue at `now` (an app that did not answer in time).
    public func expire(now: Instant) { fetcher?.expire(now: now) }

    /// Puts the tiles that arrived into the cache.
    /// - Returns: how many arrived (each may change what a frame shows).
    @discardableResult
    public func takeArrivals() -> Int {
        guard let fetcher else { return 0 }
        let arrivals = fetcher.takeArrivals()
        for arrival in arrivals {
            switch arrival.result {
            case .success(let buffer):
                if let asked = arrival.requestedAt { takenRequests.append(asked) }
                redrawBudget?.settle(arrival.key)
                standIns.remove(arrival.key)
                if stale.remove(arrival.key) != nil || cache.contains(arrival.key) {
                    // New pixels for a tile on screen: a band's copy of it is out of date, and
                    // so are the tile's resampled copies.
                    changes.append(source.grid.contentRect(arrival.key))
                    dropResampled(of: [arrival.key])
                }
                cache.insert(arrival.key, buffer)
            case .failure(let error): fail(arrival.key, error)
            }
        }
        return arrivals.count
    }

    /// A frame was committed: the tiles taken so far are in it.
    public func frameCommitted() {
        requestsInFrame += takenRequests
        takenRequests.removeAll()
    }

    /// The frame in flight was presented at `vblank`: its new tiles' latencies are known.
    public func framePresented(at vblank: Instant) {
        for asked in requestsInFrame {
            let latency = vblank - asked
            if presentLatencies.count < 1024 { presentLatencies.append(latency) } else { presentLatencies[presentLatencyNext] = latency }
            presentLatencyNext = (presentLatencyNext + 1) % 1024
        }
        requestsInFrame.removeAll()
    }

    // MARK: Content changed by its app

    /// Marks the content in `rect` (full-resolution pixels) changed; applied at the next frame
    /// (`applyInvalidations()`).
    public func invalidate(_ rect: PixelRect) {
        let full = PixelRect(x0: 0, y0: 0, x1: source.grid.width, y1: source.grid.height)
        let r = rect.intersection(full)
        invalidations += 1
        guard !r.isEmpty else { return }
        invalidated.append(r)
        // Bounded however many come between two frames: beyond 32, one rectangle holding them.
        if invalidated.count > 32 {
            invalidated = [invalidated.dropFirst().reduce(invalidated[0]) { $0.union($1) }]
        }
    }

    /// Marks changed the rectangle an app names in unscaled content pixels (`invalidate`): the
    /// whole pixels covering it. Any Double is taken: the numbers are bounded before they become
    /// Ints, and a NaN edge reaches the content's edge on its side (a changed area not known is
    /// redrawn, not left stale).
    public func invalidate(x: Double, y: Double, width: Double, height: Double) {
        // In the full resolution's pixels: `contentScale` of them per content pixel.
        let k = Double(source.contentScale), most = Double(1 << 27)
        func pixel(_ v: Double, up: Bool) -> Int {
            guard !v.isNaN else { return up ? 1 << 27 : -1 }
            return Int(min(max(up ? (v * k).rounded(.up) : (v * k).rounded(.down), -1), most))
        }
        invalidate(PixelRect(x0: pixel(x, up: false), y0: pixel(y, up: false),
                             x1: pixel(x + width, up: true), y1: pixel(y + height, up: true)))
    }

    /// Applies the invalidations received since the last frame: every tile held that shows any
    /// of them, at every level, is stale (still drawn, asked for again when drawn); a tile that
    /// could not be made there may be asked for again; resampled copies go. Stale tiles the
    /// cache has evicted stop being stale unless they lie in `bandHolds`; the full-resolution
    /// tiles a band holds there become stale even when the cache has none of them. No pixel
    /// changes yet: a band keeps its pixels until the new tiles arrive (`takeChanges()`).
    /// - Parameter bandHolds: the parts of the content scan-out bands hold (or are being drawn
    ///   with), in full-resolution pixels: their old pixels of a stale tile may still be shown.
    public func applyInvalidations(bandHolds: @autoclosure () -> [PixelRect] = []) {
        forgetEvictedStale(keeping: bandHolds)
        let rects = invalidated
        lastApplied = rects
        guard !rects.isEmpty else { return }
        invalidated.removeAll()
        let grid = source.grid
        func touches(_ key: TileKey) -> Bool {
            let c = grid.contentRect(key)
            return rects.contains { !$0.intersection(c).isEmpty }
        }
        let hit = cache.keys.filter { $0.zoom == nil && touches($0) }
        stale.formUnion(hit)
        // A band's old pixels of a tile the cache no longer has: drawn again when it arrives.
        for hold in bandHolds() {
            for rect in rects where !rect.intersection(hold).isEmpty {
                stale.formUnion(grid.tiles(at: grid.maxLevel, covering: rect.intersection(hold)))
            }
        }
        dropResampled(of: hit)
        failed = failed.filter { !touches($0.key) }
    }

    /// A stale tile the cache evicted took its old pixels with it: it is asked for like any
    /// other missing tile and arrives new, so it is not stale any more. Unless a band holds its
    /// old pixels: then its arrival must still count as a change (`takeArrivals()`), for the
    /// band to draw it again. Without this, `stale` kept every tile invalidated and then evicted
    /// until it was shown again, growing with the tiles a long provider session had shown.
    private func forgetEvictedStale(keeping holds: () -> [PixelRect]) {
        guard !stale.isEmpty else { return }
        let grid = source.grid, held = holds()
        stale = stale.filter { key in
            cache.contains(key) || held.contains { !$0.intersection(grid.contentRect(key)).isEmpty }
        }
        standIns.formIntersection(stale)
        redrawBudget?.keep(only: stale)
    }

    /// Parts of the content whose tiles got new pixels since the last call (a scan-out band
    /// redraws what it holds of them).
    public func takeChanges() -> [PixelRect] {
        defer { changes.removeAll() }
        return changes
    }

    private func dropResampled(of keys: [TileKey]) {
        guard !keys.isEmpty else { return }
        let bases = Set(keys)
        cache.remove { $0.zoom != nil && bases.contains(TileKey(level: $0.level, column: $0.column, row: $0.row)) }
    }

    /// Files that failed since the last call, each reported once.
    public func takeFailures() -> [ContentError] {
        defer { unreported.removeAll() }
        return unreported
    }

    /// What the source shows otherwise than asked (a page over the budget, shown reduced)
    /// since the last call, each file once.
    public func takeWarnings() -> [ContentError] { source.takeWarnings() }

    // MARK: The compositor's side

    /// Starts drawing a frame.
    func beginFrame() {
        cache.beginFrame()
        coarserThisFrame = false
        holeThisFrame = false
        missing.removeAll(keepingCapacity: true)
    }

    /// The tile if it is in memory (made now, without workers); otherwise `nil`, and the
    /// tile is asked for at the end of the frame.
    func tile(_ key: TileKey) -> PixelBuffer? {
        if let buffer = cache.tile(key) {
            if stale.contains(key) { missing.append(key) }
            return buffer
        }
        guard failed[key] == nil else { return nil }
        guard fetcher != nil else {
            guard let buffer = make(key) else { return nil }
            cache.insert(key, buffer)
            return cache.tile(key)
        }
        missing.append(key)
        // A stand-in (a page drawn from its preview) is kept as a stale tile: drawn until the
        // tile's own pixels arrive and replace it, as an app's invalidated tile is.
        guard let standIn = source.standIn(for: key) else { return nil }
        cache.insert(key, standIn)
        stale.insert(key)
        standIns.insert(key)
        return cache.tile(key)
    }

    /// The tile resampled to `zoom`, made now by `render` from the level's tile if that is in
    /// memory (or, without workers, made now); `nil` when the level's tile is not there yet.
    func tile(_ key: TileKey, resampledTo zoom: Double, render: (PixelBuffer) -> PixelBuffer?) -> PixelBuffer? {
        var scaledKey = key
        scaledKey.zoom = zoom
        if let scaled = cache.tile(scaledKey) { return scaled }
        guard let tile = tile(key), let scaled = render(tile) else { return nil }
        cache.insert(scaledKey, scaled)
        return scaled
    }

    /// The best coarser tile in memory holding `key`'s part of the content, and its key.
    func coarser(than key: TileKey) -> (TileKey, PixelBuffer)? {
        var level = key.level - 1
        while level >= source.lowestLevel {
            let shift = key.level - level
            let cover = TileKey(level: level, column: key.column >> shift, row: key.row >> shift)
            if let buffer = cache.tile(cover) {
                coarserThisFrame = true
                return (cover, buffer)
            }
            level -= 1
        }
        holeThisFrame = true
        return nil
    }

    /// Ends the frame: counts it, and asks the workers for its missing tiles first, then for
    /// `prefetch` (the ring around the view, where a motion is going).
    func endFrame(prefetch: [TileKey]) {
        frames += 1
        if coarserThisFrame { framesFromCoarser += 1 }
        if holeThisFrame { framesWithHoles += 1 }
        guard let fetcher else { return }
        let missing = paced(missing)
        var seen = Set(missing)
        var wanted = missing
        defer { bandWanted.removeAll() }
        for key in bandWanted where source.grid.contains(key) && !cache.contains(key) && failed[key] == nil
            && seen.insert(key).inserted {
            wanted.append(key)
        }
        // The ring and the tiles ahead, nearest first, only as far as the cache has room for them
        // beside what this frame drew: each tile asked for beyond that would evict another of
        // them, which the next frame (drawn because a tile came) would ask for again, for ever.
        var room = cache.budgetBytes - cache.bytesKept
        for key in prefetch where source.grid.contains(key) && failed[key] == nil && seen.insert(key).inserted {
            let held = cache.evictableBytes(of: key)
            room -= held ?? source.grid.storedRect(key).width * source.grid.storedRect(key).height * 4
            guard room >= 0 else { break }
            if held == nil { wanted.append(key) }
        }
        fetcher.want(wanted)
    }

    /// Asks the workers for `keys` that are not in memory, most wanted first, on a frame that
    /// draws no tile (scanned out): the tiles the scan-out band will need next.
    func want(_ keys: [TileKey]) {
        guard let fetcher else { return }
        var seen = Set<TileKey>()
        bandWanted = paced(keys.filter { source.grid.contains($0) && (!cache.contains($0) || stale.contains($0)) && failed[$0] == nil
            && seen.insert($0).inserted })
        fetcher.want(bandWanted)
    }

    /// The tiles, all in memory, or `nil` (and the missing ones asked for) if any is not; `ahead`
    /// is asked for after them either way, and stale ones showing in `visible` before it.
    func tilesInMemory(_ keys: [TileKey], then ahead: [TileKey] = [], renewing visible: PixelRect? = nil) -> [PixelBuffer]? {
        // Ahead of a motion, only tiles not in memory, as a composed frame's prefetch: a stale
        // one there is asked for again when it shows (`renewStale`). Else an app redrawing all
        // its tiles would be asked each frame for every tile ahead, to be redrawn again before
        // it is seen.
        let ahead = ahead.filter { !cache.contains($0) }
        // Without workers, made now (`tile(_:)`), as a frame's tiles are.
        let found = keys.map { fetcher == nil ? tile($0) : cache.tile($0) }
        // Stale tiles are drawn (their new pixels will redraw the band), and those on screen
        // asked for again.
        let renew = visible.map { view in
            keys.filter { stale.contains($0) && !source.grid.tileRect($0).intersection(view).isEmpty }
        } ?? []
        if found.allSatisfy({ $0 != nil }) {
            if !ahead.isEmpty || !renew.isEmpty { want(renew + ahead) }
            return found.map { $0! }
        }
        want(zip(keys, found).filter { $0.1 == nil }.map(\.0) + renew + ahead)
        return nil
    }

    /// Asks again for the stale full-resolution tiles in `view` (content pixels): a frame
    /// scanned out of a band draws no tile, so it says here what it shows.
    func renewStale(in view: PixelRect) {
        guard !stale.isEmpty, fetcher != nil else { return }
        let keys = source.grid.tiles(at: source.grid.maxLevel, covering: view).filter { stale.contains($0) }
        if !keys.isEmpty { want(keys) }
    }

    /// `keys` less the app's changed tiles the redraw budget leaves for a later frame (in the
    /// cache with old pixels, not a stand-in); order kept.
    private func paced(_ keys: [TileKey]) -> [TileKey] {
        guard redrawBudget != nil, !stale.isEmpty else { return keys }
        let renewals = keys.filter { stale.contains($0) && !standIns.contains($0) && cache.contains($0) }
        guard !renewals.isEmpty, let admitted = redrawBudget?.admit(renewals, at: redrawClock()).reduce(into: Set<TileKey>(), { $0.insert($1) })
        else { return keys }
        let held = Set(renewals).subtracting(admitted)
        return held.isEmpty ? keys : keys.filter { !held.contains($0) }
    }

    /// Makes a tile now; a failure is recorded (`failed`, reported once) and gives `nil`.
    private func make(_ key: TileKey) -> PixelBuffer? {
        switch source.make(key) {
        case .success(let buffer): return buffer
        case .failure(let error):
            fail(key, error)
            return nil
        }
    }

    private func fail(_ key: TileKey, _ error: ContentError) {
        guard failed[key] == nil else { return }
        failed[key] = error
        // A stand-in stays as the tile: asking again would fail again.
        stale.remove(key)
        standIns.remove(key)
        redrawBudget?.settle(key)
        // Every tile showing a bad file fails alike (a folder's page: dozens at every level):
        // said once per file.
        if reportedPaths.insert(error.path).inserted { unreported.append(error) }
    }
}
