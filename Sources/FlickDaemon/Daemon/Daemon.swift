import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FoundationEssentials
import Glibc
import Logging

/// The running service (DESIGN §2, §5): the sd-event loop, the display, the input, the session,
/// the control socket, the journal and the saved state, wired together.
///
/// `init` opens everything and composes the first frame; `run` blocks in sd-event until SIGTERM
/// or SIGINT, then saves the state, gives the display back and returns the exit code. SIGHUP
/// (`systemctl reload`) re-reads the config file: a good file applies at once, a bad one is
/// logged with its line and key and the config in force stays.
public final class Daemon {
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
    private let display: DisplayTarget
    private let displayName: String
    private let session: Session
    private let input: any TouchSource
    private var runner: LiveRunner!
    private var server: ControlServer?
    private var commands: CommandHandler!
    private var signals: [SignalSource] = []
    private var stateTimer: TimerSource?
    private let stateStore: StateStore
    private var contentName: String
    private var contentIdentity: String
    private var ready = false
    private var stateDirty = false

    /// Opens the display, content, input and control socket, restores the saved state and
    /// composes the first frame.
    /// - Throws: a `DaemonError` saying what could not be opened and why.
    public init(options: Options, configuration: Configuration, configFromFile: Bool) throws {
        let configuration = configuration.placed(in: ProcessInfo.processInfo.environment)
        self.options = options
        self.configuration = configuration
        let backend = LogBackend.choose(environment: ProcessInfo.processInfo.environment)
        logger = backend.logger(level: Logger.Level(rawValue: configuration.logLevel) ?? .info)
        if !configFromFile { logger.notice("no config at \(options.configPath): using the built-in defaults") }
        loop = try EventLoop()

        // Display: the command line's choice, else the config's.
        var opener = DisplayOpener()
        opener.drm = .init(cardPath: configuration.drmCard.isEmpty ? nil : configuration.drmCard, mode: configuration.modeRequest)
        opener.fbdevDevice = configuration.fbdevDevice
        opener.headlessSize = configuration.headlessSize
        opener.headlessRefreshRate = configuration.headlessRefreshRate
        if let dir = options.snapshotDirectory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            opener.capture = .everyFrame(directory: dir)
        }
        let endpoint = try options.display ?? DisplayEndpoint(parsing: configuration.displayBackend)
        let opened = try opener.open(endpoint)
        for reason in opened.passedOver { logger.notice("display: passed over \(reason)") }
        logger.info("display: \(opened.description)")
        displayName = opened.description
        let compositor = Compositor(rotation: configuration.panelRotation, indicatorStyle: configuration.effectiveIndicatorStyle)
        let logical = configuration.panelRotation.logicalSize(panel: opened.output.size)

        // Content: a bad file is an error at start (nothing to keep showing yet) only if it was
        // asked for on the command line; from the config, the test pattern stands in.
        let path = options.content ?? configuration.contentPath
        let loaded: ContentLoader.Loaded
        do {
            loaded = try ContentLoader.load(path: path, view: logical, configuration: configuration)
        } catch where options.content == nil {
            logger.error("content: \(error); showing the test pattern")
            loaded = try ContentLoader.load(path: "", view: logical, configuration: configuration)
        }
        contentName = loaded.name
        contentIdentity = Self.identity(of: loaded.name)
        logger.info("content: \(loaded.name), \(loaded.content.image.width)x\(loaded.content.image.height)")
        display = DisplayTarget(output: opened.output, compositor: compositor, content: loaded.content,
                                background: configuration.background)
        var view = try ScrollView(boundsSize: display.viewSize, contentSize: loaded.content.size)
        try configuration.apply(to: &view)

