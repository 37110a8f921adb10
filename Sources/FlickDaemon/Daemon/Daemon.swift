import CMalloc
import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FoundationEssentials
import Glibc
import Logging

/// The running service (docs/ARCHITECTURE.md): the sd-event loop around the pipeline, the
/// control socket, the journal and the saved state.
///
/// `init` opens the display, content and input, builds the pipeline (`PipelineBuilder`, as a
/// replay does) and composes the first frame; `run` blocks in sd-event until SIGTERM or SIGINT,
/// then saves the state, gives the display back and returns the exit code. SIGHUP
/// (`systemctl reload`) re-reads the config file: a good file applies at once, a bad one is
/// logged with its line and key and the config in force stays.
///
/// The daemon is the pipeline's sink — what the pipeline emits goes to the journal, the
/// control socket's subscribers and the state store — and the control commands' context.
public final class Daemon: PipelineSink, CommandContext {
    /// What the command line decided; the rest comes from the config file.
    public struct Options: Sendable {
        public var configPath: String
        public var configPathExplicit: Bool
        public var input: InputEndpoint?
        public var display: DisplayEndpoint?
        public var content: String?
        public var snapshotDirectory: String?

        /// Creates options.
        public init(configPath: String, configPathExplicit: Bool, input: InputEndpoint? = nil,
                    display: DisplayEndpoint? = nil, content: String? = nil, snapshotDirectory: String? = nil) {
            self.configPath = configPath
            self.configPathExplicit = configPathExplicit
            self.input = input
            self.display = display
            self.content = content
            self.snapshotDirectory = snapshotDirectory
        }
    }

    private let options: Options
    private var configuration: Configuration
    private var logger: Logger
    private let loop: EventLoop
    private let notifier = Notifier()
    private let pipeline: Pipeline
    private var runner: LiveRunner!
    private var server: ControlServer?
    private var commands: CommandHandler!
    /// The app drawing the content, when one does.
    private var providers: ProviderHost!
    private var signals: [SignalSource] = []
    private var stateTimer: TimerSource?
    private let stateStore: StateStore
    /// The display's one line, for logs and `status`.
    private let display: String
    /// The content's name (its path, or "test pattern").
    public private(set) var contentName: String?
    /// The image whose pyramid is being built, for `status`.
    public var pyramidBuilding: ControlPyramidStatus? {
        building.map { ControlPyramidStatus(image: $0.image, percent: $0.percent) }
    }
    /// The pyramid being built off the loop, its fd's watch, and the next one asked for.
    private var building: PyramidBuild?
    private var buildWatch: IOSource?
    private var nextPyramid: (image: String, cacheDirectory: String)?
    private var contentIdentity: String
    private var ready = false
    private var stateDirty = false
    /// The state could not be saved and it was said: said again only after a save succeeds.
    private var stateWarned = false

    /// Opens the display, content, input and control socket, restores the saved state and
    /// composes the first frame.
    /// - Throws: what could not be opened and why (`DisplayOpener.Failure`, `EndpointError`,
    ///   `ContentError`, `EvemuError`, `SystemError`).
    public init(options: Options, configuration: Configuration, configFromFile: Bool) throws {
        Self.tuneMalloc()
        let configuration = configuration.placed(in: ProcessInfo.processInfo.environment)
        self.options = options
        self.configuration = configuration
        let backend = LogBackend.choose(environment: ProcessInfo.processInfo.environment)
        logger = backend.logger(level: Logger.Level(rawValue: configuration.logLevel) ?? .info)
        if !configFromFile { logger.notice("no config at \(options.configPath): using the built-in defaults") }
        loop = try EventLoop()

        // Display: the command line's choice, else the config's.
        var opener = DisplayOpener(configuration: configuration)
        if let dir = options.snapshotDirectory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            opener.capture = .everyFrame(directory: dir)
        }
        let endpoint = try options.display ?? DisplayEndpoint(parsing: configuration.displayBackend)
        let opened = try opener.open(endpoint)
        for reason in opened.passedOver { logger.notice("display: passed over \(reason)") }
        if opened.isFallback {
            display = "\(opened.description) (no panel: neither DRM nor fbdev opened; display.fallback = headless)"
            logger.warning("display: \(display)")
        } else {
            display = opened.description
            logger.info("display: \(display)")
        }
        let logical = configuration.panelRotation.logicalSize(panel: opened.output.size)

