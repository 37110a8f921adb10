import FlickCore

/// How fast an app's changed tiles on screen are asked for again (`content.provider_redraw_hz`):
/// at most `viewsPerSecond` views' worth of tiles a second, and a view's worth at once after a
/// pause. An app that changes a clock or a few tiles now and then is never held back; one that
/// changes its whole view at every frame is shown at that many redraws a second, each of its tiles
/// in turn, while scrolling keeps the display's rate.
///
/// Why: every tile an app redraws is copied three times by the loop (out of the app's pool, then
/// into each of the scan-out band's two buffers), 768 KiB of memory traffic for a 256 px tile. An
/// app redrawing a 1920×1080 view at 60 Hz is 2 GB/s, a third of what one Pi 4 core moves
/// (BENCHMARKS.md, "app tiles" and "what a frame costs on a Pi-class board"): the frames a finger moves would miss their vblank.
///
/// A stale tile on screen (an app invalidated it; not a page's stand-in, not a missing tile, which
/// are always asked for) is, with respect to this budget:
/// - **not yet seen** → `admit`: **admitted** (a token was taken; asked for until its new pixels
///   arrive), or **waiting** (no token: drawn with its old pixels; the longest waiting are admitted
///   first when tokens come back, so every tile is redrawn in turn);
/// - **admitted** or **waiting** → `settle` (its new pixels arrived, or it is not stale any more)
///   → forgotten.
///
/// Tokens: `viewTiles × viewsPerSecond` a second, at most `viewTiles` held (the tiles one view can
/// touch). `viewsPerSecond` 0 admits everything (no budget).
public struct RedrawBudget {
    /// Whole views of redrawn tiles a second; 0 for no limit.
    public var viewsPerSecond: Double
    /// The most tiles a view touches at full resolution: the tokens held at most, and the unit of
    /// `viewsPerSecond`.
    public var viewTiles: Int
    /// Tiles admitted and not settled (asked for).
    public private(set) var admitted: Set<TileKey> = []
    /// Tiles that had to wait for a token, counted once per wait.
    public private(set) var deferred = 0
    /// Whether some tile waited since `takeStartedPacing()` was last true: said once in the journal.
    private var pacingNoted = false
    private var startedPacing = false
    private var waitingSince: [TileKey: Int] = [:]
    private var turn = 0
    private var tokens: Double
    private var refilled: Instant?

    /// A budget of `viewsPerSecond` views of `viewTiles` tiles a second; full to start with.
    public init(viewsPerSecond: Double, viewTiles: Int) {
        self.viewsPerSecond = viewsPerSecond
        self.viewTiles = max(1, viewTiles)
        tokens = Double(max(1, viewTiles))
    }

    /// The most tiles a view of `view` pixels can touch with tiles of `tileSize` pixels: one more
    /// column and row than it spans, for a view between tile edges.
    public static func viewTiles(of view: PixelSize, tileSize: Int) -> Int {
        guard tileSize > 0 else { return 1 }
        let columns = (max(1, view.width) + tileSize - 1) / tileSize + 1
        let rows = (max(1, view.height) + tileSize - 1) / tileSize + 1
        return columns * rows
    }

    /// Which of `stale` (changed tiles a frame shows, most wanted first) to ask for at `now`: those
    /// admitted already, then, while tokens last, those waiting longest, then the others in order.
    public mutating func admit(_ stale: [TileKey], at now: Instant) -> [TileKey] {
        guard viewsPerSecond > 0, !stale.isEmpty else { return stale }
        refill(at: now)
        var chosen = stale.filter { admitted.contains($0) }
        var seen = admitted
        let fresh = stale.filter { seen.insert($0).inserted }
        // Longest waiting first; the frame's own order among equals (stable sort on the turn).
        let ordered = fresh.enumerated().sorted {
            (waitingSince[$0.element] ?? Int.max, $0.offset) < (waitingSince[$1.element] ?? Int.max, $1.offset)
        }.map(\.element)
        for key in ordered {
            if tokens >= 1 {
                tokens -= 1
                admitted.insert(key)
                waitingSince[key] = nil
                chosen.append(key)
            } else if waitingSince[key] == nil {
                waitingSince[key] = turn
                turn += 1
                deferred += 1
                if !pacingNoted { pacingNoted = true; startedPacing = true }
            }
        }
        return chosen
    }

    /// `key`'s new pixels arrived, or it is no longer stale: it needs no token any more.
    public mutating func settle(_ key: TileKey) {
        admitted.remove(key)
        waitingSince[key] = nil
    }

    /// Forgets every tile not in `stale` (evicted, failed): the budget never holds more than the
    /// store's stale tiles.
    public mutating func keep(only stale: Set<TileKey>) {
        if admitted.contains(where: { !stale.contains($0) }) { admitted = admitted.filter { stale.contains($0) } }
        if waitingSince.keys.contains(where: { !stale.contains($0) }) { waitingSince = waitingSince.filter { stale.contains($0.key) } }
    }

    /// Tiles waiting for a token now.
    public var waiting: Int { waitingSince.count }

    /// True once, the first time a tile had to wait: the moment to say so in the journal.
    public mutating func takeStartedPacing() -> Bool {
        defer { startedPacing = false }
        return startedPacing
    }

    private mutating func refill(at now: Instant) {
        defer { refilled = now }
        guard let last = refilled, now > last else { return }
        let rate = viewsPerSecond * Double(viewTiles)
        tokens = min(Double(viewTiles), tokens + (now - last).inSeconds * rate)
    }
}