        // Input.
        let inputEndpoint = try options.input ?? InputEndpoint(parsing: configuration.inputDevice)
        var gestures = configuration.gestureConfiguration
        switch inputEndpoint {
        case .recording(let file):
            let recording = try EvemuRecording.load(path: file)
            let source = try RecordingSource(recording: recording, mapping: configuration.touchMapping,
                                             outputSize: display.viewSize, start: loop.now + .milliseconds(500))
            gestures.pixelsPerMillimetre = source.pixelsPerMillimetre
            input = source
        case .auto, .device:
            var inputOptions = TouchInputOptions(outputSize: display.viewSize)
            if case .device(let path) = inputEndpoint { inputOptions.devicePath = path }
            if !configuration.inputMatchName.isEmpty { inputOptions.force.nameContains = [configuration.inputMatchName] }
            inputOptions.grab = configuration.grab
            inputOptions.mapping = configuration.touchMapping
            let log = logger
            let live = TouchInput(options: inputOptions, log: { log.info("\($0)") })
            gestures.pixelsPerMillimetre = live.pixelsPerMillimetre
            input = live
        }
        logger.info("input: \(input.name)")

        // State: restored only for the same content.
        stateStore = StateStore(path: configuration.statePath)
        let (saved, warning) = stateStore.load()
        if let warning { logger.warning("\(warning)") }
        if let saved, saved.content == contentIdentity {
            try? view.setZoomScale(saved.zoomScale, animated: false, at: loop.now)
            try? view.setContentOffset(view.clampedOffset(Point(x: saved.offsetX, y: saved.offsetY)), animated: false, at: loop.now)
            _ = view.takeEvents()
            logger.info("state: restored offset (\(saved.offsetX), \(saved.offsetY)) zoom \(saved.zoomScale)")
        }