        // Content: a bad file is an error at start (nothing to keep showing yet) only if it was
        // asked for on the command line; from the config, the test pattern stands in.
        let path = options.content ?? configuration.contentPath
        let loaded: ContentLoader.Loaded
        var pyramid: (image: String, cacheDirectory: String)?
        do {
            switch try ContentLoader.prepare(path: path, view: logical, configuration: configuration) {
            case .ready(let ready):
                loaded = ready
            case .pyramid(let image, let cacheDirectory):
                // Built off the loop (minutes for a huge map); the test pattern meanwhile.
                pyramid = (image, cacheDirectory)
                loaded = try ContentLoader.load(path: "", view: logical, configuration: configuration)
            }
        } catch where options.content == nil {
            logger.report(.error, "content: ", error)
            logger.notice("content: showing the test pattern")
            loaded = try ContentLoader.load(path: "", view: logical, configuration: configuration)
        }
        contentName = loaded.name
        contentIdentity = Self.identity(of: loaded.name)
        logger.info("content: \(loaded.name), \(loaded.content.summary)")

        // Input.
        let input: PipelineBuilder.Input
        switch try options.input ?? InputEndpoint(parsing: configuration.inputDevice) {
        case .recording(let file):
            input = .recording(try EvemuRecording.load(path: file), start: loop.now + .milliseconds(500))
        case let endpoint:
            let log = logger
            input = .devices(TouchInputOptions(configuration: configuration, endpoint: endpoint, outputSize: logical.size),
                             log: { log.info("\($0)") })
        }

        // State: restored only for the same content.
        stateStore = StateStore(path: configuration.statePath)
        let (saved, warning) = stateStore.load()
        if let warning { logger.warning("\(warning)") }
        var restore: (offset: Point, zoomScale: Double)?
        if let saved, saved.content == contentIdentity {
            restore = (Point(x: saved.offsetX, y: saved.offsetY), saved.zoomScale)
            logger.info("state: restored offset (\(saved.offsetX), \(saved.offsetY)) zoom \(saved.zoomScale)")
        }

        pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: opened.output, content: loaded.content, input: input, at: loop.now, restore: restore)
        logger.info("input: \(pipeline.input.name)")
        try wire()
        if let pyramid { buildPyramid(of: pyramid.image, into: pyramid.cacheDirectory) }
    }

    /// Connects the pipeline to the loop, the socket and the signals.
    private func wire() throws {
        pipeline.sink = self
        pipeline.tracing = logger.logLevel <= .debug
        commands = CommandHandler(pipeline: pipeline, context: self)
        commands.snapshotDirectory = configuration.snapshotFolder
        providers = try ProviderHost(loop: loop, logger: logger, timeout: configuration.providerTimeout,
                                     cacheBytes: configuration.cacheMegabytes << 20,
                                     requiredName: Self.requiredProvider(options.content ?? configuration.contentPath),
                                     show: { [unowned self] content, name in self.presentProvided(content, name: name) },
                                     restore: { [unowned self] in self.restoreConfiguredContent() })
        do {
            server = try ControlServer(path: configuration.controlSocket, mode: mode_t(configuration.controlMode), loop: loop) {
                [unowned self] command, id, file, caller in
                defer { self.runner.rearm() }
                return self.commands.handle(command, id: id, file: file, caller: caller)
            }
            server?.onDisconnect = { [unowned self] caller in self.providers.disconnected(caller) }
            providers.server = server
            if !configuration.controlGroup.isEmpty { try setGroup(configuration.controlGroup, of: configuration.controlSocket) }
        } catch {
            logger.report(.error, "control socket, running without it: ", error)
        }
        runner = try LiveRunner(loop: loop, pipeline: pipeline)
        stateTimer = try loop.addTimer(context: "state save") { [unowned self] _ in self.saveState() }
        signals.append(try loop.addSignal(SIGTERM) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGINT) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGHUP) { [unowned self] in try? self.reload() })
        if try loop.enableWatchdog() { logger.info("watchdog: on") }
    }

    /// Runs until stopped; returns the exit code.
    public func run() -> Int32 {
        pipeline.start()
        runner.rearm()
        let code: Int32
        do {
            code = try loop.run()
        } catch {
            logger.report(.critical, "event loop: ", error)
            code = ErrorKind.software.rawValue
        }
        saveState()
        pipeline.presenter.output.close()
        logger.info("stopped")
        return code
    }

    private func stop() {
        notifier.stopping()
        logger.info("stopping")
        loop.exit(code: 0)
    }

    // MARK: PipelineSink

    public func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        for output in outputs {
            switch output.kind {
            case .transition(let step):
                logger.debug("\(step)")
            case .diagnostic(let note):
                logger.warning("\(note)")
            case .content, .scroll, .state, .gesture:
                published(output, view)
            }
        }
    }

    public func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
        guard !ready else { return }
        ready = true
        let status = "\(contentName ?? "no content") on \(display), input \(pipeline.input.name)"
        notifier.ready(status: status)
        logger.info("ready: \(status)")
    }

    public func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
        switch notice {
        case .display: logger.error("\(notice)")
        case .attractMode: logger.info("\(notice)")
        case .tile: logger.warning("\(notice)")
        }
    }

    private func published(_ output: GestureOutput, _ view: ScrollView) {
        if configuration.logGestures, let entry = GestureLog.entry(for: output, view: view) {
            var metadata: Logger.Metadata = [:]
            for (key, value) in entry.fields { metadata[key.lowercased()] = .string(value) }
            logger.info("\(entry.message)", metadata: metadata)
        }
        if server?.hasSubscribers == true { server?.broadcast(.event(output, view: view)) }
        if case .scroll(let event) = output.kind, Self.leavesAtRest(event, view) { scheduleStateSave() }
    }

    /// Whether the view is at rest after `event`: the end of a motion, or a jump (a
    /// non-animated offset or zoom sends only `didScroll`/`didZoom`), so the state is worth saving.
    private static func leavesAtRest(_ event: ScrollEvent, _ view: ScrollView) -> Bool {
        switch event {
        case .didEndDecelerating, .didEndScrollingAnimation, .didEndZooming, .didScrollToTop: true
        case .didEndDragging(let willDecelerate): !willDecelerate
        case .didScroll, .didZoom: !view.isTracking && !view.isAnimating
        case .willBeginDragging, .willEndDragging, .willBeginDecelerating, .willBeginZooming: false
        }
    }

    // MARK: CommandContext

    public var now: Instant { loop.now }

    public var deviceName: String? { pipeline.input.name }

    public var displayName: String? { display }

    // MARK: State

    private func scheduleStateSave() {
        stateDirty = true
        stateTimer?.schedule(at: loop.now + configuration.stateSaveDelay)
    }

    private func saveState() {
        guard stateDirty else { return }
        stateDirty = false
        let v = pipeline.scrollView
        do {
            try stateStore.save(PersistedState(content: contentIdentity, offsetX: v.contentOffset.x, offsetY: v.contentOffset.y,
                                               zoomScale: v.zoomScale))
            stateWarned = false
        } catch {
            // A missing or read-only folder fails every save: say it once, not at every gesture.
            if !stateWarned { logger.report(.warning, "state (said once until a save succeeds): ", error) }
            stateWarned = true
        }
    }

    /// Tile workers decode hundreds of tiles a second, each through transient buffers of 100–300
    /// KiB. glibc's sliding mmap threshold soon serves those from per-thread heaps, which keep
    /// the freed space resident (14 MiB after a few jumps across a map). A fixed threshold maps
    /// every buffer from 128 KiB up on its own, given back when freed, and two arenas stop each
    /// thread growing its own heap.
    static func tuneMalloc() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 << 10)
        _ = mallopt(M_ARENA_MAX, 2)
    }

    /// Path, size and modification time: a changed file is different content.
    static func identity(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec)"
    }

    // MARK: Reload

    /// Re-reads the config file; a good one applies at once, a bad one is logged and thrown,
    /// and the config in force stays.
    public func reload() throws {
        notifier.reloading(at: UInt64(max(0, loop.now.nanoseconds / 1000)))
        defer { notifier.ready(status: "reloaded") }
        do {
            try apply(ConfigLoader.load(path: options.configPath, explicit: options.configPathExplicit).0
                .placed(in: ProcessInfo.processInfo.environment))
        } catch {
            logger.report(.error, "reload refused, keeping the config in force: ", error)
            throw error
        }
        logger.notice("reloaded \(options.configPath): deceleration \(configuration.decelerationRate)")
    }

    private func apply(_ next: Configuration) throws {
        // Tunables apply to the next gesture; the one in flight keeps its own (GestureRecognizer).
        try pipeline.update(at: loop.now) { v throws in try next.apply(to: &v) }
        var gestures = next.gestureConfiguration
        gestures.pixelsPerMillimetre = pipeline.recognizer.configuration.pixelsPerMillimetre
        gestures.refreshRate = pipeline.recognizer.configuration.refreshRate
        pipeline.setGestureConfiguration(gestures)
        pipeline.setAppearance(background: next.background, indicatorStyle: next.effectiveIndicatorStyle, at: loop.now)
        commands.snapshotDirectory = next.snapshotFolder
        if let live = pipeline.input as? TouchInput {
            live.setMapping(next.touchMapping, outputSize: pipeline.presenter.viewSize)
            live.setMinimumTouchDuration(next.minimumTouchDuration)
        }
        if options.content == nil && next.contentPath != configuration.contentPath {
            try? show(path: next.contentPath, configuration: next)
        }
        // A provider serving keeps its session; the next one meets the new terms.
        providers.timeout = next.providerTimeout
        providers.cacheBytes = next.cacheMegabytes << 20
        providers.requiredName = Self.requiredProvider(options.content ?? next.contentPath)
        pipeline.attractMode = PipelineBuilder.attractMode(next, view: pipeline.scrollView)
        pipeline.touchOverlay = next.touchOverlay
        if next.touchSmoothing != configuration.touchSmoothing || next.touchPrediction != configuration.touchPrediction {
            // Fingers already down start their filters afresh: at most a pixel's step, once.
            pipeline.conditioning = PipelineBuilder.conditioning(next)
        }
        if next.frameLead != configuration.frameLead { pipeline.presenter.frameLead = next.frameLead }
        configuration = next
        logger.logLevel = Logger.Level(rawValue: next.logLevel) ?? .info
        pipeline.tracing = logger.logLevel <= .debug
        runner.rearm()
    }

    // MARK: Content

    /// The control socket's `load`: content from inside the allowed folders only.
    public func load(_ path: String) throws {
        let resolved: String
        do {
            resolved = try ContentLoader.allowed(path, directories: configuration.loadDirectories)
        } catch {
            logger.report(.warning, "content rejected: ", error)
            throw error
        }
        try show(path: resolved, configuration: configuration)
        runner.rearm()
    }

    /// Loads content and shows it from its home position. On a problem the content on screen
    /// stays, and the problem is logged and thrown. An image that needs its pyramid built is
    /// shown once it is (the content on screen stays meanwhile).
    private func show(path: String, configuration: Configuration) throws {
        do {
            let loaded: ContentLoader.Loaded
            switch try ContentLoader.prepare(path: path, view: PixelSize(size: pipeline.presenter.viewSize),
                                             configuration: configuration) {
            case .ready(let ready):
                loaded = ready
            case .pyramid(let image, let cacheDirectory):
                buildPyramid(of: image, into: cacheDirectory)
                return
            }
            try present(loaded.content, name: loaded.name)
            logger.info("content loaded: \(loaded.name), \(loaded.content.summary)")
        } catch {
            logger.report(.error, "content rejected, keeping \(contentName ?? "no content"): ", error)
            throw error
        }
    }

    /// Shows `content` from its home position (ending a content provider's session: its
    /// content is no longer what shows).
    private func present(_ content: Content, name: String) throws {
        providers?.contentReplaced()
        pipeline.show(content, at: loop.now)
        try pipeline.update(at: loop.now) { v throws in
            try v.setContentSize(content.size)
            let home = AttractMode.home(of: v)
            try v.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: false, at: loop.now)
        }
        contentName = name
        contentIdentity = Self.identity(of: name)
    }

    /// The provider's content, named (its size is valid: `provide` checked it), where the view
    /// was when the same provider was last shown (the daemon restarted, the app reconnected).
    private func presentProvided(_ content: Content, name: String) {
        do {
            try present(content, name: name)
            let (saved, _) = stateStore.load()
            if let saved, saved.content == contentIdentity {
                let now = loop.now
                pipeline.update(at: now) { v in
                    try? v.setZoomScale(saved.zoomScale, animated: false, at: now)
                    try? v.setContentOffset(v.clampedOffset(Point(x: saved.offsetX, y: saved.offsetY)), animated: false, at: now)
                }
                logger.info("state: restored offset (\(saved.offsetX), \(saved.offsetY)) zoom \(saved.zoomScale) for \(name)")
            }
        } catch {
            logger.report(.error, "content: cannot show \(name): ", error)
        }
        runner.rearm()
    }

    /// The name a provider must have for the content configured, if it names one.
    private static func requiredProvider(_ path: String) -> String? {
        ContentLoader.providerName(path).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What the config (or the command line) shows: after a content provider went.
    private func restoreConfiguredContent() {
        try? show(path: options.content ?? configuration.contentPath, configuration: configuration)
        runner.rearm()
    }

    // MARK: Content providers (ProviderHost)

    public var providerStatus: ControlProviderStatus? { providers?.status }

    public func provide(_ declared: ControlCommand.Provide, pool: Int32?,
                        caller: ControlServer.Caller) throws(ControlError) -> ControlProviderStatus {
        try providers.provide(declared, pool: pool, caller: caller)
    }

    public func answerTile(_ request: Int, drawn: Bool, caller: ControlServer.Caller) throws(ControlError) {
        try providers.answer(request, drawn: drawn, caller: caller)
    }

    public func invalidate(x: Double, y: Double, width: Double, height: Double, caller: ControlServer.Caller) throws(ControlError) {
        try providers.invalidate(x: x, y: y, width: width, height: height, caller: caller) {
            pipeline.contentChanged(at: loop.now)
        }
    }

    // MARK: Pyramids

    /// Builds `image`'s pyramid off the loop and shows the image when it is done; a build under
    /// way for another image finishes first, then this one starts.
    private func buildPyramid(of image: String, into cacheDirectory: String) {
        if let building {
            if building.image != image { nextPyramid = (image, cacheDirectory) }
            return
        }
        let size = (try? PyramidBuilder.imageSize(of: image)).map { "\($0)" } ?? "?"
        guard let build = PyramidBuild(image: image, cacheDirectory: cacheDirectory, logger: logger) else {
            logger.error("content: cannot start a thread to build the pyramid of \(image)")
            return
        }
        do {
            buildWatch = try loop.addIO(fd: build.fileDescriptor, events: .readable, context: "pyramid of \(image)") {
                [unowned self] _ in self.pyramidBuilt()
            }
        } catch {
            logger.report(.error, "content: cannot watch the pyramid build of \(image): ", error)
            return
        }
        building = build
        let shown = contentName ?? "nothing"
        logger.notice("content: \(image) is \(size), over content.pixel_budget: building its pyramid in \(cacheDirectory) (once; \(shown) is shown meanwhile)")
    }

    /// The build ended: the image is shown, or why not is logged and the content on screen stays.
    private func pyramidBuilt() {
        guard let build = building, let result = build.takeResult() else { return }
        building = nil
        buildWatch = nil
        switch result {
        case .success(let descriptor):
            logger.info("content: pyramid of \(build.image) built in \(descriptor): \(build.lastProgress ?? "")")
            try? show(path: build.image, configuration: configuration)
            runner.rearm()
        case .failure(let error):
            logger.report(.error, "content: the pyramid of \(build.image) could not be built, keeping \(contentName ?? "no content"): ", error)
        }
        if let next = nextPyramid {
            nextPyramid = nil
            buildPyramid(of: next.image, into: next.cacheDirectory)
        }
    }

    private func setGroup(_ group: String, of path: String) throws {
        guard let entry = getgrnam(group) else {
            throw SystemError(call: "getgrnam", context: "control group '\(group)' (no such group)", errno: ENOENT)
        }
        if chown(path, uid_t.max, entry.pointee.gr_gid) != 0 {
            throw SystemError(call: "chown", context: "control socket \(path) group \(group)", errno: errno)
        }
    }
}
