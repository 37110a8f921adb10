import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FlickSystem
import FoundationEssentials
import Glibc
import Logging

/// The running service (docs/ARCHITECTURE.md): the sd-event loop around the pipeline, the
/// content host, the control socket, the journal and the saved state.
///
/// `init` opens the display, content and input, builds the pipeline (`PipelineBuilder`, as a
/// replay does) and wires them to the loop; `run` blocks in sd-event until SIGTERM or SIGINT,
/// then saves the state, gives the display back and returns the exit code. SIGHUP
/// (`systemctl reload`) re-reads the config file: a good file applies at once, a bad one is
/// logged with its line and key and the config in force stays.
///
/// The daemon is the pipeline's sink — what the pipeline emits goes to the journal, the
/// control socket's subscribers and the state store — and the control commands' context;
/// what is shown, and where it came from, is the `ContentHost`'s.
public final class Daemon: PipelineSink, CommandContext {
    let options: Options
    var configuration: Configuration
    /// The config file's keys as written, for what a reload changed (`ConfigChanges`).
    var configValues: [String: String]
    var logger: Logger
    let loop: EventLoop
    let notifier = Notifier()
    let pipeline: Pipeline
    let content: ContentHost
    var runner: LiveRunner!
    private var server: ControlServer?
    var commands: CommandHandler!
    private var signals: [SignalSource] = []
    var stateTimer: TimerSource?
    var metrics: FleetMetrics!
    lazy var gestureJournal = GestureJournal(level: configuration.logGestures) { [unowned self] in self.logger }
    /// Nil with `state.path = ""`: nothing is saved, and every start is at the home view.
    let stateSaving: StateSaving?
    /// The display's one line, for logs and `status`.
    var display: String
    /// The loop thread's scheduling and why not real time, if refused (`status`).
    private(set) public var loopScheduling: String?
    /// Monitors coming and going on the DRM card in use or awaited (nil on other displays).
    var hotplug: DisplayHotplug?
    /// Told when the wall clock is set (nil when the kernel refused the watch).
    private var wallClockWatch: WallClockWatch?
    var ready = false
    /// The state could not be saved and it was said: said again only after a save succeeds.
    var stateWarned = false

    /// Opens the display, content, input and control socket, restores the saved state and
    /// composes the first frame.
    /// - Throws: what could not be opened and why (`DisplayOpener.Failure`, `EndpointError`,
    ///   `ContentError`, `EvemuError`, `SystemError`).
    public init(options: Options, configuration: Configuration, configFromFile: Bool) throws {
        // Before any thread starts (tile decoders of content shown at start): the loop reads these.
        SignalMask.block([SIGTERM, SIGINT, SIGHUP])
        MallocTuning.apply()
        let configuration = configuration.placed(in: ProcessInfo.processInfo.environment)
        self.options = options
        self.configuration = configuration
        configValues = configFromFile ? ConfigChanges.values(path: options.configPath) : [:]
        let backend = LogBackend.choose(environment: ProcessInfo.processInfo.environment)
        logger = backend.logger(level: Logger.Level(rawValue: configuration.logLevel) ?? .info)
        if !configFromFile { logger.notice("no config at \(options.configPath): using the built-in defaults") }
        loop = try EventLoop()

        // Display: the command line's choice, else the config's.
        let opened = try Self.openDisplay(options: options, configuration: configuration, logger: logger)
        display = opened.line
        let logical = configuration.panelRotation.logicalSize(panel: opened.output.size)

        // Content, and where the view was for it (restored only for the same content).
        stateSaving = configuration.statePath.isEmpty ? nil
            : StateSaving(store: StateStore(path: configuration.statePath), configuration: configuration, start: loop.now)
        if stateSaving == nil {
            logger.notice("state: state.path is empty: nothing is saved, so a restart starts at the home view with the configured content")
        }
        let loop = loop
        content = ContentHost(configuration: configuration, pinnedPath: options.content, stateStore: stateSaving?.store,
                              logger: logger, clock: { [unowned loop] in loop.now })
        let (first, restore) = try content.start(view: logical)

        // Input: under a compositor, its seat (Daemon+Input).
        let input = try Self.chooseInput(endpoint: options.input ?? InputEndpoint(parsing: configuration.inputDevice),
                                         configuration: configuration, output: opened.output, logicalSize: logical.size,
                                         at: loop.now, log: { [logger] in logger.info("\($0)") })

        var builder = PipelineBuilder(configuration: configuration)
        builder.powerEnvironment = try Self.powerEnvironment(configuration.power, output: opened.output, at: loop.now, logger: logger)
        pipeline = try builder.build(output: opened.output, content: first, input: input, at: loop.now, restore: restore)
        if let note = pipeline.power?.startNote { logger.notice("\(note)") }
        logger.info("input: \(pipeline.input.name)")
        loopScheduling = Self.setThreadPriorities(realtime: configuration.realtimePriority, logger: logger)
        try wire()
        content.attach(pipeline)
        try watchDisplay(opened)
    }

