import FlickCore
import FlickDaemon
import FlickDisplay
import Glibc

/// The zone of the soak's kiosk: UTC, so the hours of the schedule are the soak's own.
struct UTCZone: UTCOffsetRule {
    func utcOffset(atUTC utc: Int64) -> Int64 { 0 }
}

/// A kiosk as the daemon assembles it, on the virtual clock: the pipeline `PipelineBuilder`
/// builds on a small headless panel, the content host showing a file it watches (pyramids
/// built off the loop into a cache folder), the power machine with its hours, a provider app,
/// and the loop's order of things (each part dispatched when its deadline comes). Only the
/// pyramid builds and the inotify watch run on real time: the soak waits for their
/// descriptors, the way the loop would, at the virtual instant they are due.
final class Kiosk: PipelineSink {
    static let panel = PixelSize(width: 128, height: 80)
    /// The monotonic instant of the first midnight, and that midnight on the wall clock
    /// (Monday 2 March 2026, 00:00 UTC).
    static let start = Instant.seconds(1000)
    static let firstMidnightUTC: Int64 = 1_772_409_600
    static let onHours = 7..<21

    let folder: String
    var contentPath: String { folder + "/content.png" }
    var cacheDirectory: String { folder + "/cache" }
    private(set) var now = Kiosk.start
    let touches = ScriptedTouches()
    let journal = Journal()
    /// The daemon's gesture entries at `log.gestures`'s level, counted by `journal`.
    private(set) lazy var gestureJournal = GestureJournal(level: configuration.logGestures) { [journal] in journal.gestureLogger }
    private(set) var configuration: Configuration
    private(set) var host: ContentHost!
    private(set) var pipeline: Pipeline!
    private(set) var panelOutput: HeadlessOutput?
    let app = ProviderApp()
    private var images: [[UInt8]] = []
    var grammar = DelegateGrammar()
    /// The last outputs, said with a grammar problem: what led to it (kept as values, written
    /// out only then: the month has some 70 million of them).
    private var recentOutputs: [GestureOutput] = []
    /// Broken invariants, each once with its time.
    private(set) var problems: [String] = []
    private(set) var frames = 0
    private(set) var replacements = 0, reloads = 0, unplugs = 0, wakes = 0, pyramidsWaited = 0
    private(set) var lastTouch = Kiosk.start

    init(folder: String) throws {
        self.folder = folder
        var c = Configuration()
        c.contentPath = folder + "/content.png"
        c.cacheDirectory = folder + "/cache"
        // A million pixels decoded whole; the larger image of the three is shown from its pyramid.
        c.pixelBudget = 1 << 20
        c.cacheMegabytes = 8
        c.power.offAfterSeconds = 120
        c.power.onHours = [OnHoursWindow("07:00-21:00")!]
        c.idleResetSeconds = 600
        configuration = c
        // Three images in turn: two decoded whole, one over the budget (a pyramid).
        for size in [PixelSize(width: 600, height: 900), PixelSize(width: 1400, height: 1000), PixelSize(width: 700, height: 1100)] {
            guard let image = TestPattern.make(size) else { throw SoakFailure("no test pattern of \(size)") }
            images.append(try PNGCodec.encode(image))
        }
        try write(images[0])
        host = ContentHost(configuration: c, logger: journal.logger, tileWorkers: 0, clock: { [unowned self] in now })
        app.clock = { [unowned self] in now }
        let first = try host.start(view: Self.panel)
        guard let output = HeadlessOutput(size: Self.panel) else { throw SoakFailure("no headless output") }
        panelOutput = output
        var builder = PipelineBuilder(configuration: c)
        builder.powerEnvironment = PowerEnvironment(
            backlight: nil, zone: UTCZone(),
            anchor: WallClockAnchor(instant: Self.start, utcNanoseconds: Self.firstMidnightUTC * 1_000_000_000))
        pipeline = try builder.build(output: output, content: first.content, input: .source(touches, pixelsPerMillimetre: nil),
                                     at: now, restore: first.restore)
        pipeline.sink = self
        host.attach(pipeline)
        pipeline.start()
    }

