import FlickControl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 11 (issue 23): content providers in the real daemon on the headless 1920×1080
/// display. `BenchProvider` (a thread of this process) draws every requested tile at once;
/// figures: request → tile presented as the daemon measures it (`status.provider`), and the frame
/// rate of a flick over the provider's content at zoom 1 and at 0.3, the two interleaved flick by
/// flick. Then hostile and broken providers (`ProviderHostileBench`).
enum ProviderBench {
    static let title = "11. content providers: request → tile presented, flicks over provider content at zoom 1 and 0.3, "
        + "hostile providers (headless 1920×1080)"

    /// A flick is an animated `set-offset` on the ease-out curve (it starts at speed and slows to
    /// rest, as momentum does): 2 s from 8000 px/s (ease-out starts at 3 × distance ÷ time).
    static let flickSeconds = 2.0, flickSpeed = 8000.0
    static var flickDistance: Double { (flickSpeed * flickSeconds / 3).rounded() }
    /// The display's refresh rate (the headless output's).
    static let refresh = 60.0

    /// The daemon's config: zooming out to 0.3 allowed; every animated scroll a flick.
    static let config = """
        [zoom]
        minimum_scale = 0.1
        [scroll]
        animation_duration = \(flickSeconds)
        animation_curve = "ease-out"
        animation_speed = 0
        """

    /// What one flick showed.
    struct Flick {
        var zoom: Double
        /// Frames per second while the view moved, and over how long.
        var rate = Double.nan, seconds = 0.0
        var frames = 0
        /// Frames drawn with some part from a coarser level (a tile not drawn yet).
        var fromCoarser = 0
        /// Tiles the provider drew, requests cancelled and given up during the flick.
        var drawn = 0, cancelled = 0, timeouts = 0
        /// Screen pixels travelled.
        var travelled = 0.0
        /// The daemon's event-loop thread over the flick: on a CPU and waiting for one, % of the time.
        var loopCPU = Double.nan, loopWaiting = Double.nan
        /// Tiles the provider drew per level (the bench's count), and of them, tiles it had drawn
        /// before (asked again).
        var perLevel: [Int: Int] = [:]
        var repeats = 0
    }

    static func report(flickd: String?, flicks: Int, jumps: Int, pairs: Int) {
        guard let flickd else {
            Verdicts.skip("content providers", "no flickd binary")
            return
        }
        do {
            try measure(flickd: flickd, flicks: flicks, jumps: jumps)
        } catch {
            print("flickd-bench: providers: \(error)")
        }
        do {
            try ProviderHostileBench.run(flickd: flickd, pairs: pairs)
        } catch {
            print("flickd-bench: hostile providers: \(error)")
        }
    }

    /// A daemon showing the instant provider's content, and its client.
    final class Rig {
        let daemon: DaemonProcess
        let provider: BenchProvider
        let poller: StatusPoller
        let declaration = BenchProvider.Declaration()
        /// Where each zoom's next flick starts (screen pixels down the zoomed content): every
        /// flick over tiles not drawn before.
        var cursor: [Double: Double] = [1: 0, 0.3: 0]

        init(flickd: String, tag: String, extra: String = "") throws {
            daemon = try DaemonProcess(binary: flickd, directory: DaemonBench.directory, tag: tag, content: nil,
                                       config: config + "\n" + extra)
            _ = try daemon.waitReady(timeout: 30)
            provider = try BenchProvider(path: daemon.socketPath, declaration: declaration)
            poller = StatusPoller(path: daemon.socketPath)
            guard poller.waitFor(seconds: 5, { $0.content == "provider \(self.declaration.name)" }) != nil else {
                throw RigError("the provider's content was not shown (see \(daemon.logPath))")
            }
        }

        func stop() {
            provider.stop()
            daemon.stop()
        }

