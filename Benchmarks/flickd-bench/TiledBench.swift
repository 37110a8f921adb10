import FlickCore
import FlickDaemon
import FlickDisplay
import FlickSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Tiled content, in process (section 8): what a frame costs at zoom 1 and at 0.3 (levels of
/// detail), and a flick at 8000 px/s across big content on a paced 60 Hz headless display with
/// the tile workers and the scan-out band running as in the daemon.
enum TiledBench {
    static let screen = PixelSize(width: 1920, height: 1080)

    /// Compose cost per frame at zoom 1 and at 0.3 over `store`, every tile in memory,
    /// interleaved frame by frame with a memcpy of one frame: (zoom 1, zoom 0.3, memcpy) in ms.
    static func compose(_ content: Content, frames: Int) -> (one: Stats, reduced: Stats, memcpy: Stats) {
        guard let output = HeadlessOutput(size: screen, overlayPlanes: 0),
              let frameSource = PixelBuffer(width: screen.width, height: screen.height) else {
            fatalError("flickd-bench: cannot allocate 1080p buffers")
        }
        frameSource.fill(0xFF33_6699)
        // One compositor per zoom, as a display scrolling at that zoom has: each frame at 0.3
        // after the first is drawn from tiles resampled to 0.3 once.
        let compositor = Compositor(), reducing = Compositor()
        let size = content.size
        func state(_ zoom: Double, _ x: Double, _ y: Double) -> RenderState {
            RenderState(boundsSize: screen.size, contentOffset: Point(x: x, y: y), zoomScale: zoom, contentSize: size,
                        indicatorOpacity: 1, background: .black)
        }
        let one = state(1, 1000, 1500), reduced = state(0.3, 0, 100.5)
        var a: [Double] = [], b: [Double] = [], c: [Double] = []
        try! output.withBackBuffer { target in
            // Warm-up: the tiles of both frames into the cache.
            for _ in 0..<3 {
                compositor.compose(one, content: content, into: target)
                reducing.compose(reduced, content: content, into: target)
            }
            for _ in 0..<frames {
                var t0 = monotonicNanoseconds()
                compositor.compose(one, content: content, into: target)
                var t1 = monotonicNanoseconds()
                a.append(Double(t1 - t0) / 1e6)
                t0 = monotonicNanoseconds()
                reducing.compose(reduced, content: content, into: target)
                t1 = monotonicNanoseconds()
                b.append(Double(t1 - t0) / 1e6)
                t0 = monotonicNanoseconds()
                memcpy(target.pixels, frameSource.pixels, screen.area * 4)
                t1 = monotonicNanoseconds()
                c.append(Double(t1 - t0) / 1e6)
            }
        }
        return (Stats(samples: a), Stats(samples: b), Stats(samples: c))
    }

    /// What a flick showed.
    struct Flick {
        var frames = 0
        var scannedOut = 0
        /// Composed frames with some part from a coarser level than the frame's own.
        var fromCoarser = 0
        /// Frames where some part of the content had nothing to draw.
        var withHoles = 0
        /// Wake-up → flip queued, per frame, in µs: stepping the flick, taking arrived tiles
        /// and bands, drawing or planning the band, committing.
        var work: [Double] = []
        var distance = 0.0
        var bandFills = 0
        /// Frames composed into a band's free buffer (ahead of the worker), then scanned out.
        var drawnIntoBand = 0
        /// The frames over 1 ms, and what the thread waited on in them.
        var slow = SlowFrames()
    }

    /// A flick at `speed` px/s along (`dx`, `dy`) from `start`, decelerating at UIKit's normal
    /// rate (0.998/ms), played frame by frame in real time at 60 Hz until it rests.
    static func flick(_ content: Content, from start: Point, speed: Double, direction: (Double, Double)) throws -> Flick {
        guard let output = HeadlessOutput(size: screen, overlayPlanes: 2), let store = content.tiles else {
            throw RigError("headless output or untiled content")
        }
        let composer = FrameComposer(output: output, compositor: Compositor(), content: content)
        let norm = (direction.0 * direction.0 + direction.1 * direction.1).squareRoot()
        let (ux, uy) = (direction.0 / norm, direction.1 / norm)
        let rate = 0.998, k = -log(rate)   // per ms
        let travel = speed / 1000 / k     // px until rest
        let duration = log(speed / 1000 / 0.001) / k   // ms until slower than 1 px/s
        let rest = Point(x: (start.x + ux * travel).rounded(), y: (start.y + uy * travel).rounded())
        var result = Flick()
        // The view rests at the start first, as it did under the finger before the flick: its
        // tiles in memory and a band drawn (up to 2 s).
        var now = Instant(nanoseconds: Int64(monotonicNanoseconds()))
        var still = RenderState(boundsSize: screen.size, contentOffset: start, zoomScale: 1, contentSize: content.size,
                                indicatorOpacity: 0, background: .black)
        still.restingOffset = rest
        for _ in 0..<120 where composer.bandFills == 0 || store.pendingCount > 0 {
            store.takeArrivals()
            _ = composer.takeBandFill()
            try composer.commit(still, now: now)
            now = output.nextDeadline ?? now
            _ = try output.dispatch(now: now)
            usleep(16_667)
        }
        let firstCoarser = store.framesFromCoarser, firstHoles = store.framesWithHoles, firstFills = composer.bandFills
        let firstDrawn = composer.bandFramesDrawn
        let t0 = monotonicNanoseconds()
        var frame = 0
        while true {
            let due = t0 + Int64(Double(frame) * 16_666_667)
            while monotonicNanoseconds() < due {
                // The loop sleeps until the vblank; tiles and bands arrive meanwhile.
                usleep(200)
            }
            let waitsBefore = ThreadWaits.now()
            let wake = monotonicNanoseconds()
            let ms = Double(frame) * 1000 / 60
            let moved = travel * (1 - pow(rate, ms))
            let offset = Point(x: (start.x + ux * moved).rounded(), y: (start.y + uy * moved).rounded())
            store.takeArrivals()
            let arrived = monotonicNanoseconds()
            _ = composer.takeBandFill()
            let banded = monotonicNanoseconds()
            var state = RenderState(boundsSize: screen.size, contentOffset: offset, zoomScale: 1, contentSize: content.size,
                                    indicatorOpacity: 1, background: .black)
            state.restingOffset = rest
            let composedBefore = composer.committedFrameCount - composer.scannedOutFrameCount
            try composer.commit(state, now: max(now, Instant(nanoseconds: Int64(wake))))
            let done = monotonicNanoseconds()
            let waits = ThreadWaits.now() - waitsBefore
            result.work.append(Double(done - wake) / 1e3)
            if done - wake > 1_000_000 {
                result.slow.frames.append((total: Double(done - wake) / 1e3, arrivals: Double(arrived - wake) / 1e3,
                                           band: Double(banded - arrived) / 1e3, commit: Double(done - banded) / 1e3, waits: waits))
            }
            if composer.committedFrameCount - composer.scannedOutFrameCount == composedBefore { result.scannedOut += 1 }
            now = output.nextDeadline ?? Instant(nanoseconds: Int64(done))
            _ = try output.dispatch(now: now)
            result.frames += 1
            frame += 1
            if ms > duration { break }
        }
        result.fromCoarser = store.framesFromCoarser - firstCoarser
        result.withHoles = store.framesWithHoles - firstHoles
        result.distance = travel
        result.bandFills = composer.bandFills - firstFills
        result.drawnIntoBand = composer.bandFramesDrawn - firstDrawn
        return result
    }

    /// Section 8's in-process part.
    static func report(quick: Bool) {
        let frames = quick ? 20 : 200
        let pattern: Content
        do {
            pattern = try Content.testPattern(PixelSize(width: 7680, height: 4320), tiles: .init(cacheBytes: 256 << 20, workers: 0))
        } catch {
            print("flickd-bench: tiled test pattern: \(error)")
            return
        }
        let (one, reduced, copy) = compose(pattern, frames: frames)
        print("compose 1920×1080 from tiles (test pattern 7680×4320, 256 px tiles, all in memory), ms per frame:")
        print("  zoom 1    \(one.summary("ms", digits: 3))")
        print("  zoom 0.3  \(reduced.summary("ms", digits: 3))   (the half-size level's tiles resampled to 0.3 once)")
        print("  memcpy    \(copy.summary("ms", digits: 3))")
        let ratio = reduced.pairedRatio(to: one), toCopy = one.pairedRatio(to: copy)
        print("  ratios (median of frame-by-frame pairs): zoom 0.3 ×\(fmt(ratio, 2)) zoom 1; zoom 1 ×\(fmt(toCopy, 2)) memcpy")
        Verdicts.check("tiled compose at zoom 0.3 ≤ 1.2× zoom 1", ratio <= 1.2, "×\(fmt(ratio, 2))")
        // Information, not a target: with overlay planes a frame at zoom 1 is scanned out from the
        // band (section 10's flick); this is the fallback's cost, one memcpy per tile row.
        print("  (information) zoom 1 composed from tiles, as without overlay planes: ×\(fmt(toCopy, 2)) memcpy")
    }

    /// The flick part, over content `open` makes afresh for each flick (the generated map's pyramid).
    /// The flicks run as the daemon's loop does: at `display.realtime_priority`'s default
    /// (`SCHED_RR 1`, where the kernel allows it: root, or an RLIMIT_RTPRIO), with the workers
    /// below. With `pairs`, each direction's flick is played again with the loop an ordinary
    /// thread (as before issue 36 part 7's second step), interleaved with it (real time,
    /// ordinary, real time, …): the verdict is the first flick's, as without.
    static func reportFlick(name: String, pairs: Int = 0, open: () throws -> Content) {
        let priority = Configuration().realtimePriority
        let refusal = LoopPriority.setCallingThread(to: priority)
        LoopPriority.setCallingThread(to: 0)
        print("the loop: " + (refusal.map { "an ordinary thread, SCHED_RR \(priority) refused (\($0.errnoDescription)): run as root for the daemon's figure" }
                                ?? "SCHED_RR \(priority), as the daemon's (display.realtime_priority), workers below it"))
        for (label, direction) in [("down", (0.0, 1.0)), ("diagonal", (1.0, 0.6))] {
            do {
                func play(realtime: Bool) throws -> Flick {
                    if realtime { LoopPriority.setCallingThread(to: priority) }
                    defer { LoopPriority.setCallingThread(to: 0) }
                    let content = try open()
                    defer { content.tiles?.close() }
                    let size = content.size
                    // Placed so the whole flick stays on the content (past its edge it would bounce).
                    let travel = 8000 / 1000 / -log(0.998)
                    let norm = (direction.0 * direction.0 + direction.1 * direction.1).squareRoot()
                    func from(_ extent: Double, _ view: Double, _ d: Double) -> Double {
                        max(0, ((extent - view - travel * d / norm) / 2).rounded())
                    }
                    let start = Point(x: from(size.width, Double(screen.width), direction.0),
                                      y: from(size.height, Double(screen.height), direction.1))
                    return try flick(content, from: start, speed: 8000, direction: direction)
                }
                let f = try play(realtime: true)
                let work = Stats(samples: f.work)
                print("flick \(label) at 8000 px/s over \(name), from rest with its band drawn: \(fmt(f.distance, 0)) px in \(f.frames) frames; "
                      + "\(f.scannedOut) scanned out from \(f.bandFills) bands (\(f.drawnIntoBand) of them composed into a band's "
                      + "free buffer first); \(f.fromCoarser) with a part "
                      + "from a coarser level; \(f.withHoles) with background where content exists")
                print("  wake → flip queued: p50 \(fmt(work.median)) µs, p99 \(fmt(work.p99)) µs (max \(fmt(work.max)))")
                print("  \(f.slow.summary(bound: 1000))")
                Verdicts.check("flick \(label): no frame shows background where content exists", f.withHoles == 0, "\(f.withHoles) frames")
                Verdicts.check("flick \(label): wake → flip ≤ 1 ms (p99)", work.p99 <= 1000, "\(fmt(work.p99)) µs")
                guard pairs > 0 else { continue }
                var raised = [f], ordinary: [Flick] = []
                for pair in 0..<pairs {
                    ordinary.append(try play(realtime: false))
                    if pair + 1 < pairs { raised.append(try play(realtime: true)) }
                }
                func line(_ flicks: [Flick]) -> String {
                    flicks.map { "\(fmt(Stats(samples: $0.work).p99, 0)) (\($0.slow.frames.count))" }.joined(separator: ", ")
                }
                let ratio = Stats(samples: zip(ordinary, raised).map { Stats(samples: $0.work).p99 / Stats(samples: $1.work).p99 }).median
                print("  paired, interleaved flick by flick: wake → flip p99 µs (frames over 1 ms), the loop at SCHED_RR \(priority): "
                      + "\(line(raised)); an ordinary thread: \(line(ordinary)); median of paired ratios ordinary/real time ×\(fmt(ratio, 2)) "
                      + "(workers below the loop in both: SCHED_BATCH, band nice +\(WorkerPriority.Level.band.rawValue), decoders +\(WorkerPriority.Level.ahead.rawValue))")
            } catch {
                print("flickd-bench: flick: \(error)")
            }
        }
    }
}
