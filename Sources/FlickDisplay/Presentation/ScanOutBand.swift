import FlickCore
import FlickSystem
import Synchronization

/// Tiled content scanned out at zoom 1 with no per-frame copy: a band of the content larger
/// than the panel, drawn from tiles into a buffer the primary plane shows from the view's
/// corner, as whole content is (docs/tiles.md, "Scanned out at zoom 1: the band").
///
/// Two buffers take turns, and each knows what part of its band holds the content (`valid`):
/// - **Drawn in the background.** While one buffer is on screen, a worker draws the other,
///   placed ahead of the motion (a flick's rest point is known at its start), from
///   full-resolution tiles already in memory; it is shown from the first frame it holds the view.
/// - **A frame drawn into it.** A frame the bands do not hold (a jump, a flick faster than the
///   worker) is composed into the buffer not on screen, at the place a band would take, instead
///   of into a separate frame buffer; only the view's part is valid, and it is shown from there.
///   If the worker is drawing that buffer, it is told to stop (it does within one tile's rows)
///   and its band is dropped: the frame is due now, the band only ahead of need.
/// - **Any other frame composed into it.** A frame no band can hold (zoomed, or the view past
///   the content's edges) is composed into the buffer not on screen, from its corner, and
///   scanned out from there: the buffer holds no band after it.
///   If some of it came from a coarser level, the next frame is drawn again (into the other
///   buffer) until it is exact.
/// - **Completed.** A buffer whose view part is exact is then completed around it by the
///   worker, even while on screen: only pixels outside the part shown are written, and the view
///   moves into them only once the whole band is valid.
/// - **Redrawn.** Parts whose tiles an app drew again are out of date (`invalidate`). The worker
///   draws them again in the buffer not on screen, when it has no band to draw; the buffer on
///   screen waits until it is not. Meanwhile the buffer on screen stays on screen, out of date
///   where its view is, until the other one is up to date (`framesOutOfDate`): three copies of
///   each redrawn tile (out of the app's pool, into each buffer) would otherwise be the loop's,
///   and it would drop the worker's band to compose the frame. Without workers (replays,
///   tests) the loop redraws them at once, and a buffer is never shown out of date.
///
/// So for tiled content no frame buffer beyond the band's two is ever made, at any zoom, and
/// what a band shows is exactly what composing would draw (`ScanOutBandTests`).
///
/// States of a buffer: empty → filling (the worker) → valid (the whole band) or → drawn (the
/// view's part; exact or not) → completing (the worker) → valid; valid or drawn, with parts out
/// of date → redrawing (the worker, the buffer not on screen) → valid or drawn.
final class ScanOutBand {
    /// A band's corner in the content.
    struct Placement: Equatable {
        var x: Int
        var y: Int
    }

    /// What a buffer holds: its band's corner and the part of the content drawn in it.
    private struct Held {
        var placement: Placement
        /// In content pixels.
        var valid: PixelRect
        /// Whether every pixel of `valid` came from full-resolution tiles.
        var exact: Bool
        /// Parts of `valid` whose tiles changed since they were drawn: drawn again before shown.
        var dirty: [PixelRect] = []
    }

    /// A worker's job: which buffer, where its band is, the part being drawn, and the flag
    /// that tells it to stop early.
    private struct Job {
        var buffer: Int
        var placement: Placement
        var drawn: PixelRect
        var cancel = BandJob.Cancel()
        /// Parts of `drawn` whose tiles changed while it was being drawn (from the old tiles).
        var dirty: [PixelRect] = []
        /// For a redraw of a buffer's out-of-date parts (its band and `drawn` unchanged): the
        /// parts it leaves out of date (tiles not in memory yet), and the pixels and rectangles
        /// it draws (counted once it is done, not when dropped).
        var redraw: (leaves: [PixelRect], pixels: Int, rectangles: Int)?
    }