        /// The next flick at `zoom`.
        func flick(zoom: Double) -> Flick? {
            let width = Double(declaration.width) * zoom
            let start = (x: ((width - 1920) / 2).rounded(), y: cursor[zoom]!)
            cursor[zoom]! += flickDistance + 1080 + 256
            return ProviderBench.flick(poller, pid: daemon.pid, zoom: zoom, from: start, provider: provider)
        }
    }

    /// Latency and flicks over the instant provider's content.
    static func measure(flickd: String, flicks: Int, jumps: Int) throws {
        let rig = try Rig(flickd: flickd, tag: "provider")
        defer { rig.stop() }
        let (declaration, provider, poller) = (rig.declaration, rig.provider, rig.poller)
        print("provider: \(declaration.width)×\(declaration.height) content pixels, \(provider.levels) levels of "
              + "\(declaration.tileSize) px tiles, \(declaration.slots) slots; each tile filled with one colour and answered at once")

        // Request → presented: jumps to fresh places at zoom 1, each shown from its own tiles
        // (nothing pending) before the next.
        var settleTimes: [Double] = []
        var unsettled = 0
        for i in 0..<jumps {
            let x = Double((i * 977) % (declaration.width - 1920)), y = Double(120_000 + i * 1700)
            let t0 = monotonicNanoseconds()
            if poller.jump([ControlRequest(cmd: "set-offset", x: x, y: y, animated: false)]) {
                settleTimes.append(Double(monotonicNanoseconds() - t0) / 1e6)
            } else {
                unsettled += 1
            }
        }
        usleep(100_000)
        let afterJumps = poller.status()?.provider
        let service = provider.serviceMicroseconds
        if let p = afterJumps, let p50 = p.presentedP50Ms, let p99 = p.presentedP99Ms {
            print("\(jumps) jumps to fresh places at zoom 1, each settled (nothing pending) before the next: "
                  + "\(p.drawn ?? 0) tiles drawn, \(p.timeouts ?? 0) timed out")
            print("  request → tile presented (the daemon's status, last ≤ 1024 tiles): p50 \(fmt(p50)) ms, p99 \(fmt(p99)) ms "
                  + "(one refresh period: \(fmt(1000 / refresh)) ms); request → answer mean of the last 64: \(fmt(p.latencyMs ?? .nan, 2)) ms")
            print("  the provider's own time per tile (line read → answer written): p50 \(fmt(service.median)) µs, "
                  + "p99 \(fmt(service.p99)) µs (n \(service.samples.count))")
            print("  jump → every tile of the view and its ring drawn: \(Stats(samples: settleTimes).summary("ms"))"
                  + (unsettled > 0 ? "; \(unsettled) jumps never settled within 5 s" : ""))
            Verdicts.check("provider: every jump's tiles drawn (no request lost or never re-sent)", unsettled == 0 && (p.timeouts ?? 0) == 0,
                           "\(jumps - unsettled) of \(jumps) settled, \(p.timeouts ?? 0) timed out")
        } else {
            print("  no request → presented figure in status (see \(rig.daemon.logPath))")
        }

        // Flicks, zoom 1 and 0.3 in turn, each over content not drawn yet, from rest with the
        // start's tiles drawn. In the full run a second daemon with content.cache_mb = 256 flicks
        // at 0.3 in the same rounds (information: at 0.3 the view's tiles of the level of scale ½
        // and their copies resampled to 0.3 outgrow the default cache).
        let roomy = flicks > 1 ? try Rig(flickd: flickd, tag: "provider-256", extra: "[content]\ncache_mb = 256\n") : nil
        defer { roomy?.stop() }
        var one: [Flick] = [], reduced: [Flick] = [], roomier: [Flick] = []
        for _ in 0..<flicks {
            if let f = rig.flick(zoom: 1) { one.append(f) }
            if let f = rig.flick(zoom: 0.3) { reduced.append(f) }
            if let roomy, let f = roomy.flick(zoom: 0.3) { roomier.append(f) }
        }
        let flicksPresented = poller.status()?.provider
        var runsByLabel = [("zoom 1", one), ("zoom 0.3", reduced)]
        if roomy != nil { runsByLabel.append(("zoom 0.3, content.cache_mb = 256 (information)", roomier)) }
        for (label, runs) in runsByLabel {
            let rates = Stats(samples: runs.map(\.rate))
            let coarser = runs.map(\.fromCoarser), frames = runs.map(\.frames)
            print("flick at \(label): \(fmt(flickDistance, 0)) px in \(fmt(flickSeconds, 0)) s from \(fmt(flickSpeed, 0)) px/s (ease-out), "
                  + "\(runs.count) flicks over tiles not drawn before")
            print("  frames/s while moving: \(rates.summary("frames/s"))")
            print("  per flick: \(frames.map(String.init).joined(separator: ", ")) frames; with a part from a coarser level "
                  + "(a tile not drawn yet): \(coarser.map(String.init).joined(separator: ", ")); tiles drawn "
                  + "\(runs.map(\.drawn).map(String.init).joined(separator: ", ")), cancelled \(runs.map(\.cancelled).reduce(0, +)), "
                  + "timed out \(runs.map(\.timeouts).reduce(0, +))")
            let levels = runs.last.map { $0.perLevel.sorted { $0.key > $1.key }.map { "level \($0.key): \($0.value)" }.joined(separator: ", ") } ?? ""
            print("  tiles drawn per level in the last flick (level \(provider.levels - 1) is scale 1): \(levels); "
                  + "asked again (drawn before, evicted) per flick: \(runs.map(\.repeats).map(String.init).joined(separator: ", "))")
            print("  the daemon's event-loop thread during the flicks: on a CPU \(fmt(Stats(samples: runs.map(\.loopCPU)).median)) %, "
                  + "runnable but waiting for a CPU \(fmt(Stats(samples: runs.map(\.loopWaiting)).median)) % of the time (medians)")
            if label.hasPrefix("zoom 0.3,") {
                let rate = Stats(samples: zip(roomier, reduced).map { $0.rate / $1.rate })
                let cpu = Stats(samples: zip(roomier, reduced).map { $0.loopCPU / $1.loopCPU })
                print("  paired with the default cache's flicks at 0.3 (round by round): frames/s ×\(fmt(rate.median, 3)), "
                      + "loop thread's CPU ×\(fmt(cpu.median, 2)) (medians, n \(rate.samples.count))")
            } else {
                Verdicts.check("flick over provider content at \(label) at the display's rate (≥ 0.95 × \(fmt(refresh, 0)) frames/s, median)",
                               !runs.isEmpty && rates.median >= 0.95 * refresh, "\(fmt(rates.median)) frames/s (n \(runs.count))")
            }
        }
        let paired = Stats(samples: zip(reduced, one).map { $0.rate / $1.rate })
        print("paired ratios zoom 0.3 ÷ zoom 1 (flick by flick): median ×\(fmt(paired.median, 3)) "
              + "(×\(fmt(paired.min, 3))–\(fmt(paired.max, 3)), n \(paired.samples.count))")
        if let p = flicksPresented, let p50 = p.presentedP50Ms, let p99 = p.presentedP99Ms {
            print("request → tile presented over the flicks' tiles (last ≤ 1024): p50 \(fmt(p50)) ms, p99 \(fmt(p99)) ms")
        }
        // At rest after the flicks (zoom 0.3): nothing drawn, nothing asked (a cache too small
        // for the ring once made the daemon ask for tiles and draw frames at rest for ever).
        usleep(1_000_000)   // the scroll indicators fade out after a motion
        let drawnBefore = provider.drawn, timesBefore = SchedTimes(pid: rig.daemon.pid)
        let framesBefore = poller.status()?.frames ?? 0
        usleep(1_000_000)
        let framesAtRest = (poller.status()?.frames ?? 0) - framesBefore, drawnAtRest = provider.drawn - drawnBefore
        let restCPU = SchedTimes(pid: rig.daemon.pid).shares(since: timesBefore).allCPU
        print("at rest zoomed to 0.3, 1 s after the flicks, for 1 s: \(framesAtRest) frames, \(drawnAtRest) tiles asked, daemon CPU \(fmt(restCPU)) %")
        Verdicts.check("provider: at rest zoomed out, no frame and no tile asked", framesAtRest <= 1 && drawnAtRest == 0,
                       "\(framesAtRest) frames, \(drawnAtRest) tiles in 1 s")
        let counters = rig.daemon.counters
        print("daemon RSS after the flicks: \(fmt(Double(counters.rss) / 1024)) MiB (content.cache_mb 64 holds the provider's tiles)")
    }