        session = Session(recognizer: GestureRecognizer(scrollView: view, configuration: gestures), target: display, at: loop.now)
        session.idleReset = Self.idleReset(configuration, view: view)
        try wire()
    }

    /// Connects the session to the loop, the socket, the signals and the journal.
    private func wire() throws {
        commands = CommandHandler(session: session, display: display)
        commands.snapshotDirectory = options.snapshotDirectory
        commands.displayName = displayName
        commands.contentName = contentName
        commands.deviceName = { [unowned self] in self.input.name }
        commands.reload = { [unowned self] in self.reload() }
        commands.load = { [unowned self] path in self.load(path) }
        commands.didChange = { [unowned self] in self.runner?.rearm() }
        commands.clock = { [unowned self] in self.loop.now }
        do {
            server = try ControlServer(path: configuration.controlSocket, mode: mode_t(configuration.controlMode), loop: loop) {
                [unowned self] command, id in self.commands.handle(command, id: id)
            }
            if !configuration.controlGroup.isEmpty { try setGroup(configuration.controlGroup, of: configuration.controlSocket) }
        } catch {
            logger.error("control socket: \(error); running without it")
        }
        session.publish = { [unowned self] output, view in self.published(output, view) }
        session.report = { [unowned self] in self.logger.warning("\($0)") }
        session.didIdleReset = { [unowned self] in
            self.logger.info("idle for \(GestureLog.num(self.configuration.idleResetSeconds)) s: back to the home position")
        }
        display.report = { [unowned self] in self.logger.error("\($0)") }
        runner = try LiveRunner(loop: loop, session: session, input: input, display: display)
        runner.onPresented = { [unowned self] _ in self.firstFrameShown() }
        stateTimer = try loop.addTimer(context: "state save") { [unowned self] _ in self.saveState() }
        signals.append(try loop.addSignal(SIGTERM) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGINT) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGHUP) { [unowned self] in _ = self.reload() })
        if try loop.enableWatchdog() { logger.info("watchdog: on") }
    }

    /// Runs until stopped; returns the exit code.
    public func run() -> Int32 {
        session.start()
        runner.rearm()
        let code: Int32
        do {
            code = try loop.run()
        } catch {
            logger.critical("event loop: \(error)")
            code = 1
        }
        saveState()
        display.output.close()
        logger.info("stopped")
        return code
    }

    private func stop() {
        notifier.stopping()
        logger.info("stopping")
        loop.exit(code: 0)
    }

    private func firstFrameShown() {
        guard !ready else { return }
        ready = true
        let status = "\(contentName) on \(displayName), input \(input.name)"
        notifier.ready(status: status)
        logger.info("ready: \(status)")
    }

    // MARK: Events out

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

    // MARK: State

    private func scheduleStateSave() {
        stateDirty = true
        stateTimer?.schedule(at: loop.now + configuration.stateSaveDelay)
    }

    private func saveState() {
        guard stateDirty else { return }
        stateDirty = false
        let v = session.recognizer.scrollView
        do {
            try stateStore.save(PersistedState(content: contentIdentity, offsetX: v.contentOffset.x, offsetY: v.contentOffset.y,
                                               zoomScale: v.zoomScale))
        } catch {
            logger.warning("state: \(error)")
        }
    }

    /// Path, size and modification time: a changed file is different content.
    static func identity(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path)|\(info.st_size)|\(info.st_mtim.tv_sec)"
    }

    // MARK: Reload

    /// Re-reads the config file; returns the problem, or nil when the new config applies.
    private func reload() -> String? {
        notifier.reloading(at: UInt64(max(0, loop.now.nanoseconds / 1000)))
        defer { notifier.ready(status: "reloaded") }
        let next: Configuration
        do {
            next = try ConfigLoader.load(path: options.configPath, explicit: options.configPathExplicit).0
                .placed(in: ProcessInfo.processInfo.environment)
        } catch {
            logger.error("reload refused, keeping the config in force: \(error)")
            return "\(error)"
        }
        do {
            // Tunables apply to the next gesture; the one in flight keeps its own (GestureRecognizer).
            try session.update(at: loop.now) { v throws in try next.apply(to: &v) }
        } catch {
            logger.error("reload refused, keeping the config in force: \(error)")
            return "\(error)"
        }
        var gestures = next.gestureConfiguration
        gestures.pixelsPerMillimetre = session.recognizer.configuration.pixelsPerMillimetre
        session.setGestureConfiguration(gestures)
        display.background = next.background
        display.renderLoop.compositor.indicatorStyle = next.effectiveIndicatorStyle
        if let live = input as? TouchInput { live.setMapping(next.touchMapping, outputSize: display.viewSize) }
        if options.content == nil && next.contentPath != configuration.contentPath {
            _ = show(path: next.contentPath, configuration: next)
        }
        session.idleReset = Self.idleReset(next, view: session.recognizer.scrollView)
        configuration = next
        logger.logLevel = Logger.Level(rawValue: next.logLevel) ?? .info
        session.invalidate()
        runner.rearm()
        logger.notice("reloaded \(options.configPath): deceleration \(next.decelerationRate)")
        return nil
    }

    // MARK: Content

    /// The control socket's `load`: content from inside the allowed folders only.
    private func load(_ path: String) -> String? {
        do {
            let resolved = try ContentLoader.allowed(path, directories: configuration.loadDirectories)
            if let problem = show(path: resolved, configuration: configuration) { return problem }
            session.invalidate()
            runner.rearm()
            return nil
        } catch {
            logger.warning("content rejected: \(error)")
            return "\(error)"
        }
    }

    /// Loads content and shows it from its home position; returns the problem, or nil. On a
    /// problem the content on screen stays.
    private func show(path: String, configuration: Configuration) -> String? {
        do {
            let loaded = try ContentLoader.load(path: path, view: PixelSize(size: display.viewSize), configuration: configuration)
            display.content = loaded.content
            try session.update(at: loop.now) { v throws in
                try v.setContentSize(loaded.content.size)
                let home = IdleReset.home(of: v)
                try v.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: false, at: loop.now)
            }
            contentName = loaded.name
            contentIdentity = Self.identity(of: loaded.name)
            commands.contentName = loaded.name
            logger.info("content loaded: \(loaded.name), \(loaded.content.image.width)x\(loaded.content.image.height)")
            return nil
        } catch {
            logger.error("content rejected: \(error); keeping \(contentName)")
            return "\(error)"
        }
    }

    /// Attract mode as the config asks, or nil when it is off.
    static func idleReset(_ configuration: Configuration, view: ScrollView) -> IdleReset? {
        guard configuration.idleResetSeconds > 0 else { return nil }
        let home = IdleReset.home(of: view)
        return IdleReset(delay: .seconds(double: configuration.idleResetSeconds), offset: home.offset,
                         zoomScale: home.zoomScale)
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
