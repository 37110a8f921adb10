import FlickCore
import FlickDisplay
import FlickInput
import FlickSystem
import FoundationEssentials
import Glibc

/// `flickd calibrate`: shows each target on the panel, collects one touch per target
/// (`CalibrationSession`) and fits the calibration matrix (`CalibrationFit`).
///
/// Touches are read with the config's rotation and flips but with the identity matrix in place
/// of any configured or udev one, so recalibrating never compounds an old matrix. The display
/// opens as `flickd run` opens it. Live, sd-event wakes it on the devices' and the card's fds
/// and on the session's deadline; on a recording (`--recording`) it runs on a virtual clock,
/// as fast as possible, on the headless display: the same steps, with nothing to wait for.
public final class Calibrator {
    /// What the command line decided.
    public struct Options: Sendable {
        /// The display; by default the config's (`display.backend`).
        public var display: DisplayEndpoint?
        /// The touchscreen; by default the config's (`input.device`).
        public var input: InputEndpoint?
        /// An evemu recording to read the touches from instead, on a virtual clock.
        public var recording: String?
        /// How many targets.
        public var points = CalibrationTargets.defaultCount
        /// The session's tunables (the timeout per target among them).
        public var settings = CalibrationSession.Settings()

        /// The defaults.
        public init() {}
    }

    /// A finished calibration.
    public struct Result: Sendable {
        /// The matrix and how well it fits.
        public var fit: CalibrationFit
        /// The touchscreen's kernel name, for the udev rule.
        public var deviceName: String
        /// The rotation and flips the matrix was fitted for.
        public var mapping: TouchMapping
    }

    private enum Outcome {
        case touches([Point])
        case failed(any Error)
    }

    /// The display's one line.
    public let displayName: String
    /// The targets, logical view px.
    public let targets: [Point]
    private let output: any Output
    private let source: any TouchSource
    /// The recording, when the touches come from one (then the run is on a virtual clock).
    private let recording: RecordingSource?
    private let mapping: TouchMapping
    private let view: Size
    private let deviceName: () -> String
    private let say: (String) -> Void
    private var session: CalibrationSession
    private var screen: TargetScreen
    private var needsFrame = true
    private var outcome: Outcome?

    /// Opens the display and the input.
    /// - Parameter say: receives each line for the user (targets, touches, refusals, notes).
    /// - Throws: `DisplayOpener.Failure`, `EndpointError`, `EvemuError`, `CalibrationError`.
    public init(options: Options, configuration: Configuration, say: @escaping (String) -> Void) throws {
        self.say = say
        let rotation = configuration.panelRotation
        var opener = DisplayOpener(configuration: configuration)
        // A recording is judged as replay and events judge it (a touchscreen by its capabilities).
        let recording = try options.recording.map { path throws in try Replay.touchscreenRecording(path, note: say) }
        var endpoint = try options.display ?? DisplayEndpoint(parsing: configuration.displayBackend)
        if let recording {
            switch options.display {
            case nil, .headless(size: nil):
                let logical = PixelSize(size: RecordingSource.panelSize(for: recording.description))
                endpoint = .headless(size: rotation.logicalSize(panel: logical))
            case .headless: break
            default:
                throw EndpointError(option: "--display", value: options.display?.description ?? "",
                                    expected: "headless[:WIDTHxHEIGHT]: a recording plays on a virtual clock")
            }
            opener.fallback = .fail
        }
        let opened = try opener.open(endpoint)
        output = opened.output
        displayName = opened.description + (opened.isFallback ? " (no panel: the headless fallback)" : "")
        for reason in opened.passedOver { say("display: passed over \(reason)") }
        view = rotation.logicalSize(panel: output.size).size
        targets = try CalibrationTargets.layout(count: options.points, in: view)
        mapping = configuration.touchMapping.uncalibrated
        if let recording {
            let replay = try RecordingSource(recording: recording, mapping: mapping, outputSize: view, start: .milliseconds(500),
                                             minimumTouchDuration: configuration.minimumTouchDuration)
            source = replay
            self.recording = replay
            deviceName = { recording.description.name }
        } else {
            var inputOptions = TouchInputOptions(configuration: configuration,
                                                 endpoint: try options.input ?? InputEndpoint(parsing: configuration.inputDevice),
                                                 outputSize: view)
            inputOptions.mapping = mapping
            if case .recording = options.input {
                throw EndpointError(option: "--input", value: options.input?.description ?? "",
                                    expected: "auto or a device path (use --recording FILE for a recording)")
            }
            let input = TouchInput(options: inputOptions, log: { say($0) })
            source = input
            deviceName = { input.deviceNames.first ?? "NAME OF THE TOUCHSCREEN" }
            self.recording = nil
        }
        session = CalibrationSession(count: targets.count, screen: view, settings: options.settings)
        screen = TargetScreen(targets: targets, current: 0, done: 0, rotation: rotation)
    }