    /// One flick at `zoom` from `start` (screen pixels), down by `flickDistance`, after the view
    /// rests there with its tiles drawn.
    static func flick(_ poller: StatusPoller, pid: pid_t, zoom: Double, from start: (x: Double, y: Double),
                      provider: BenchProvider) -> Flick? {
        _ = poller.jump([ControlRequest(cmd: "set-zoom", scale: zoom, animated: false),
                         ControlRequest(cmd: "set-offset", x: start.x, y: start.y, animated: false)])
        usleep(100_000)
        let levels = provider.drawnPerLevel, repeats = provider.repeats
        let timesBefore = SchedTimes(pid: pid)
        guard let before = poller.status(),
              poller.call(ControlRequest(cmd: "set-offset", x: start.x, y: start.y + flickDistance, animated: true))?.ok == true else {
            return nil
        }
        var samples: [StatusPoller.Sample] = []
        let end = monotonicNanoseconds() + Int64((flickSeconds + 3) * 1e9)
        while monotonicNanoseconds() < end {
            guard let s = poller.sample() else { continue }
            samples.append(s)
            if !s.status.scrolling { break }
            usleep(20_000)
        }
        guard let after = samples.last?.status else { return nil }
        var f = Flick(zoom: zoom)
        let shares = SchedTimes(pid: pid).shares(since: timesBefore)
        (f.loopCPU, f.loopWaiting) = (shares.loopCPU, shares.loopWaiting)
        f.perLevel = provider.drawnPerLevel.merging(levels) { $0 - $1 }.filter { $0.value > 0 }
        f.repeats = provider.repeats - repeats
        (f.rate, f.seconds, f.frames) = StatusPoller.movingRate(samples)
        f.fromCoarser = (after.tiles?.framesFromCoarser ?? 0) - (before.tiles?.framesFromCoarser ?? 0)
        f.drawn = (after.provider?.drawn ?? 0) - (before.provider?.drawn ?? 0)
        f.cancelled = (after.provider?.cancelled ?? 0) - (before.provider?.cancelled ?? 0)
        f.timeouts = (after.provider?.timeouts ?? 0) - (before.provider?.timeouts ?? 0)
        f.travelled = after.offset[1] - before.offset[1]
        return f
    }
}