    /// The band's size: the view plus `margin` on each side, within the content.
    let size: PixelSize
    /// Pixels of content beyond the view on each side.
    let margin: Int
    /// Bytes the two buffers take.
    var bytes: Int { buffers.reduce(0) { $0 + $1.stride * $1.height } }
    private let buffers: [PixelBuffer]
    private let content: PixelSize
    private let worker: BackgroundWorker
    private var held: [Held?] = [nil, nil]
    /// The buffer frames are shown from when it holds the view.
    private var current: Int?
    private var job: Job?
    /// The view of the last frame shown from a band, in content pixels.
    private var lastView: PixelRect?
    /// The buffer the last committed frame scans out, if any: it stays on screen until the
    /// next frame's flip, so nothing is drawn into it before then but pixels it does not show.
    var onScreen: Int?
    /// Bands drawn (or completed) by the worker so far.
    private(set) var fills = 0
    /// Frames composed into a band's buffer.
    private(set) var framesDrawn = 0
    /// Frames no band could hold (zoomed, past the content's edges) composed into a buffer.
    private(set) var framesComposed = 0
    /// The worker's bands dropped for a frame due before they were done.
    private(set) var jobsDropped = 0
    /// Pixels drawn again in a buffer because their tiles changed (an app redrew them), and
    /// the rectangles they were drawn in.
    private(set) var pixelsRedrawn = 0, rectanglesRedrawn = 0
    /// Frames drawn into a buffer that held most of the view already (only the rest drawn,
    /// `drawFrame`'s `store`), and the pixels drawn for them.
    private(set) var framesPatched = 0, pixelsPatched = 0
    /// Frames shown from the buffer on screen out of date where the view is, while the worker
    /// drew the other one.
    private(set) var framesOutOfDate = 0
    /// Frames in a row shown out of date with the worker idle (it had no band it could draw:
    /// tiles missing), at most `outOfDateFramesAlone`; then one is composed on the loop.
    private var outOfDateAlone = 0
    /// See `outOfDateAlone`: an app's new tiles are never more than these frames late for want
    /// of the worker.
    static let outOfDateFramesAlone = 4
    /// Whether the last `plan` had workers (an app's content, not a replay): out-of-date parts
    /// are then redrawn on the worker, and a buffer may be shown out of date meanwhile.
    private var redrawsOnWorker = false

    /// The default margin: a quarter of the shorter side of the view, at least 128 pixels
    /// (270 at 1080p: two bands of 2460×1620 take 30 MiB of the cache).
    static func defaultMargin(view: PixelSize) -> Int { max(128, min(view.width, view.height) / 4) }

    /// A band's size: the view plus `margin` on each side, within the content.
    static func size(view: PixelSize, content: PixelSize, margin: Int) -> PixelSize {
        PixelSize(width: min(content.width, view.width + 2 * margin), height: min(content.height, view.height + 2 * margin))
    }

    /// Makes the two buffers through `output`; `nil` when it cannot, or cannot scan them out.
    init?(output: any Output, view: PixelSize, content: PixelSize, margin: Int) {
        let size = Self.size(view: view, content: content, margin: margin)
        guard size.width >= view.width, size.height >= view.height,
              let first = output.makeScanOutBuffer(size), let second = output.makeScanOutBuffer(size),
              output.prepareScanOut(first), output.prepareScanOut(second),
              // Below the loop, above the decoders: a band is due within a few frames.
              let worker = BackgroundWorker(level: .band) else { return nil }
        self.size = size
        self.margin = margin
        self.content = content
        buffers = [first, second]
        self.worker = worker
    }

    deinit { worker.stop() }

    /// Readable when the worker finished a band.
    var fileDescriptor: Descriptor { worker.fileDescriptor }

    private func bandRect(_ p: Placement) -> PixelRect {
        PixelRect(x0: p.x, y0: p.y, x1: p.x + size.width, y1: p.y + size.height)
    }

    private static func holds(_ outer: PixelRect, _ inner: PixelRect) -> Bool {
        inner.x0 >= outer.x0 && inner.y0 >= outer.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1
    }

