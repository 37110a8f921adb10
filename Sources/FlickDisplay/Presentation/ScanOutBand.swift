import FlickCore

/// Tiled content scanned out at zoom 1 with no per-frame copy: a band of the content larger
/// than the panel, drawn from tiles into a buffer the primary plane shows from the view's
/// corner, as whole content is (DESIGN §4). Two buffers take turns: while one is on screen the
/// other is drawn on a worker thread, placed ahead of the motion (a flick's rest point is
/// known at its start), and shown from the first frame it holds the view.
///
/// A band is drawn only from full-resolution tiles already in memory, so a band on screen is
/// exactly what composing would draw; until its tiles are there (they are asked for) frames
/// are composed.
///
/// States: empty → filling (a buffer being drawn) → ready (a band holds a placement) →
/// ready + filling (the next one drawn behind the one shown) → ready (the new one) ….
final class ScanOutBand {
    /// A band's corner in the content and which buffer holds it.
    struct Placement: Equatable {
        var buffer: Int
        var x: Int
        var y: Int
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
    private(set) var ready: Placement?
    private var filling: Placement?
    /// The buffer the last committed frame scans out, if any: it stays on screen until the
    /// next frame's flip, so it is never drawn into before then.
    var onScreen: Int?
    /// Bands drawn so far.
    private(set) var fills = 0

    /// The default margin: a quarter of the shorter side of the view, at least 128 pixels
    /// (270 at 1080p: two bands of 2460×1620 take 30 MiB of the cache).
    static func defaultMargin(view: PixelSize) -> Int { max(128, min(view.width, view.height) / 4) }

    /// Makes the two buffers through `output`; `nil` when it cannot, or cannot scan them out.
    init?(output: any Output, view: PixelSize, content: PixelSize, margin: Int) {
        let size = PixelSize(width: min(content.width, view.width + 2 * margin),
                             height: min(content.height, view.height + 2 * margin))
        guard size.width >= view.width, size.height >= view.height,
              let first = output.makeScanOutBuffer(size), let second = output.makeScanOutBuffer(size),
              output.canScanOut(first), output.canScanOut(second), let worker = BackgroundWorker() else { return nil }
        self.size = size
        self.margin = margin
        self.content = content
        buffers = [first, second]
        self.worker = worker
    }

    deinit { worker.stop() }

    /// Readable when a band finished drawing.
    var fileDescriptor: Int32 { worker.fileDescriptor }

    /// The buffer and corner to scan out for a view whose corner is (`x`, `y`), if the ready
    /// band holds the whole view.
    func source(x: Int, y: Int, view: PixelSize) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        guard let ready, x >= ready.x, y >= ready.y, x + view.width <= ready.x + size.width,
              y + view.height <= ready.y + size.height else { return nil }
        return (buffers[ready.buffer], ready.buffer, x - ready.x, y - ready.y)
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

    /// Called for each frame at zoom 1: starts drawing the spare buffer when the view is about
    /// to leave the ready band (within half a margin of an edge it is heading to) or is outside
    /// it, or, while a motion heads for a rest point beyond the band, as soon as the view has
    /// moved half a margin from where the band was placed for it (a fast flick is followed band
    /// after band); once the full-resolution tiles the new band needs are in memory (they are
    /// asked for otherwise).
    func plan(x: Int, y: Int, view: PixelSize, resting: Point?, store: TileStore) {
        guard filling == nil, !worker.isBusy else { return }
        let next = placement(x: x, y: y, view: view, resting: resting)
        if let ready {
            if ready.x == next.x && ready.y == next.y { return }
            let slack = min(ready.x == next.x ? Int.max : min(x - ready.x, ready.x + size.width - x - view.width),
                            ready.y == next.y ? Int.max : min(y - ready.y, ready.y + size.height - y - view.height))
            let restOutside = resting.map { source(x: Int($0.x.rounded()), y: Int($0.y.rounded()), view: view) == nil } ?? false
            let moved = max(abs(next.x - ready.x), abs(next.y - ready.y))
            if slack >= margin / 2 && !(restOutside && moved >= margin / 2) { return }
        }
        let grid = store.source.grid
        let rect = PixelRect(x0: next.x, y0: next.y, x1: next.x + size.width, y1: next.y + size.height)
        let keys = grid.tiles(at: grid.maxLevel, covering: rect)
        // What the motion shows after this band, asked for behind its tiles.
        let ahead = resting.map {
            Compositor.tilesAhead(grid: grid, level: grid.maxLevel, view: PixelRect(x0: 0, y0: 0, x1: view.width, y1: view.height),
                                  from: Point(x: Double(x), y: Double(y)), to: $0, zoom: 1)
        } ?? []
        guard let tiles = store.tilesInMemory(keys, then: ahead) else { return }
        let target = Placement(buffer: ready.map { 1 - $0.buffer } ?? 0, x: next.x, y: next.y)
        guard target.buffer != onScreen else { return }
        let parts = zip(keys, tiles).map { key, tile in Part(tile: tile, stored: grid.storedRect(key), inner: grid.tileRect(key)) }
        let job = BandJob(band: buffers[target.buffer], origin: rect, parts: parts)
        if store.loader == nil {
            // Tiles made as frames need them (replays, tests): the band too, so every run
            // scans out the same frames.
            job.run()
            ready = target
            fills += 1
            return
        }
        guard worker.submit({ job.run() }) else { return }
        filling = target
    }

    /// Takes a finished band: `true` if a new one is ready to show.
    func takeFinished() -> Bool {
        guard worker.takeDone(), let filled = filling else { return false }
        filling = nil
        ready = filled
        fills += 1
        return true
    }

    /// Waits for the band being drawn, then takes it (tests and benchmarks; never the loop).
    func finishFilling() -> Bool {
        worker.waitUntilDone()
        return takeFinished()
    }

    /// One tile's contribution to a band.
    struct Part {
        var tile: PixelBuffer
        var stored: PixelRect
        var inner: PixelRect
    }
}

/// Copies the tiles' rows into a band: plain memory reads of pixels no one writes any more, so
/// it may run on another thread while the loop draws from the same tiles.
private struct BandJob: @unchecked Sendable {
    let band: PixelBuffer
    let origin: PixelRect
    let parts: [ScanOutBand.Part]

    func run() {
        for part in parts {
            let r = part.inner.intersection(origin)
            guard !r.isEmpty else { continue }
            band.copy(from: part.tile, x: r.x0 - part.stored.x0, y: r.y0 - part.stored.y0, width: r.width, height: r.height,
                      toX: r.x0 - origin.x0, toY: r.y0 - origin.y0)
        }
    }
}
