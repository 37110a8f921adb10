import FlickCore
@testable import FlickDisplay
import CMemfd
import Glibc
import Testing

/// A pool as an app makes one: a memfd of `slots` tiles, sealed against shrinking, mapped
/// writable on the app's side.
final class AppPool {
    let fd: Int32
    let memory: UnsafeMutableRawPointer
    let bytes: Int
    let tileSize: Int

    init(slots: Int, tileSize: Int, seal: Bool = true, extraBytes: Int = 0) throws {
        self.tileSize = tileSize
        bytes = slots * tileSize * tileSize * 4 + extraBytes
        fd = flickd_memfd_create("flickd-test-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        try #require(fd >= 0)
        try #require(ftruncate(fd, off_t(bytes)) == 0)
        if seal { try #require(flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW) == 0) }
        let mapped = try #require(mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
        try #require(mapped != MAP_FAILED)
        memory = mapped
    }

    deinit {
        munmap(memory, bytes)
        close(fd)
    }

    /// Draws a request's tile as the app would: every pixel the colour of the content point it shows.
    func draw(_ r: TileProvider.Request, _ colour: (Double, Double) -> UInt32) {
        for j in 0..<r.pixelHeight {
            let row = (memory + r.offset + j * r.stride).assumingMemoryBound(to: UInt32.self)
            for i in 0..<r.pixelWidth {
                row[i] = colour(r.x + (Double(i) + 0.5) / r.scale, r.y + (Double(j) + 0.5) / r.scale)
            }
        }
    }
}

/// The content-provider protocol's state on flickd's side: the pool's checks, what is asked
/// for and when, answers, cancels, time-outs and invalidation (docs/protocol.md).
@Suite struct TileProviderTests {
    let panel = PixelSize(width: 320, height: 200)
    let content = PixelSize(width: 1000, height: 3000)

    /// The content the app draws: bands of colour that change every 40 px down, 8 px across.
    static func colour(_ x: Double, _ y: Double) -> UInt32 {
        0xFF00_0000 | UInt32(Int(y) / 40 % 200) << 16 | UInt32(Int(x) / 8 % 120) << 8 | 0x40
    }

    final class Rig {
        let app: AppPool
        let provider: TileProvider
        let store: TileStore
        let composer: FrameComposer
        let output: HeadlessOutput
        var now = Instant.zero
        var sent: [TileProvider.Message] = []

        init(panel: PixelSize, content: PixelSize, slots: Int = 64, detail: Int = 0, timeout: Duration = .seconds(1),
             cacheBytes: Int = 64 << 20) throws {
            app = try AppPool(slots: slots, tileSize: 128)
            let pool = try SharedTilePool(fd: app.fd, slots: slots, tileSize: 128)
            let source = try #require(ProviderSource(name: "test", size: content, detail: detail, tileSize: 128, opaque: true,
                                                     background: nil))
            var clock: (() -> Instant)!
            let p = try #require(TileProvider(grid: source.grid, contentScale: source.contentScale, pool: pool, format: .xrgb8888,
                                              timeout: timeout, clock: { clock() }))
            provider = p
            store = try TileStore(source: source, cacheBytes: cacheBytes, fetcher: p)
            output = try #require(HeadlessOutput(size: panel))
            composer = FrameComposer(output: output, compositor: Compositor(), content: Content(tiles: store))
            clock = { [unowned self] in self.now }
            p.send = { [unowned self] in self.sent.append($0) }
        }

        /// A frame with the view's corner at (`x`, `y`), during a motion to `resting` when given.
        func frame(_ x: Double, _ y: Double, zoom: Double = 1, resting: Point? = nil) throws {
            var state = RenderState(boundsSize: output.size.size, contentOffset: Point(x: x, y: y), zoomScale: zoom,
                                    contentSize: Content(tiles: store).size,
                                    indicatorOpacity: 0, background: Color(rgb: 0x000000))
            state.restingOffset = resting
            try composer.commit(state, now: now)
            now = try #require(output.nextDeadline)
            _ = try output.dispatch(now: now)
        }

        /// Frames at (`x`, `y`), each followed by the band's worker finishing what it drew, until
        /// `shows` holds of the frame on screen: how many it took, or `nil` after `limit`.
        func framesUntil(_ x: Double, _ y: Double, limit: Int, _ shows: (PixelBuffer) -> Bool) throws -> Int? {
            for n in 1...limit {
                try frame(x, y)
                if shows(output.frontBuffer) { return n }
                _ = try composer.finishBandFill()
            }
            return nil
        }

        var requests: [TileProvider.Request] {
            sent.compactMap { if case .request(let r) = $0 { r } else { nil } }
        }

        /// Draws and answers every request not answered yet, then takes the tiles.
        func answerAll(drawn: Bool = true) throws {
            for r in requests where provider.isOutstanding(r.id) {
                if drawn { app.draw(r, TileProviderTests.colour) }
                try provider.answer(r.id, drawn: drawn)
            }
            store.takeArrivals()
        }
    }

    // MARK: The pool

    @Test func aPoolMustBeASealedMemfdOfExactlyTheSlotsSize() throws {
        let unsealed = try AppPool(slots: 2, tileSize: 64, seal: false)
        #expect(throws: SharedTilePool.Refusal.notSealed) { _ = try SharedTilePool(fd: unsealed.fd, slots: 2, tileSize: 64) }
        let larger = try AppPool(slots: 2, tileSize: 64, extraBytes: 4096)
        #expect(throws: SharedTilePool.Refusal.wrongSize(bytes: 2 * 64 * 64 * 4 + 4096, expected: 2 * 64 * 64 * 4)) {
            _ = try SharedTilePool(fd: larger.fd, slots: 2, tileSize: 64)
        }
        // Fewer slots than the pool holds is a wrong size too.
        #expect(throws: SharedTilePool.Refusal.wrongSize(bytes: 2 * 64 * 64 * 4 + 4096, expected: 64 * 64 * 4)) {
            _ = try SharedTilePool(fd: larger.fd, slots: 1, tileSize: 64)
        }
        // A plain file, a pipe: not memfds.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(throws: SharedTilePool.Refusal.notMemfd) { _ = try SharedTilePool(fd: ends[0], slots: 1, tileSize: 64) }
        let file = open("/proc/self/status", O_RDONLY)
        defer { close(file) }
        #expect(throws: SharedTilePool.Refusal.notMemfd) { _ = try SharedTilePool(fd: file, slots: 1, tileSize: 64) }
        let good = try AppPool(slots: 2, tileSize: 64)
        #expect(throws: Never.self) { _ = try SharedTilePool(fd: good.fd, slots: 2, tileSize: 64) }
    }

    @Test func anAppCannotShrinkThePoolUnderTheMappingAfterPassingIt() throws {
        let app = try AppPool(slots: 2, tileSize: 64)
        let pool = try SharedTilePool(fd: app.fd, slots: 2, tileSize: 64)
        // The wl_shm attack: truncating the file after it is mapped. Sealed, the kernel refuses.
        #expect(ftruncate(app.fd, 0) == -1 && errno == EPERM)
        app.memory.storeBytes(of: 0xFF12_3456, as: UInt32.self)
        let tile = try #require(pool.copyTile(slot: 0, width: 64, height: 64, format: .xrgb8888))
        #expect(tile[0, 0] == 0xFF12_3456)
        // A slot or a size the pool does not hold is no tile, not a read past it.
        #expect(pool.copyTile(slot: 2, width: 64, height: 64, format: .xrgb8888) == nil)
        #expect(pool.copyTile(slot: 0, width: 65, height: 64, format: .xrgb8888) == nil)
    }

    // MARK: Requests

    @Test func onlyTheViewAndTheRingAroundItAreAskedForTheViewFirst() throws {
        let rig = try Rig(panel: panel, content: content)
        try rig.frame(300, 1000)
        let grid = rig.store.source.grid
        let level = grid.maxLevel
        let view = PixelRect(x0: 300, y0: 1000, x1: 620, y1: 1200)
        let visible = Set(grid.tiles(at: level, covering: view))
        let ring = Set(grid.tiles(at: level, covering: PixelRect(x0: view.x0 - 128, y0: view.y0 - 128, x1: view.x1 + 128, y1: view.y1 + 128)))
        let asked = rig.requests.map(\.key)
        #expect(Set(asked.prefix(visible.count)) == visible)
        #expect(Set(asked).isSubset(of: ring))
        #expect(asked.count == Set(asked).count)
        // Far fewer than the content's tiles: 8 × 24 at full resolution alone.
        #expect(asked.count <= ring.count && ring.count < 8 * 24)
        // Each request says where to draw, in a slot of its own.
        #expect(Set(rig.requests.map(\.slot)).count == asked.count)
        for r in rig.requests {
            #expect(r.offset == r.slot * 128 * 128 * 4 && r.stride == 512 && r.scale == 1)
            #expect(r.x == Double(r.key.column * 128) && r.y == Double(r.key.row * 128))
        }
    }

    @Test func drawnTilesAreShownExactlyAndNothingIsAskedTwice() throws {
        let rig = try Rig(panel: panel, content: content)
        try rig.frame(300, 1000)
        // Nothing drawn yet: background, no crash, no wait.
        try rig.answerAll()
        let asked = rig.requests.count
        try rig.frame(300, 1000)
        #expect(rig.requests.count == asked)
        let shown = rig.output.frontBuffer
        for (x, y) in [(0, 0), (17, 33), (319, 199), (160, 100)] {
            #expect(shown[x, y] & 0xFF_FFFF == Self.colour(Double(300 + x) + 0.5, Double(1000 + y) + 0.5) & 0xFF_FFFF)
        }
        #expect(rig.provider.drawn == asked && rig.provider.outstandingCount == 0)
    }

    /// A cache that holds the view's tiles but not the whole ring around them: the ring is asked
    /// for only as far as there is room, and what is asked for settles. Before, each ring tile
    /// that came evicted another not drawn yet, which the next frame (drawn because a tile came)
    /// asked for again, for ever (found by flickd-bench's section 11: zoomed out to 0.3 and at
    /// rest, the daemon drew 60 frames a second and asked the app for 1750 tiles a second without
    /// end; its own test pattern, decoded by the workers, did the same).
    @Test func aCacheTooSmallForTheRingSettlesInsteadOfAskingForEver() throws {
        // The view at (300, 1000): 3 × 3 tiles of 128 px (64 KiB each); with the ring, 5 × 5.
        // Four slots: the tiles come a few at a time, a frame drawn after each few, as in the daemon.
        let rig = try Rig(panel: panel, content: content, slots: 4, cacheBytes: 20 * 128 * 128 * 4)
        var frames = 0, asked = -1
        while frames < 40 && asked != rig.requests.count {
            asked = rig.requests.count
            try rig.frame(300, 1000)
            try rig.answerAll()
            frames += 1
        }
        #expect(frames < 40, "still asking after 40 frames: \(rig.requests.count) requests")
        #expect(Set(rig.requests.map(\.key)).count == rig.requests.count, "a tile asked for twice")
        #expect(rig.store.cache.usedBytes <= rig.store.cache.budgetBytes)
        try rig.frame(300, 1000)
        let shown = rig.output.frontBuffer
        for (x, y) in [(0, 0), (319, 199), (160, 100)] {
            #expect(shown[x, y] & 0xFF_FFFF == Self.colour(Double(300 + x) + 0.5, Double(1000 + y) + 0.5) & 0xFF_FFFF)
        }
    }

    @Test func requestsNeverExceedTheSlotsAndFreedSlotsGoToTheNextTiles() throws {
        let rig = try Rig(panel: panel, content: content, slots: 3)
        try rig.frame(300, 1000)
        #expect(rig.requests.count == 3 && rig.provider.outstandingCount == 3)
        try rig.provider.answer(rig.requests[0].id, drawn: true)
        // The freed slot went to the next wanted tile at once.
        #expect(rig.requests.count == 4 && rig.requests[3].slot == rig.requests[0].slot)
        #expect(throws: TileProvider.AnswerError.notOutstanding(rig.requests[0].id)) {
            try rig.provider.answer(rig.requests[0].id, drawn: true)
        }
        #expect(throws: TileProvider.AnswerError.notOutstanding(999)) { try rig.provider.answer(999, drawn: true) }
    }

    @Test func tilesScrolledAwayAreCancelledAndASkippedTileIsNoFailure() throws {
        let rig = try Rig(panel: panel, content: content, slots: 64)
        try rig.frame(300, 1000)
        let first = rig.requests
        // Far away, twice: the first requests are no longer wanted.
        try rig.frame(300, 2600)
        try rig.frame(300, 2600)
        let cancelled = Set(rig.sent.compactMap { if case .cancel(let id) = $0 { id } else { nil } })
        #expect(cancelled == Set(first.map(\.id)))
        for r in first { try rig.provider.answer(r.id, drawn: false) }
        rig.store.takeArrivals()
        #expect(rig.store.failed.isEmpty && rig.provider.notDrawn == first.count)
        // Coming back asks for them again.
        try rig.frame(300, 1000)
        #expect(Set(rig.requests.suffix(first.count).map(\.key)).isSuperset(of: Set(first.prefix(4).map(\.key))))
    }

    @Test func anOverdueRequestIsGivenUpAskedAgainAndItsLateAnswerIgnored() throws {
        let rig = try Rig(panel: panel, content: content, slots: 64, timeout: .milliseconds(500))
        try rig.frame(300, 1000)
        let first = rig.requests
        let deadline = try #require(rig.provider.nextDeadline)
        #expect(deadline == Instant.zero + .milliseconds(500))
        rig.now = deadline
        rig.store.expire(now: rig.now)
        #expect(rig.provider.timeouts == first.count)
        // Still wanted: asked again in other slots; the old slots stay the app's until it answers.
        try rig.frame(300, 1000)
        let again = rig.requests.dropFirst(first.count)
        #expect(Set(again.map(\.key)) == Set(first.map(\.key)))
        #expect(Set(again.map(\.slot)).isDisjoint(with: Set(first.map(\.slot))))
        for r in first { try rig.provider.answer(r.id, drawn: true) }
        #expect(rig.provider.lateAnswers == first.count && rig.provider.drawn == 0)
    }

    /// An app drawing its queue in turn is making progress: the requests it has not reached yet
    /// are not overdue for having waited, however long the queue. Silence is: `timeout` after
    /// its last answer, the rest are given up (a document's slow page is no hung helper).
    @Test func aQueueAnsweredInTurnIsNotOverdueButSilenceIs() throws {
        let rig = try Rig(panel: panel, content: content, slots: 64, timeout: .milliseconds(500))
        try rig.frame(300, 1000)
        let sent = rig.requests
        try #require(sent.count >= 8)
        // One answer every 300 ms, in order: the fifth comes 1.5 s (three time-outs) after it was asked.
        for (i, r) in sent.prefix(5).enumerated() {
            rig.now = Instant.zero + .milliseconds(300 * (i + 1))
            rig.store.expire(now: rig.now)
            #expect(rig.provider.timeouts == 0, "answer \(i + 1)")
            try rig.provider.answer(r.id, drawn: true)
        }
        #expect(rig.provider.drawn == 5 && rig.provider.lateAnswers == 0)
        let due = try #require(rig.provider.nextDeadline)
        #expect(due == Instant.zero + .milliseconds(1500 + 500))
        rig.now = due - .milliseconds(1)
        rig.store.expire(now: rig.now)
        #expect(rig.provider.timeouts == 0)
        let waiting = rig.requests.filter { rig.provider.isOutstanding($0.id) }.count
        rig.now = due
        rig.store.expire(now: rig.now)
        #expect(waiting > 0 && rig.provider.timeouts == waiting)
    }

    /// A request the app leaves unanswered while it answers others is given up `maxTurns`
    /// time-outs after it was sent: it cannot hold its slot for good.
    @Test func aRequestLeftOutWhileOthersAreAnsweredIsGivenUpAfterItsTurns() throws {
        let rig = try Rig(panel: panel, content: content, slots: 64, timeout: .milliseconds(500))
        try rig.frame(300, 1000)
        let sent = rig.requests
        try #require(sent.count > TileProvider.maxTurns + 2)
        let cap = Instant.zero + .milliseconds(500 * TileProvider.maxTurns)
        // Every 400 ms an answer, never to the first request.
        var t = 400
        for r in sent.dropFirst() where t < 500 * TileProvider.maxTurns {
            rig.now = Instant.zero + .milliseconds(t)
            rig.store.expire(now: rig.now)
            #expect(rig.provider.isOutstanding(sent[0].id) && rig.provider.timeouts == 0, "at \(t) ms")
            try rig.provider.answer(r.id, drawn: true)
            t += 400
        }
        #expect(rig.provider.nextDeadline == cap)
        rig.now = cap
        rig.store.expire(now: rig.now)
        #expect(rig.provider.timeouts >= 1)
        // Its slot stays the app's until it answers, late.
        try rig.provider.answer(sent[0].id, drawn: true)
        #expect(rig.provider.lateAnswers == 1)
    }

    @Test func aLevelOfDetailAboveZoomOneIsDrawnByTheAppAtScaleTwoWhenZoomedIn() throws {
        let rig = try Rig(panel: panel, content: content, detail: 1)
        let grid = rig.store.source.grid
        #expect(grid.size == PixelSize(width: 2000, height: 6000) && Content(tiles: rig.store).size == Size(width: 1000, height: 3000))
        // Zoom 1: the level below the finest, at scale 1, in content pixels.
        try rig.frame(300, 1000)
        #expect(rig.requests.allSatisfy { $0.key.level == grid.maxLevel - 1 && $0.scale == 1 })
        try rig.answerAll()
        try rig.frame(300, 1000)
        #expect(rig.output.frontBuffer[17, 33] & 0xFF_FFFF == Self.colour(317.5, 1033.5) & 0xFF_FFFF)
        // Zoom 2: the finest level, drawn by the app at scale 2: its own pixels, not stretched.
        let before = rig.requests.count
        try rig.frame(600, 2000, zoom: 2)
        let finer = rig.requests.dropFirst(before)
        #expect(!finer.isEmpty && finer.allSatisfy { $0.key.level == grid.maxLevel && $0.scale == 2 })
        #expect(finer.allSatisfy { $0.x == Double($0.key.column * 128) / 2 && $0.width == 64 })
        try rig.answerAll()
        try rig.frame(600, 2000, zoom: 2)
        // Screen pixel (17, 33) at zoom 2 shows content point ((600 + 17.5) / 2, (2000 + 33.5) / 2).
        #expect(rig.output.frontBuffer[17, 33] & 0xFF_FFFF == Self.colour(308.75, 1016.75) & 0xFF_FFFF)
        #expect(rig.output.frontBuffer[16, 32] & 0xFF_FFFF == Self.colour(308.25, 1016.25) & 0xFF_FFFF)
    }

    // MARK: Invalidation

    @Test func invalidationAsksAgainForExactlyTheVisibleTilesItCoversAndKeepsTheView() throws {
        let rig = try Rig(panel: panel, content: content)
        try rig.frame(300, 1000)
        try rig.answerAll()
        try rig.frame(300, 1000)
        let before = rig.requests.count, holes = rig.store.framesWithHoles
        // A row 40 px high across the content, inside the view's second tile row.
        rig.store.invalidate(PixelRect(x0: 0, y0: 1030, x1: 1000, y1: 1070))
        try rig.frame(300, 1000)
        let grid = rig.store.source.grid
        let visible = Set(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 300, y0: 1000, x1: 620, y1: 1200)))
        let covered = Set(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 0, y0: 1030, x1: 1000, y1: 1070)))
        let renewed = rig.requests.dropFirst(before).map(\.key)
        #expect(Set(renewed) == visible.intersection(covered))
        // Until the new pixels come, the old ones stay on screen (no flash of a coarser level).
        #expect(rig.store.framesWithHoles == holes)
        // The app draws new pixels: they replace the old at once, where the view was.
        for r in rig.requests.dropFirst(before) {
            rig.app.draw(r) { _, _ in 0xFFFF_0000 }
            try rig.provider.answer(r.id, drawn: true)
        }
        rig.store.takeArrivals()
        // Drawn by the band's worker into the buffer not on screen, or, when it has no band to
        // draw them in, composed on the loop after a few frames at most.
        let frames = try rig.framesUntil(300, 1000, limit: 8) { $0[10, 50] == 0xFFFF_0000 }   // content y 1050: the redrawn row's tiles
        #expect(frames.map { $0 <= ScanOutBand.outOfDateFramesAlone + 1 } == true, "\(String(describing: frames))")
        #expect(rig.output.frontBuffer[10, 190] & 0xFF_FFFF == Self.colour(310.5, 1190.5) & 0xFF_FFFF)
    }

    @Test func anAppsRedrawnTileOnScreenIsCopiedOverItsOldPixelsUnlessSomethingElseReadsThem() throws {
        let rig = try Rig(panel: panel, content: content)
        // The bands' fills read the tiles on their worker until they are done: let them finish.
        try rig.frame(300, 1000)
        for _ in 0..<4 {
            try rig.answerAll()
            try rig.frame(300, 1000)
            _ = try rig.composer.finishBandFill()
            try rig.frame(300, 1000)
        }
        let cache = rig.store.cache
        let before = rig.requests.count, reuses = cache.reuses
        rig.store.invalidate(PixelRect(x0: 0, y0: 1030, x1: 1000, y1: 1070))
        try rig.frame(300, 1000)
        let renewed = Array(rig.requests.dropFirst(before))
        try #require(renewed.count >= 2)
        let oldIdentities = try renewed.map { ObjectIdentifier(try #require(cache.tile($0.key))) }
        // Something else still reads the first tile's old pixels (a band's worker would).
        let reader = try #require(cache.tile(renewed[0].key))
        let oldFirstPixel = reader.pixels.load(as: UInt32.self)
        for r in renewed {
            rig.app.draw(r) { _, _ in 0xFFFF_0000 }
            try rig.provider.answer(r.id, drawn: true)
        }
        rig.store.takeArrivals()
        // The others' new pixels went into their own buffers: no mapping, no page faults.
        #expect(cache.overwrites == renewed.count - 1 && cache.reuses == reuses)
        for (r, id) in zip(renewed, oldIdentities).dropFirst() {
            #expect(cache.tile(r.key).map(ObjectIdentifier.init) == id)
        }
        // The one read elsewhere was not written over: its reader still sees the old pixels.
        #expect(cache.tile(renewed[0].key).map(ObjectIdentifier.init) != oldIdentities[0])
        #expect(reader.pixels.load(as: UInt32.self) == oldFirstPixel)
        // The band's worker draws them into the buffer not on screen; the frame after shows it.
        try rig.frame(300, 1000)
        _ = try rig.composer.finishBandFill()
        try rig.frame(300, 1000)
        #expect(rig.output.frontBuffer[10, 50] == 0xFFFF_0000)
        #expect(rig.output.frontBuffer[10, 190] & 0xFF_FFFF == Self.colour(310.5, 1190.5) & 0xFF_FFFF)
    }

    @Test func anAppsRectangleIsTheWholePixelsCoveringItWhateverItsNumbers() throws {
        let rig = try Rig(panel: panel, content: content)
        func changes(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> [PixelRect] {
            rig.store.invalidate(x: x, y: y, width: width, height: height)
            rig.store.applyInvalidations()
            // Not a change of pixels yet (`takeChanges()`): that comes with the new tiles.
            #expect(rig.store.takeChanges().isEmpty)
            return rig.store.lastApplied
        }
        #expect(changes(10.5, 1030.2, 0.1, 0.1) == [PixelRect(x0: 10, y0: 1030, x1: 11, y1: 1031)])
        #expect(changes(-5, 2990, 2000, 100) == [PixelRect(x0: 0, y0: 2990, x1: 1000, y1: 3000)])
        // Numbers past Int's range, or past the content, are bounded before they become Ints.
        #expect(changes(1e308, 0, 1e308, 1).isEmpty)
        #expect(changes(-1e308, -1e308, 1e308, 1e308).isEmpty)
        #expect(changes(-1e308, 0, .infinity, 1) == [PixelRect(x0: 0, y0: 0, x1: 1000, y1: 1)])
        // The socket refuses a NaN; the store takes one as an edge not known: up to the content's.
        #expect(changes(.nan, 5, 1, 1) == [PixelRect(x0: 0, y0: 5, x1: 1000, y1: 6)])
        #expect(changes(3, 5, .nan, .nan) == [PixelRect(x0: 3, y0: 5, x1: 1000, y1: 3000)])
        #expect(rig.store.invalidations == 7)
    }

    @Test func aStaleTileTheCacheEvictedIsForgottenUnlessABandStillShowsItsOldPixels() throws {
        // Room for 12 tiles of 128².
        let rig = try Rig(panel: panel, content: content, cacheBytes: 12 * 128 * 128 * 4)
        let grid = rig.store.source.grid
        func fetch(_ area: PixelRect) throws -> [TileKey] {
            let keys = grid.tiles(at: grid.maxLevel, covering: area)
            rig.provider.want(keys)
            try rig.answerAll()
            return keys
        }
        let top = try fetch(PixelRect(x0: 0, y0: 0, x1: 1000, y1: 128))
        rig.store.invalidate(PixelRect(x0: 0, y0: 0, x1: 1000, y1: 10))
        rig.store.applyInvalidations()
        #expect(rig.store.stale == Set(top))
        // Tiles drawn later push them out of the cache before their new pixels were asked for.
        rig.store.cache.beginFrame()
        _ = try fetch(PixelRect(x0: 0, y0: 1280, x1: 1000, y1: 1536))
        #expect(top.allSatisfy { !rig.store.cache.contains($0) })
        _ = rig.store.takeChanges()
        // A band still holds the first two tiles' old pixels: they stay stale; nothing holds
        // the others' any more, and they are forgotten.
        rig.store.applyInvalidations(bandHolds: [PixelRect(x0: 0, y0: 0, x1: 200, y1: 100)])
        #expect(rig.store.stale == Set(top.prefix(2)))
        // New pixels for a tile the band shows are a change the band draws again; for a
        // forgotten one, a tile like any other.
        rig.provider.want([top[0], top[5]])
        try rig.answerAll()
        #expect(rig.store.takeChanges() == [grid.contentRect(top[0])])
        #expect(rig.store.stale == [top[1]])
        // The band moved on.
        rig.store.applyInvalidations()
        #expect(rig.store.stale.isEmpty)
    }

    @Test func aBandShowingAStaleTileTheCacheEvictedShowsItsNewPixelsWhenTheyCome() throws {
        // Room for 40 tiles of 128²: the band's 30 and a few more.
        let rig = try Rig(panel: panel, content: content, cacheBytes: 40 * 128 * 128 * 4)
        let grid = rig.store.source.grid
        try rig.frame(300, 1000)
        try rig.answerAll()
        try rig.frame(300, 1000)
        _ = try rig.composer.finishBandFill()
        try rig.frame(300, 1000)
        // A row inside the view changes: the frame shows its old pixels and asks for new ones.
        let before = rig.requests.count
        rig.store.invalidate(PixelRect(x0: 0, y0: 1030, x1: 1000, y1: 1070))
        try rig.frame(300, 1000)
        let renewals = Array(rig.requests.dropFirst(before))
        #expect(!renewals.isEmpty && renewals.allSatisfy { rig.store.stale.contains($0.key) })
        // Before the app answers, tiles elsewhere push them out of the cache.
        rig.store.cache.beginFrame()
        let far = Set(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 0, y0: 2304, x1: 1000, y1: 3000)))
        rig.provider.want(Array(far))
        for r in rig.requests where far.contains(r.key) && rig.provider.isOutstanding(r.id) {
            rig.app.draw(r, TileProviderTests.colour)
            try rig.provider.answer(r.id, drawn: true)
        }
        rig.store.takeArrivals()
        #expect(renewals.allSatisfy { !rig.store.cache.contains($0.key) })
        // The band still shows their old pixels (composing would find no tile there): they stay
        // stale through the frames until then.
        try rig.frame(300, 1000)
        #expect(renewals.allSatisfy { rig.store.stale.contains($0.key) })
        #expect(rig.output.frontBuffer[10, 50] & 0xFF_FFFF == Self.colour(310.5, 1050.5) & 0xFF_FFFF)
        // The new pixels come: the band draws them.
        for r in renewals {
            rig.app.draw(r) { _, _ in 0xFFFF_0000 }
            try rig.provider.answer(r.id, drawn: true)
        }
        rig.store.takeArrivals()
        let frames = try rig.framesUntil(300, 1000, limit: 8) { $0[10, 50] == 0xFFFF_0000 }
        #expect(frames.map { $0 <= ScanOutBand.outOfDateFramesAlone + 1 } == true, "\(String(describing: frames))")
        // The band is kept: the row's tiles it holds outside the view keep their old pixels,
        // stale until shown (or until no band holds them); none in the view is.
        let view = PixelRect(x0: 300, y0: 1000, x1: 620, y1: 1200)
        #expect(rig.store.stale.allSatisfy { grid.contentRect($0).intersection(view).isEmpty && $0.row == 8 })
    }

    @Test func staleTilesAheadOfAMotionAreAskedForWhenTheyShowNotEveryFrameBefore() throws {
        let rig = try Rig(panel: panel, content: content)
        let grid = rig.store.source.grid
        // A flick from y 1000 to 2000: the bands ahead are drawn, every tile they need answered.
        let rest = Point(x: 300, y: 2000)
        for y in stride(from: 1000.0, through: 1400, by: 50) {
            try rig.frame(300, y, resting: rest)
            try rig.answerAll()
            _ = try rig.composer.finishBandFill()
            try rig.answerAll()
        }
        let ahead = Set(rig.requests.map(\.key)).filter { grid.tileRect($0).y0 >= 1700 }
        #expect(!ahead.isEmpty && ahead.allSatisfy { rig.store.cache.contains($0) }, "the tiles ahead were asked for and are in memory")
        // The app redraws everything: only the tiles the view shows are asked for again, frame
        // after frame, none of those ahead (they are when they show).
        let inMemory = Set(rig.store.cache.keys)
        rig.store.invalidate(PixelRect(x0: 0, y0: 0, x1: content.width, y1: content.height))
        let before = rig.requests.count
        for y in stride(from: 1450.0, through: 1600, by: 50) {
            try rig.frame(300, y, resting: rest)
            _ = try rig.composer.finishBandFill()
        }
        let asked = rig.requests.dropFirst(before)
        let shown = PixelRect(x0: 300, y0: 1450, x1: 620, y1: 1800)
        let staleAhead = asked.map(\.key).filter { inMemory.contains($0) && grid.tileRect($0).intersection(shown).isEmpty }
        #expect(asked.contains { !grid.tileRect($0.key).intersection(shown).isEmpty }, "the view's stale tiles are asked for")
        #expect(staleAhead.isEmpty, "stale tiles outside the view asked for: \(staleAhead)")
    }

    @Test func anAppRedrawingPartOfTheBandsRedrawsOnlyItsNewTilesAndTheFrameEqualsTheContent() throws {
        let rig = try Rig(panel: panel, content: content)
        let grid = rig.store.source.grid
        /// Frames at (300, `y`) until the bands there are drawn whole and every tile answered.
        func settle(_ y: Double) throws {
            try rig.frame(300, y)
            for _ in 0..<4 {
                try rig.answerAll()
                try rig.frame(300, y)
                _ = try rig.composer.finishBandFill()
                try rig.frame(300, y)
            }
        }
        // A band around the view at y 1000, then one around y 1080 (the first one's edge was
        // near): both buffers hold the view at 1080.
        try settle(1000)
        try settle(1080)
        let fills = rig.composer.bandFills, drawn = rig.composer.bandFramesDrawn, before = rig.requests.count
        #expect(fills >= 2 && rig.output.isScanningOutContent)
        // A row inside the view changes: until its new tiles come, the band shows the old pixels.
        rig.store.invalidate(PixelRect(x0: 0, y0: 1100, x1: 1000, y1: 1140))
        try rig.frame(300, 1080)
        #expect(rig.composer.bandPixelsRedrawn == 0 && rig.composer.bandFramesDrawn == drawn)
        let renewed = Array(rig.requests.dropFirst(before))
        #expect(!renewed.isEmpty)
        for r in renewed {
            rig.app.draw(r) { _, _ in 0xFFFF_0000 }
            try rig.provider.answer(r.id, drawn: true)
        }
        rig.store.takeArrivals()
        // Each buffer draws those tiles again, on the worker, one while the other is shown:
        // nothing else, and no frame is composed. Until the first is done, the one on screen
        // stays, out of date where the row is.
        let outOfDate = rig.composer.bandFramesOutOfDate
        try rig.frame(300, 1080)
        #expect(rig.composer.bandFramesOutOfDate == outOfDate + 1)
        #expect(try rig.composer.finishBandFill())
        try rig.frame(300, 1080)
        try rig.frame(300, 1080)
        #expect(try rig.composer.finishBandFill())
        let area = renewed.map { grid.contentRect($0.key).width * grid.contentRect($0.key).height }.reduce(0, +)
        #expect(rig.composer.bandPixelsRedrawn == 2 * area)
        #expect(rig.composer.bandFills == fills && rig.composer.bandFramesDrawn == drawn && rig.output.isScanningOutContent)
        // Each new tile was copied over its old pixels, and the bands still show exactly it.
        #expect(rig.store.cache.overwrites == renewed.count)
        // What is shown is the content as the app now draws it.
        let red = Set(renewed.map(\.key))
        var wrong = 0
        for j in 0..<panel.height {
            for i in 0..<panel.width {
                let x = 300 + i, y = 1080 + j
                let new = red.contains { !grid.contentRect($0).intersection(PixelRect(x0: x, y0: y, x1: x + 1, y1: y + 1)).isEmpty }
                let expected = new ? 0xFFFF_0000 : Self.colour(Double(x) + 0.5, Double(y) + 0.5)
                if rig.output.frontBuffer[i, j] & 0xFF_FFFF != expected & 0xFF_FFFF { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test func anAppRedrawingScatteredTilesOverAndOverRedrawsOnlyThoseTilesInTheBands() throws {
        // A panel of 10 × 6 tiles; the app redraws every other one of them, three times.
        let wide = PixelSize(width: 1280, height: 768)
        let rig = try Rig(panel: wide, content: PixelSize(width: 3000, height: 3000))
        let grid = rig.store.source.grid
        for _ in 0..<6 {
            try rig.frame(512, 512)
            try rig.answerAll()
            try rig.frame(512, 512)
            _ = try rig.composer.finishBandFill()
            try rig.frame(512, 512)
        }
        try #require(rig.output.isScanningOutContent)
        let view = PixelRect(x0: 512, y0: 512, x1: 512 + wide.width, y1: 512 + wide.height)
        let checkerboard = grid.tiles(at: grid.maxLevel, covering: view).filter { ($0.column + $0.row) % 2 == 0 }
        try #require(checkerboard.count == 30)
        let area = checkerboard.map { grid.contentRect($0).width * grid.contentRect($0).height }.reduce(0, +)
        var redrawn = 0
        // Round 0 brings the second buffer in (drawn whole); from then on both are kept.
        for round in 0...3 {
            if round == 1 { redrawn = rig.composer.bandPixelsRedrawn }
            let before = rig.requests.count
            for key in checkerboard { rig.store.invalidate(grid.contentRect(key)) }
            try rig.frame(512, 512)
            #expect(Set(rig.requests.dropFirst(before).map(\.key)) == Set(checkerboard))
            try rig.answerAll()
            // Each buffer draws them again on the worker, the one not on screen first, then the
            // other once it is not.
            for _ in 0..<3 {
                try rig.frame(512, 512)
                _ = try rig.composer.finishBandFill()
            }
            // Each buffer drew those tiles again, and nothing between them.
            if round > 0 { #expect(rig.composer.bandPixelsRedrawn - redrawn == 2 * area * round, "round \(round)") }
        }
    }

    @Test func aLongSessionOfInvalidationsKeepsNoMoreStaleTilesThanTheCacheAndTheBandsHold() throws {
        // Room for 16 tiles; the view takes up to 12, its bands up to 30 each.
        let rig = try Rig(panel: panel, content: content, cacheBytes: 1 << 20)
        let grid = rig.store.source.grid
        var everStale = Set<TileKey>()
        for y in stride(from: 0, through: 2800, by: 100) {
            try rig.frame(300, Double(y))
            try rig.answerAll()
            try rig.frame(300, Double(y))
            _ = try rig.composer.finishBandFill()
            // The whole view changes (a clock in every row), then the view moves on at once.
            rig.store.invalidate(PixelRect(x0: 0, y0: y, x1: 1000, y1: y + 200))
            try rig.frame(300, Double(y + 100))
            everStale.formUnion(rig.store.stale)
            let bandTiles = 2 * grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 0, y0: 0, x1: 576, y1: 456)).count
            #expect(rig.store.stale.count <= rig.store.cache.count + bandTiles)
        }
        // Not bounded by the tiles the session made stale.
        #expect(everStale.count > rig.store.stale.count + 100)
        #expect(rig.store.cache.evictions > 100)
    }

    @Test func aFloodOfInvalidationsIsMergedIntoOnePassPerFrame() throws {
        let rig = try Rig(panel: panel, content: content)
        try rig.frame(300, 1000)
        try rig.answerAll()
        for i in 0..<10_000 { rig.store.invalidate(PixelRect(x0: i % 1000, y0: 1000 + i % 50, x1: i % 1000 + 4, y1: 1004 + i % 50)) }
        #expect(rig.store.invalidations == 10_000)
        let before = rig.requests.count
        try rig.frame(300, 1000)
        // Each visible tile the flood touched asked for once, not once per invalidation.
        let renewed = rig.requests.dropFirst(before).map(\.key)
        #expect(renewed.count == Set(renewed).count && renewed.count <= 3 * 2)
    }

    @Test func anAppRedrawingItsWholeViewAtEveryFrameIsAskedForItsTilesInTurnWithinTheRedrawBudget() throws {
        let rig = try Rig(panel: panel, content: content)
        let grid = rig.store.source.grid
        let viewTiles = RedrawBudget.viewTiles(of: panel, tileSize: 128)
        // 5 views a second of 12 tiles: one tile a frame, after the first frame's whole view.
        rig.store.paceRedraws(viewsPerSecond: 5, viewTiles: viewTiles, clock: { [unowned rig] in rig.now })
        try rig.frame(300, 1000)
        try rig.answerAll()
        try rig.frame(300, 1000)
        _ = try rig.composer.finishBandFill()
        try rig.answerAll()
        let view = PixelRect(x0: 300, y0: 1000, x1: 620, y1: 1200)
        let shown = Set(grid.tiles(at: grid.maxLevel, covering: view))
        // Two seconds of an app changing everything at every frame, answering at once.
        let before = rig.requests.count
        var perFrame: [Int] = []
        for _ in 0..<120 {
            rig.store.invalidate(PixelRect(x0: 0, y0: 0, x1: content.width, y1: content.height))
            let n = rig.requests.count
            try rig.frame(300, 1000)
            perFrame.append(rig.requests.count - n)
            try rig.answerAll()
        }
        let asked = rig.requests.dropFirst(before).map(\.key)
        #expect(Set(asked) == shown, "only the view's tiles, all of them")
        // The budget's: a view's worth at once, then 5 × 12 a second.
        #expect(asked.count <= viewTiles + 2 * 5 * viewTiles && asked.count >= 2 * 5 * viewTiles - 2, "\(perFrame)")
        // The view's nine, then the three tokens left and the frame's one, then one a frame.
        #expect(perFrame.prefix(2) == [9, 4] && perFrame.dropFirst(2).allSatisfy { $0 == 1 }, "\(perFrame)")
        // In turn: every tile shown was redrawn about as often as the others.
        let counts = shown.map { key in asked.count { $0 == key } }
        #expect(counts.max()! - counts.min()! <= 1, "\(counts)")
        #expect(rig.store.redrawsDeferred!.total > 0)
        #expect(rig.store.takeStartedPacing() && !rig.store.takeStartedPacing())
        // Missing tiles are never held back: the view jumps, and every tile it needs is asked
        // for at once, the budget empty.
        let n = rig.requests.count
        try rig.frame(300, 2400)
        let jumped = Set(grid.tiles(at: grid.maxLevel, covering: PixelRect(x0: 300, y0: 2400, x1: 620, y1: 2600)))
        #expect(jumped.isSubset(of: Set(rig.requests.dropFirst(n).map(\.key))))
    }

    @Test func withoutARedrawBudgetEveryChangedTileOnScreenIsAskedForAtEveryFrame() throws {
        let rig = try Rig(panel: panel, content: content)
        rig.store.paceRedraws(viewsPerSecond: 0, viewTiles: 12, clock: { [unowned rig] in rig.now })
        try rig.frame(300, 1000)
        try rig.answerAll()
        let before = rig.requests.count
        for _ in 0..<30 {
            rig.store.invalidate(PixelRect(x0: 0, y0: 0, x1: content.width, y1: content.height))
            try rig.frame(300, 1000)
            try rig.answerAll()
        }
        // The nine tiles the view shows, at each of the 30 frames.
        #expect(rig.requests.count - before == 30 * 9)
        #expect(rig.store.redrawsDeferred?.total == 0)
    }
}