/// A well-formed control client asking the daemon things (2 s receive timeout, so a silent
/// daemon is a figure, not a hang); it connects again after a failed call.
final class StatusPoller {
    struct Sample {
        /// `CLOCK_MONOTONIC` when the answer came, ns.
        var at: Int64
        var status: ControlStatus
    }

    let path: String
    private var client: ControlClient?
    private var nextID = 1000
    /// Calls made and calls answered.
    private(set) var asked = 0, answered = 0

    init(path: String) {
        self.path = path
        client = Self.connect(path)
    }

    /// Sends `request` (with an id of its own) and returns the reply, or nil.
    func call(_ request: ControlRequest) -> ControlMessage? {
        var request = request
        nextID += 1
        request.id = nextID
        asked += 1
        if client == nil { client = Self.connect(path) }
        guard let reply = try? client?.call(request), reply.id == nextID else {
            client = Self.connect(path)
            return nil
        }
        answered += 1
        return reply
    }

    func status() -> ControlStatus? { call(ControlRequest(cmd: "status"))?.status }

    func sample() -> Sample? {
        guard let status = status() else { return nil }
        return Sample(at: monotonicNanoseconds(), status: status)
    }

    /// Asks `status` every 10 ms until `condition` holds (its status), or `seconds` pass (nil).
    func waitFor(seconds: Double, _ condition: (ControlStatus) -> Bool) -> ControlStatus? {
        let end = monotonicNanoseconds() + Int64(seconds * 1e9)
        repeat {
            if let s = status(), condition(s) { return s }
            usleep(10_000)
        } while monotonicNanoseconds() < end
        return nil
    }

