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
    /// The workers, or `nil` when tiles are made as frames need them.
    public let loader: TileLoader?
    /// The finest pinned level: it and every coarser one stay in memory (below `lowestLevel`:
    /// none is pinned).
    public private(set) var pinnedLevel: Int
    /// Tiles that could not be made, with why: drawn from a coarser level and never asked again.
    public private(set) var failed: [TileKey: ContentError] = [:]
    /// Failures not yet taken by `takeFailures()` (each is logged once, not per frame).
    private var unreported: [ContentError] = []
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

    /// The most pixels the pinned levels may hold together: about one 1080p screen.
    public static let pinnedPixels = 2 << 20

    /// Creates the store and makes the pinned levels (synchronously: they are small).
    /// - Parameters:
    ///   - source: the tiles.
    ///   - cacheBytes: the cache's budget.
    ///   - workers: worker threads; 0 makes tiles as frames need them.
    /// - Throws: `ContentError` when not even the coarsest level can be made.
    public init(source: any TileSource, cacheBytes: Int, workers: Int) throws {
        self.source = source
        cache = TileCache(budgetBytes: cacheBytes)
        loader = workers > 0 ? TileLoader(source: source, workers: workers) : nil
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
            loader?.stop()
            throw firstError
        }
    }

    deinit { loader?.stop() }

    /// Stops the workers (also done when the store goes away).
    public func close() { loader?.stop() }

    /// The fd that is readable when tiles arrived (`nil` without workers).
    public var fileDescriptor: Int32? { loader?.fileDescriptor }

    /// Tiles wanted or being made.
    public var pendingCount: Int { loader?.pendingCount ?? 0 }

    /// Puts the tiles that arrived into the cache.
    /// - Returns: how many arrived (each may change what a frame shows).
    @discardableResult
    public func takeArrivals() -> Int {
        guard let loader else { return 0 }
        let arrivals = loader.takeArrivals()
        for arrival in arrivals {
            switch arrival.result {
            case .success(let buffer): cache.insert(arrival.key, buffer)
            case .failure(let error): fail(arrival.key, error)
            }
        }
        return arrivals.count
    }

    /// Tiles that failed since the last call, each reported once.
    public func takeFailures() -> [ContentError] {
        defer { unreported.removeAll() }
        return unreported
    }

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
        if let buffer = cache.tile(key) { return buffer }
        guard failed[key] == nil else { return nil }
        guard loader != nil else {
            guard let buffer = make(key) else { return nil }
            cache.insert(key, buffer)
            return cache.tile(key)
        }
        missing.append(key)
        return nil
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
        guard let loader else { return }
        var seen = Set(missing)
        var wanted = missing
        defer { bandWanted.removeAll() }
        for key in bandWanted + prefetch where source.grid.contains(key) && !cache.contains(key) && failed[key] == nil
            && seen.insert(key).inserted {
            wanted.append(key)
        }
        loader.want(wanted)
    }

    /// Asks the workers for `keys` that are not in memory, most wanted first, on a frame that
    /// draws no tile (scanned out): the tiles the scan-out band will need next.
    func want(_ keys: [TileKey]) {
        guard let loader else { return }
        var seen = Set<TileKey>()
        bandWanted = keys.filter { source.grid.contains($0) && !cache.contains($0) && failed[$0] == nil && seen.insert($0).inserted }
        loader.want(bandWanted)
    }

    /// The tiles, all in memory, or `nil` (and the missing ones asked for) if any is not; `ahead`
    /// is asked for after them either way.
    func tilesInMemory(_ keys: [TileKey], then ahead: [TileKey] = []) -> [PixelBuffer]? {
        // Without workers, made now (`tile(_:)`), as a frame's tiles are.
        let found = keys.map { loader == nil ? tile($0) : cache.tile($0) }
        if found.allSatisfy({ $0 != nil }) {
            if !ahead.isEmpty { want(ahead) }
            return found.map { $0! }
        }
        want(zip(keys, found).filter { $0.1 == nil }.map(\.0) + ahead)
        return nil
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
        unreported.append(error)
    }
}