    // MARK: The loop

    /// Runs every part whose deadline comes up to `target`, in time order, then stands at `target`.
    func run(until target: Instant) {
        var same = 0, last = now
        while let next = [pipeline.nextDeadline, host.nextDeadline, app.nextDeadline, gestureJournal.nextDeadline].compactMap({ $0 }).min(),
              next <= target {
            now = max(now, next)
            if now == last { same += 1 } else { same = 0; last = now }
            if same > 100_000 {
                problem("the loop is stuck at \(now): a deadline that dispatching does not move")
                break
            }
            let answered = app.answer(at: now, host: host)
            if let due = host.nextDeadline, due <= now {
                host.dispatch(now: now)
                awaitCacheTrim()
            }
            if let due = gestureJournal.nextDeadline, due <= now { gestureJournal.dispatch(now: now) }
            if answered || (pipeline.nextDeadline.map { $0 <= now } ?? false) { pipeline.dispatch(now: now) }
        }
        now = max(now, target)
    }

    /// Waits (real time) until one of the content host's descriptors is readable, then
    /// dispatches it at the virtual now: what the loop does when the watch or a build speaks.
    private func awaitContent(milliseconds: Int32) -> Bool {
        var fds = host.fileDescriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        guard !fds.isEmpty, poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return false }
        host.dispatch(now: now)
        return true
    }

    // MARK: The day's events

    /// Visitors from `from` to `to`: gestures one after the other until the next would start
    /// after `to`, or `quota` are done. Returns how many.
    @discardableResult
    func visit(_ visitors: inout Visitors, from: Instant, to: Instant, quota: Int) -> Int {
        run(until: from)
        // Never before now: a touch is not delivered in the past (an event ran late into the segment).
        var t = max(from, now), done = 0
        while t < to && done < quota {
            let gesture = visitors.gesture(at: t)
            touches.frames += gesture.frames
            lastTouch = gesture.frames.last!.time
            t = gesture.next
            done += 1
            // A few gestures at a time: the script stays short and the loop in time order.
            if done % 16 == 0 { run(until: t) }
        }
        run(until: t)
        return done
    }

    /// A touch on a panel that is off: it wakes the panel and is swallowed.
    func wake(_ visitors: inout Visitors, at time: Instant) {
        run(until: time)
        let t = max(time, now)
        let frames = visitors.wakeTouch(at: t)
        touches.frames += frames
        lastTouch = frames.last!.time
        wakes += 1
        run(until: frames.last!.time + .milliseconds(400))
    }

    /// The content file replaced as an integrator does it (written beside, renamed over), the
    /// next of the three images; waits for the watch to see it, for it to settle, and for its
    /// pyramid when it needs one.
    func replaceContent() throws {
        replacements += 1
        try write(images[replacements % images.count])
        _ = awaitContent(milliseconds: 2000)
        run(until: now + configuration.watchSettle + .milliseconds(20))
        try awaitPyramid()
    }

    /// Waits (real time) for a pyramid build under way to end and shows its result at the
    /// virtual now, so the month does not depend on how fast the machine builds.
    func awaitPyramid() throws {
        var waited = 0
        while host.pyramidBuilding != nil {
            pyramidsWaited += 1
            if !awaitContent(milliseconds: 100) { waited += 100 }
            if waited > 60_000 { throw SoakFailure("a pyramid build of \(contentPath) took over a minute") }
        }
        run(until: now + .milliseconds(100))
    }

    /// Waits (real time) for a trim of the pyramid cache the host just started to end and takes
    /// it at the virtual now, as the loop would when its thread's pipe turns readable: the month
    /// does not depend on how fast the machine removes files.
    func awaitCacheTrim() {
        var waited = 0
        while host.isTrimmingCache && waited < 60_000 {
            if !awaitContent(milliseconds: 100) { waited += 100 }
        }
        if host.isTrimmingCache { problem("a trim of the pyramid cache took over a minute") }
    }

    private func write(_ bytes: [UInt8]) throws {
        let temporary = folder + "/.content.png.new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SoakFailure("\(temporary): errno \(errno)") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, contentPath) == 0 else { throw SoakFailure("\(contentPath) not replaced") }
    }

    /// A reload with a changed config (`PipelineBuilder.apply`, `ContentHost.apply`), as
    /// SIGHUP or `reload` does: the attract mode's delay and the tile cache change each day.
    func reload(day: Int) throws {
        var next = configuration
        next.idleResetSeconds = day.isMultiple(of: 2) ? 600 : 660
        next.cacheMegabytes = day.isMultiple(of: 2) ? 8 : 9
        try PipelineBuilder.apply(next, previous: configuration, to: pipeline, at: now)
        host.apply(next)
        gestureJournal.apply(next, at: now)
        configuration = next
        reloads += 1
        run(until: now + .milliseconds(100))
        try awaitPyramid()
    }

    /// The monitor unplugged: the pipeline on no panel, as the hotplug handler attaches one.
    func unplug() throws {
        guard let output = panelOutput else { return }
        try PipelineBuilder.attach(DisconnectedOutput(size: output.size, refreshPeriod: output.refreshPeriod),
                                   configuration: configuration, to: pipeline, note: "display: none (monitor disconnected)", at: now)
        output.close()
        panelOutput = nil
        unplugs += 1
        run(until: now + .milliseconds(100))
    }

    /// The monitor back: a new panel attached.
    func plug() throws {
        guard panelOutput == nil, let output = HeadlessOutput(size: Self.panel) else { return }
        try PipelineBuilder.attach(output, configuration: configuration, to: pipeline,
                                   note: "display: headless \(Self.panel) (monitor connected)", at: now)
        panelOutput = output
        run(until: now + .milliseconds(100))
    }

    func connectProvider() throws {
        try app.connect(to: host)
        run(until: now + .milliseconds(100))
    }

    func killProvider() throws {
        app.die(in: host)
        // Past the grace after which the configured content shows again (its pyramid built
        // again if it is the big image: the provider's content replaced it).
        run(until: now + .seconds(double: configuration.providerGraceSeconds) + .seconds(1))
        try awaitPyramid()
    }

    func problem(_ text: String) {
        if problems.count < 200 { problems.append("\(Self.clock(now)): \(text)") }
    }

    /// "day 3 14:05:09" for an instant.
    static func clock(_ t: Instant) -> String {
        let s = (t - start).inSeconds
        let day = Int(s / 86400), rest = Int(s) % 86400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "day \(day + 1) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
    }

    // MARK: PipelineSink

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        for output in outputs {
            gestureJournal.published(output, view: view)
            let wrong: String? = switch output.kind {
            case let .scroll(event): output.state.map { grammar.accept(event, at: output.time, state: $0) } ?? "\(event) without a state"
            case let .state(state): grammar.acceptState(state, at: output.time)
            case .content, .gesture: grammar.acceptOther(at: output.time)
            case .transition, .diagnostic: nil
            }
            if recentOutputs.count == 24 { recentOutputs.removeFirst() }
            recentOutputs.append(output)
            if let wrong {
                let before = recentOutputs.map { "\(Self.clock($0.time)) +\($0.time.nanoseconds % 1_000_000_000 / 1_000_000) ms: \($0.kind)" }
                problem("delegate grammar: \(wrong); the outputs up to it, oldest first: \(before.joined(separator: " | ")); the view after them: \(view)")
            }
        }
    }

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) { frames += 1 }

    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
        journal.notice()
        if case .display = notice { problem("display fault: \(notice)") }
    }
}

extension Kiosk {
    func clearProblems() { problems.removeAll() }
}