    deinit { output.close() }

    /// Runs until every target has its touch.
    /// - Throws: `CalibrationError` (a timeout, the recording ending, points that fit nothing),
    ///   or the display's or the loop's error.
    public func run() throws -> Result {
        say("display: \(displayName); touch: \(source.name)")
        say("touches are read without input.calibration (and udev's matrix); rotation \(mapping.rotation)"
            + (mapping.flipX ? ", flip_x" : "") + (mapping.flipY ? ", flip_y" : ""))
        if recording == nil { try runLive() } else { runVirtual() }
        output.close()
        switch outcome {
        case .touches(let touches):
            let fit = try CalibrationFit(touches: touches, targets: targets, mapping: mapping, outputSize: view)
            return Result(fit: fit, deviceName: deviceName(), mapping: mapping)
        case .failed(let error):
            throw error
        case nil:
            throw CalibrationError.inputEnded(source: source.name, accepted: session.touches.count, of: targets.count)
        }
    }

    // MARK: Loops

    private func runVirtual() {
        var now = Instant.zero
        report(session.start(at: now))
        while outcome == nil, let next = nextDeadline(now: now) {
            now = max(now, next)
            step(at: now)
        }
    }

    private func runLive() throws {
        let loop = try EventLoop()
        var watches: FileWatches?
        var watchFailure: SystemError?
        var timer: TimerSource?
        func wake(_ t: Instant) {
            step(at: max(t, loop.now))
            if outcome != nil {
                loop.exit(code: 0)
                return
            }
            do {
                try watches?.update(source.fileDescriptors + (output.pollDescriptor.map { [$0] } ?? []))
            } catch {
                // A touchscreen that cannot be watched would only look like a target timing out.
                watchFailure = error
                loop.exit(code: 1)
                return
            }
            timer?.schedule(at: nextDeadline(now: loop.now))
        }
        timer = try loop.addTimer(context: "calibrate") { wake($0) }
        watches = FileWatches(loop: loop, context: "calibrate") { wake(loop.now) }
        var signals: [SignalSource] = []
        for signo in [SIGINT, SIGTERM] {
            signals.append(try loop.addSignal(signo) { [unowned self] in
                self.outcome = .failed(CalibrationError.interrupted)
                loop.exit(code: 0)
            })
        }
        report(session.start(at: loop.now))
        wake(loop.now)
        try loop.run()
        // The handlers hold `wake`, which holds the sources: release them, or the loop leaks.
        watches?.removeAll()
        timer = nil
        _ = signals
        if let watchFailure { throw watchFailure }
    }

    private func nextDeadline(now: Instant) -> Instant? {
        let frame = needsFrame && !output.isFlipPending ? now : nil
        return [source.nextDeadline, session.nextDeadline, output.nextDeadline, frame].compactMap { $0 }.min()
    }

    /// Everything due at `now`: the touches, the session's deadline, the display.
    private func step(at now: Instant) {
        var steps: [CalibrationSession.Step] = []
        for frame in source.dispatch(now: now) { steps += session.handle(.frame(frame)) }
        if let deadline = session.nextDeadline, deadline <= now { steps += session.handle(.timer(now)) }
        report(steps)
        for note in recording?.takeDiagnostics() ?? [] { say("input: \(note)") }
        do {
            _ = try output.dispatch(now: now)
            if needsFrame && !output.isFlipPending {
                try output.withBackBuffer { screen.draw(into: $0) }
                try output.commit(now: now)
                needsFrame = false
            }
        } catch {
            outcome = .failed(error)
        }
        if outcome == nil && recording?.isFinished == true {
            outcome = .failed(CalibrationError.inputEnded(source: source.name, accepted: session.touches.count, of: targets.count))
        }
    }

    /// Says what happened and changes the picture.
    private func report(_ steps: [CalibrationSession.Step]) {
        let n = targets.count
        for step in steps {
            switch step {
            case .show(let i):
                let t = targets[i]
                say("target \(i + 1)/\(n) at (\(t.x.brief), \(t.y.brief))")
                screen.current = i
                screen.done = i
                needsFrame = true
            case let .accepted(i, touch):
                say("touch \(i + 1)/\(n) at (\(touch.x.fixed(1)), \(touch.y.fixed(1)))")
            case let .ignored(i, why):
                say("target \(i + 1)/\(n): ignored \(why)")
            case let .refused(i, why):
                say("target \(i + 1)/\(n): refused \(why); lift every finger and touch the target again")
            case .finished(let touches):
                screen.current = nil
                screen.done = n
                needsFrame = true
                outcome = .touches(touches)
            case .timedOut(let i):
                outcome = .failed(CalibrationError.timedOut(target: i, of: n, seconds: session.settings.timeout.inSeconds))
            }
        }
    }
}