    /// The buffer and corner to scan out for a view whose corner is (`x`, `y`), if the current
    /// buffer holds the whole view, exactly.
    func source(x: Int, y: Int, view: PixelSize) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        let rect = PixelRect(x0: x, y0: y, x1: x + view.width, y1: y + view.height)
        for index in [current, current.map { 1 - $0 }].compactMap({ $0 }) {
            guard let h = held[index], h.exact, Self.holds(h.valid, rect),
                  !h.dirty.contains(where: { !$0.intersection(rect).isEmpty }) else { continue }
            current = index
            lastView = rect
            outOfDateAlone = 0
            return (buffers[index], index, x - h.placement.x, y - h.placement.y)
        }
        // Out of date where the view is: while the worker draws the other buffer, the one on
        // screen stays (its changed tiles' old pixels a few frames more), rather than stopping
        // the worker to compose the frame on the loop; and for a few frames while the worker
        // waits for the tiles of a band to draw.
        let workerBusy = job.map { $0.buffer != onScreen } ?? false
        if redrawsOnWorker, workerBusy || outOfDateAlone < Self.outOfDateFramesAlone,
           let index = onScreen, let h = held[index], h.exact, Self.holds(h.valid, rect) {
            if !workerBusy { outOfDateAlone += 1 }
            current = index
            lastView = rect
            framesOutOfDate += 1
            return (buffers[index], index, x - h.placement.x, y - h.placement.y)
        }
        return nil
    }

    /// Where the next band goes for a view at (`x`, `y`) heading for `resting`: around the view,
    /// shifted by up to `margin` toward the rest point, within the content.
    func placement(x: Int, y: Int, view: PixelSize, resting: Point?) -> (x: Int, y: Int) {
        func axis(_ at: Int, _ rest: Double?, _ band: Int, _ whole: Int) -> Int {
            let lead = rest.map { Int(max(-Double(margin), min(Double(margin), ($0 - Double(at)).rounded()))) } ?? 0
            return min(max(0, at - margin + lead), whole - band)
        }
        return (axis(x, resting?.x, size.width, content.width), axis(y, resting?.y, size.height, content.height))
    }

    /// Draws a frame the bands do not hold into the buffer not on screen, at the place a band
    /// around the view takes, and returns where to scan it out from. When the worker is drawing
    /// that buffer, its job is stopped and dropped first, so no frame buffer beyond the bands'
    /// is ever needed. `draw` composes the frame into the view-sized part given; it returns
    /// whether every pixel came from full-resolution tiles.
    ///
    /// With `store`, a buffer that already holds part of the view exactly, in a band holding
    /// all of it (the frame before the last one, while an app's new tiles keep the buffer on
    /// screen out of date), keeps its place: only what it lacks of the view and its parts out of
    /// date are drawn, from the full-resolution tiles in memory (`patch`).
    func drawFrame(x: Int, y: Int, view: PixelSize, resting: Point?, store: TileStore? = nil,
                   draw: (PixelBuffer) -> Bool) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        guard let index = freeBuffer() else { return nil }
        if let store, let patched = patch(index, view: PixelRect(x0: x, y0: y, x1: x + view.width, y1: y + view.height),
                                          store: store) {
            return patched
        }
        let corner = placement(x: x, y: y, view: view, resting: resting)
        let buffer = buffers[index]
        guard let part = PixelBuffer(borrowing: buffer.pixels + (y - corner.y) * buffer.stride + (x - corner.x) * 4,
                                     width: view.width, height: view.height, stride: buffer.stride) else { return nil }
        let exact = draw(part)
        held[index] = Held(placement: Placement(x: corner.x, y: corner.y),
                           valid: PixelRect(x0: x, y0: y, x1: x + view.width, y1: y + view.height), exact: exact)
        current = index
        lastView = held[index]?.valid
        framesDrawn += 1
        return (buffer, index, x - corner.x, y - corner.y)
    }

    /// Called for each frame at zoom 1, before `source`: starts the worker on the buffer frames
    /// are shown from when only its view part is valid (completing it around the view), else on
    /// the other buffer when the view is about to leave the current band (within half a margin
    /// of an edge it is heading to) or is outside it, or, while a motion heads for a rest point
    /// beyond it, as soon as the view has moved half a margin from where the band was placed (a
    /// fast flick is followed band after band). Only once the full-resolution tiles needed are
    /// in memory (they are asked for otherwise, then the tiles the motion shows after them).
    func plan(x: Int, y: Int, view: PixelSize, resting: Point?, store: TileStore) {
        // A band the worker finished since the last frame serves this one, not only the next.
        _ = takeFinished()
        redrawsOnWorker = store.fetcher != nil
        // A frame from the bands draws no tiles through the compositor, which begins the cache's
        // frames: without this, every tile used since the last composed frame counts as this
        // frame's, which eviction may not take. Begun here for an app's tiles, whose evicted
        // buffers take its next answers; decoded tiles come in new buffers, and evicting for
        // them would unmap buffers on the loop while a flick pans (section 10's wake → flip p99
        // went from 0.2 to 1.1-1.8 ms), so theirs wait for a composed frame.
        if store.reusesEvictedBuffers { store.cache.beginFrame() }
        let viewRect = PixelRect(x0: x, y0: y, x1: x + view.width, y1: y + view.height)
        store.renewStale(in: viewRect)
        // After a band is started, if one is: a redraw waits for the worker to be free.
        defer { redrawChanged(store: store) }
        guard job == nil, !worker.isBusy else { return }
        let grid = store.source.grid
        let ahead = resting.map {
            Compositor.tilesAhead(grid: grid, level: grid.maxLevel, view: PixelRect(x0: 0, y0: 0, x1: view.width, y1: view.height),
                                  from: Point(x: Double(x), y: Double(y)), to: $0, zoom: 1)
        } ?? []
        if let index = current, let h = held[index], h.exact, h.valid != bandRect(h.placement) {
            // Complete the current band around the part already drawn (it may be on screen:
            // only pixels it does not show are written).
            start(Job(buffer: index, placement: h.placement, drawn: bandRect(h.placement)), except: h.valid,
                  store: store, view: viewRect, ahead: ahead)
            return
        }
        let next = placement(x: x, y: y, view: view, resting: resting)
        let nextPlacement = Placement(x: next.x, y: next.y)
        // The buffer on screen out of date where the view is, and the other one not holding the
        // view: a band around the view is drawn on the worker while it stays on screen, rather
        // than the frame composed on the loop (the buffer on screen cannot be redrawn there).
        let stuck = redrawsOnWorker && current != nil && current == onScreen
            && current.flatMap { held[$0] }.map { $0.dirty.contains { !$0.intersection(viewRect).isEmpty } } == true
            && current.flatMap { held[1 - $0] }.map { $0.exact && Self.holds($0.valid, viewRect) } != true
        if let index = current, let h = held[index], !stuck {
            if h.placement == nextPlacement { return }
            let band = bandRect(h.placement)
            let slack = min(h.placement.x == next.x ? Int.max : min(x - band.x0, band.x1 - x - view.width),
                            h.placement.y == next.y ? Int.max : min(y - band.y0, band.y1 - y - view.height))
            // Compared as Doubles: the rest point is any finite offset a client sent.
            let restOutside = resting.map { rest in
                let x = rest.x.rounded(), y = rest.y.rounded()
                return !(x >= Double(band.x0) && y >= Double(band.y0)
                         && x + Double(view.width) <= Double(band.x1) && y + Double(view.height) <= Double(band.y1))
            } ?? false
            let moved = max(abs(next.x - h.placement.x), abs(next.y - h.placement.y))
            if slack >= margin / 2 && !(restOutside && moved >= margin / 2) { return }
        }
        // The buffer not on screen; the other one than frames are shown from, if both are free.
        let order: [Int] = current.map { [1 - $0, $0] } ?? [0, 1]
        guard let target = order.first(where: { $0 != onScreen }) else { return }
        // Held there already, whole: only its out-of-date parts are drawn again (`redrawChanged`).
        if let h = held[target], h.exact, h.placement == nextPlacement, h.valid == bandRect(nextPlacement) { return }
        start(Job(buffer: target, placement: nextPlacement, drawn: bandRect(nextPlacement)), except: nil,
              store: store, view: viewRect, ahead: ahead)
    }

    /// Starts the worker drawing `job` (less `except`) once its tiles are in memory; those of
    /// `view` are asked for first (an app drawing on request answers in that order).
    private func start(_ job: Job, except: PixelRect?, store: TileStore, view: PixelRect, ahead: [TileKey]) {
        let grid = store.source.grid
        let band = grid.tiles(at: grid.maxLevel, covering: job.drawn)
        let inView = band.filter { !grid.tileRect($0).intersection(view).isEmpty }
        let keys = inView + band.filter { grid.tileRect($0).intersection(view).isEmpty }
        guard let tiles = store.tilesInMemory(keys, then: ahead, renewing: view) else { return }
        let parts = zip(keys, tiles).map { key, tile in Part(tile: tile, stored: grid.storedRect(key), inner: grid.tileRect(key)) }
        let rects = except.map { job.drawn.subtracting($0) } ?? [job.drawn]
        let draw = BandJob(band: buffers[job.buffer], origin: job.drawn, rects: rects, parts: parts, cancel: job.cancel)
        if store.fetcher == nil {
            // Tiles made as frames need them (replays, tests): the band too, so every run
            // scans out the same frames.
            draw.run()
            finish(job)
            return
        }
        // The buffer's part being drawn is not valid until the job is done.
        if job.buffer != current || except == nil { held[job.buffer] = nil }
        guard worker.submit({ draw.run() }) else { return }
        self.job = job
    }

    private func finish(_ job: Job) {
        if let redraw = job.redraw {
            // Up to date but for the parts it left and what changed while it was drawn.
            if var h = held[job.buffer], h.placement == job.placement {
                h.dirty = Self.merged(redraw.leaves, job.dirty)
                held[job.buffer] = h
            }
            pixelsRedrawn += redraw.pixels
            rectanglesRedrawn += redraw.rectangles
            return
        }
        // A band completed around its view part keeps what changed there since it was drawn.
        let before = held[job.buffer].flatMap { $0.placement == job.placement ? $0.dirty : nil } ?? []
        held[job.buffer] = Held(placement: job.placement, valid: job.drawn, exact: true, dirty: Self.merged(before, job.dirty))
        // A band drawn ahead becomes the one shown from as soon as it holds the view.
        if current == nil || lastView.map({ Self.holds(job.drawn, $0) }) == true { current = job.buffer }
        fills += 1
    }

    /// Brings buffer `index` to show `view` where it holds part of it exactly, in a band holding
    /// all of it: draws the rest of the view and the parts of it whose tiles changed,
    /// from the full-resolution tiles in memory; the buffer then holds the view. `nil` (nothing
    /// drawn) when it does not, or when a tile needed is not in memory.
    private func patch(_ index: Int, view: PixelRect, store: TileStore) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        guard let h = held[index], h.exact, Self.holds(bandRect(h.placement), view) else { return nil }
        let kept = h.valid.intersection(view)
        guard !kept.isEmpty else { return nil }
        let rects = view.subtracting(kept) + h.dirty.map { $0.intersection(kept) }.filter { !$0.isEmpty }
        let grid = store.source.grid
        var parts: [Part] = []
        var seen = Set<TileKey>()
        for rect in rects {
            for key in grid.tiles(at: grid.maxLevel, covering: rect) where seen.insert(key).inserted {
                guard let tile = store.cache.tile(key) else { return nil }
                parts.append(Part(tile: tile, stored: grid.storedRect(key), inner: grid.tileRect(key)))
            }
        }
        BandJob(band: buffers[index], origin: bandRect(h.placement), rects: rects, parts: parts, cancel: BandJob.Cancel()).run()
        for rect in rects { pixelsPatched += rect.width * rect.height }
        held[index] = Held(placement: h.placement, valid: view, exact: true)
        current = index
        lastView = view
        framesPatched += 1
        return (buffers[index], index, view.x0 - h.placement.x, view.y0 - h.placement.y)
    }

    /// Composes a frame that no band can hold (zoomed, or past the content's edges) into the
    /// buffer not on screen, from its corner, so that tiled content needs no frame buffer of the
    /// display's at any zoom; the buffer then holds no band. `draw` composes the view-sized part
    /// given.
    func composeFrame(view: PixelSize, draw: (PixelBuffer) -> Void) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        guard let index = freeBuffer() else { return nil }
        let buffer = buffers[index]
        guard let part = PixelBuffer(borrowing: buffer.pixels, width: view.width, height: view.height,
                                     stride: buffer.stride) else { return nil }
        draw(part)
        held[index] = nil
        if current == index { current = nil }
        lastView = nil
        framesComposed += 1
        return (buffer, index, 0, 0)
    }

    /// The buffer a frame may be drawn into now: not on screen, and not the worker's (a job
    /// drawing the only candidate is dropped: the frame is due now, the band only ahead).
    private func freeBuffer() -> Int? {
        if let running = job, running.buffer != onScreen, [0, 1].allSatisfy({ $0 == onScreen || $0 == running.buffer }) {
            drop(running)
        }
        return [0, 1].first { $0 != onScreen && $0 != job?.buffer }
    }

    /// Notes that the buffers' pixels in `rects` are out of date (content pixels whose tiles
    /// changed: an app redrew them). Only those parts are drawn again (`plan`), the rest of each
    /// band is kept; a buffer is not shown from where its view is out of date. A band being
    /// drawn goes on, and its parts in `rects` are out of date once it is done.
    func invalidate(_ rects: [PixelRect]) {
        func parts(of r: PixelRect) -> [PixelRect] { rects.map { $0.intersection(r) }.filter { !$0.isEmpty } }
        for index in 0..<2 {
            guard var h = held[index] else { continue }
            h.dirty = Self.merged(h.dirty, parts(of: h.valid))
            held[index] = h
        }
        if var running = job {
            running.dirty = Self.merged(running.dirty, parts(of: running.drawn))
            job = running
        }
    }

    /// `rects` added to `dirty` (`PixelRect.merging`: repeats kept once, bounded).
    private static func merged(_ dirty: [PixelRect], _ rects: [PixelRect]) -> [PixelRect] {
        PixelRect.merging(dirty, rects)
    }

    /// Draws again, from the tiles in memory, the out-of-date parts of each exact buffer the
    /// worker is not drawing. A part whose tiles are not all in memory waits for them.
    /// - With workers: on the worker, in the buffer not on screen, when the worker is free; the
    ///   buffer on screen waits until it is not (`source` shows it out of date meanwhile).
    /// - Without (replays, tests): at once, on the loop, in both buffers but for the parts the
    ///   buffer on screen shows now (drawn once it is not).
    private func redrawChanged(store: TileStore) {
        let grid = store.source.grid
        for index in 0..<2 where index != job?.buffer {
            guard var h = held[index], h.exact, !h.dirty.isEmpty else { continue }
            if redrawsOnWorker && (index == onScreen || job != nil || worker.isBusy) { continue }
            var waiting: [PixelRect] = [], rects: [PixelRect] = [], parts: [Part] = [], pixels = 0
            var seen = Set<TileKey>()
            for rect in h.dirty {
                if index == onScreen, let shown = lastView, !rect.intersection(shown).isEmpty {
                    waiting.append(rect)
                    continue
                }
                let keys = grid.tiles(at: grid.maxLevel, covering: rect)
                let tiles = keys.compactMap { store.cache.tile($0) }
                guard tiles.count == keys.count else {
                    waiting.append(rect)
                    continue
                }
                rects.append(rect)
                for (key, tile) in zip(keys, tiles) where seen.insert(key).inserted {
                    parts.append(Part(tile: tile, stored: grid.storedRect(key), inner: grid.tileRect(key)))
                }
                pixels += rect.width * rect.height
            }
            guard !rects.isEmpty else { continue }
            let draw = BandJob(band: buffers[index], origin: bandRect(h.placement), rects: rects, parts: parts, cancel: BandJob.Cancel())
            if redrawsOnWorker {
                let redraw = Job(buffer: index, placement: h.placement, drawn: h.valid, cancel: draw.cancel,
                                 redraw: (waiting, pixels, rects.count))
                if worker.submit({ draw.run() }) { job = redraw }
                return
            }
            draw.run()
            pixelsRedrawn += pixels
            rectanglesRedrawn += rects.count
            h.dirty = waiting
            held[index] = h
        }
    }

    /// The parts of the content the buffers hold, and the part the worker is drawing (content
    /// pixels): where the band may show a tile's pixels that the cache no longer has.
    var holds: [PixelRect] {
        held.compactMap { $0?.valid } + (job.map { [$0.drawn] } ?? [])
    }

    /// Stops the worker's job and forgets it: its buffer holds only what it held before.
    private func drop(_ running: Job) {
        running.cancel.set()
        worker.waitUntilDone()
        _ = worker.takeDone()
        job = nil
        jobsDropped += 1
    }

    /// Whether the worker is drawing a band (or has drawn one not yet taken).
    var isFilling: Bool { job != nil }

    /// Takes the worker's finished band: `true` if there is a new one to show from.
    func takeFinished() -> Bool {
        guard worker.takeDone(), let done = job else { return false }
        job = nil
        finish(done)
        return true
    }

    /// One tile's contribution to a band.
    struct Part {
        var tile: PixelBuffer
        var stored: PixelRect
        var inner: PixelRect
    }
}

/// Copies the tiles' rows into a band's rectangles: plain memory reads of pixels no one writes
/// any more, so it may run on another thread while the loop draws from the same tiles.
private struct BandJob: @unchecked Sendable {
    /// Set by the loop when it needs the buffer now; read before each tile's copy.
    final class Cancel: Sendable {
        private let flag = Atomic(false)
        func set() { flag.store(true, ordering: .relaxed) }
        var isSet: Bool { flag.load(ordering: .relaxed) }
    }

    let band: PixelBuffer
    let origin: PixelRect
    let rects: [PixelRect]
    let parts: [ScanOutBand.Part]
    let cancel: Cancel

    func run() {
        for rect in rects {
            for part in parts {
                if cancel.isSet { return }
                let r = part.inner.intersection(rect)
                guard !r.isEmpty else { continue }
                band.copy(from: part.tile, x: r.x0 - part.stored.x0, y: r.y0 - part.stored.y0, width: r.width, height: r.height,
                          toX: r.x0 - origin.x0, toY: r.y0 - origin.y0)
            }
        }
    }
}