    /// Waits until a frame after `frames` was drawn and no tile is pending (the provider's
    /// requests all answered, none wanted); `frames`: the count before the view was moved (until
    /// the frame after a move is drawn, nothing is wanted yet).
    func settle(seconds: Double, after frames: Int?) -> Bool {
        waitFor(seconds: seconds) {
            ($0.frames ?? 0) > (frames ?? -1) && ($0.tiles?.pending ?? 0) == 0 && ($0.provider?.pending ?? 0) == 0
        } != nil
    }

    /// Moves the view (`commands`, not animated) and waits until it is drawn from its own tiles.
    func jump(_ commands: [ControlRequest], seconds: Double = 5) -> Bool {
        let frames = status()?.frames
        for command in commands { _ = call(command) }
        return settle(seconds: seconds, after: frames)
    }

    /// Frames per second over the consecutive samples that both show the view scrolling the same
    /// content: (rate, seconds covered, frames).
    static func movingRate(_ samples: [Sample]) -> (Double, Double, Int) {
        var frames = 0, ns: Int64 = 0
        for (a, b) in zip(samples, samples.dropFirst())
        where a.status.scrolling && b.status.scrolling && a.status.content == b.status.content {
            guard let fa = a.status.frames, let fb = b.status.frames else { continue }
            frames += fb - fa
            ns += b.at - a.at
        }
        guard ns > 0 else { return (.nan, 0, 0) }
        return (Double(frames) / (Double(ns) / 1e9), Double(ns) / 1e9, frames)
    }

    private static func connect(_ path: String) -> ControlClient? {
        guard let client = try? ControlClient(path: path) else { return nil }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return client
    }
}

/// Where a process's time went, from `/proc/PID/task/*/schedstat`: time on a CPU and time
/// runnable but waiting for one (a neighbour's load shows there, the daemon's own work in the
/// first), ns; for its main thread (the event loop) and for all its threads.
struct SchedTimes {
    var loopCPU: Int64 = 0, loopWaiting: Int64 = 0
    var allCPU: Int64 = 0, allWaiting: Int64 = 0
    /// `CLOCK_MONOTONIC` when read.
    var at: Int64 = 0

    init() {}

    init(pid: pid_t) {
        at = monotonicNanoseconds()
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let times = SchedStat.read("/proc/\(pid)/task/\(task)/schedstat") else { continue }
            allCPU += times.cpu
            allWaiting += times.waiting
            if task == "\(pid)" {
                loopCPU = times.cpu
                loopWaiting = times.waiting
            }
        }
    }

    /// The share of the wall time between `earlier` and this reading each figure took, %.
    func shares(since earlier: SchedTimes) -> (loopCPU: Double, loopWaiting: Double, allCPU: Double, allWaiting: Double) {
        let wall = Double(max(1, at - earlier.at)) / 100
        return (Double(loopCPU - earlier.loopCPU) / wall, Double(loopWaiting - earlier.loopWaiting) / wall,
                Double(allCPU - earlier.allCPU) / wall, Double(allWaiting - earlier.allWaiting) / wall)
    }
}