    /// Connects the pipeline and the content host to the loop, the socket and the signals.
    private func wire() throws {
        pipeline.sink = self
        pipeline.tracing = logger.logLevel <= .debug
        commands = CommandHandler(pipeline: pipeline, context: self)
        commands.content = content
        content.chosen = { [unowned self] in self.scheduleStateSave(.content) }
        commands.snapshotDirectory = configuration.snapshotFolder
        do {
            server = try ControlServer(path: configuration.controlSocket, mode: mode_t(configuration.controlMode), loop: loop) {
                [unowned self] command, id, file, caller in
                self.commands.handle(command, id: id, file: file, caller: caller)
            }
            // What is shown may have changed (load, a provider): the metrics' file looks, and the
            // loop's timers and watches follow (once for a wake-up's lines).
            server?.onLinesHandled = { [unowned self] in
                self.metrics.changed()
                self.runner.rearm()
            }
            server?.onDisconnect = { [unowned self] caller in
                // The host ends a provider's session at a deadline of its own: armed here, since
                // nothing else may wake the loop (a provider that dies idle).
                self.content.disconnected(caller)
                self.metrics.changed()
                self.runner.rearm()
            }
            content.link = server
            if !configuration.controlGroup.isEmpty { try ControlSocketGroup.set(configuration.controlGroup, of: configuration.controlSocket) }
        } catch {
            logger.report(.error, "control socket, running without it: ", error)
        }
        metrics = FleetMetrics(configuration: configuration, pipeline: pipeline, content: content) { [unowned loop] in loop.now }
        content.contentErrorChanged = { [unowned self] in self.metrics.changed() }
        metrics.file.failed = { [unowned self] in self.logger.report(.warning, "metrics.textfile (said once until a write succeeds): ", $0) }
        runner = try LiveRunner(loop: loop, pipeline: pipeline, companions: [content, metrics.file, gestureJournal])
        stateTimer = try loop.addTimer(context: "state save") { [unowned self] _ in self.saveState() }
        wallClockWatch = watchWallClock()
        signals.append(try loop.addSignal(SIGTERM) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGINT) { [unowned self] in self.stop() })
        signals.append(try loop.addSignal(SIGHUP) { [unowned self] in _ = try? self.reload() })
        if try loop.enableWatchdog() { logger.info("watchdog: on") }
    }

    /// Runs until stopped; returns the exit code.
    public func run() -> Int32 {
        pipeline.start()
        readyWithoutPanel()
        runner.rearm()
        let code: Int32
        do {
            code = try loop.run()
        } catch {
            logger.report(.critical, "event loop: ", error)
            code = ErrorKind.software.rawValue
        }
        saveState()
        metrics.flush(at: loop.now)
        gestureJournal.flush(at: loop.now)
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
        metrics?.emitted(outputs)
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
        metrics?.presented(late: pipeline.presenter.lastPresentationWasLate)
        sayReady("ready")
    }

    /// Says `READY=1` once (the first frame presented, or no panel to present it on), with what
    /// is shown on what, as `STATUS=` and a journal line starting with `lead`.
    func sayReady(_ lead: String) {
        guard !ready else { return }
        ready = true
        let status = "\(content.name ?? "no content") on \(display), input \(pipeline.input.name)"
        notifier.ready(status: status)
        logger.info("\(lead): \(status)")
    }

    public func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
        switch notice {
        case .display: logger.error("\(notice)")
        case .attractMode, .unavailable: logger.info("\(notice)")
        case .redrawsPaced: logger.notice("\(notice)")
        case .output:
            logger.notice("\(notice)")
            // A document laid out for the old panel's size (its width, paging's cells) is laid out again.
            content.relayDocument()
        case .tile, .reducedPage: logger.warning("\(notice)")
        case let .power(state, _, _, _):
            metrics?.powerState = state
            Self.said(notice, view: pipeline.scrollView, logger: logger, notifier: notifier, server: server)
        case let .wallClock(jump, _):
            Self.said(jump, notice, logger: logger)
        }
    }

    private func published(_ output: GestureOutput, _ view: ScrollView) {
        gestureJournal.published(output, view: view)
        if server?.hasSubscribers == true { server?.broadcast(.event(output, view: view)) }
        if case .scroll(let event) = output.kind, event.leavesAtRest(view) { scheduleStateSave(.view) }
    }

    // MARK: CommandContext

    public var now: Instant { loop.now }
    public var deviceName: String? { pipeline.input.name }
    public var displayName: String? { display }
}
