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
/// opens as `flickd run` opens it. The touches and the targets go through a
/// `CalibrationPipeline` on the daemon's runners: live on `LiveRunner` (sd-event wakes it on the
/// devices' and the card's fds and on the session's deadline); on a recording (`--recording`)
/// on `VirtualRunner`, as fast as possible, on the headless display: the same steps, with
/// nothing to wait for.
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
    private let rotation: PanelRotation
    private let settings: CalibrationSession.Settings
    private let deviceName: () -> String
    private let say: (String) -> Void

    /// Opens the display and the input.
    /// - Parameter say: receives each line for the user (targets, touches, refusals, notes).
    /// - Throws: `DisplayOpener.Failure`, `EndpointError`, `EvemuError`, `CalibrationError`.
    public init(options: Options, configuration: Configuration, say: @escaping (String) -> Void) throws {
        self.say = say
        let rotation = configuration.panelRotation
        self.rotation = rotation
        settings = options.settings
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
    }

    deinit { output.close() }

    /// Runs until every target has its touch.
    /// - Throws: `CalibrationError` (a timeout, the recording ending, points that fit nothing),
    ///   or the display's or the loop's error.
    public func run() throws -> Result {
        say("display: \(displayName); touch: \(source.name)")
        say("touches are read without input.calibration (and udev's matrix); rotation \(mapping.rotation)"
            + (mapping.flipX ? ", flip_x" : "") + (mapping.flipY ? ", flip_y" : ""))
        let pipeline = recording == nil ? try runLive() : runVirtual()
        output.close()
        switch pipeline.outcome {
        case .touches(let touches):
            let fit = try CalibrationFit(touches: touches, targets: targets, mapping: mapping, outputSize: view)
            return Result(fit: fit, deviceName: deviceName(), mapping: mapping)
        case .failed(let error):
            throw error
        case nil:
            throw CalibrationError.inputEnded(source: source.name, accepted: pipeline.accepted, of: targets.count)
        }
    }

    // MARK: Runs

    private func makePipeline(at t: Instant) -> CalibrationPipeline {
        CalibrationPipeline(output: output, input: source, targets: targets,
                            session: CalibrationSession(count: targets.count, screen: view, settings: settings),
                            rotation: rotation, at: t, say: say)
    }

    private func runVirtual() -> CalibrationPipeline {
        let pipeline = makePipeline(at: .zero)
        pipeline.start()
        _ = VirtualRunner.run(pipeline)
        return pipeline
    }

    private func runLive() throws -> CalibrationPipeline {
        let loop = try EventLoop()
        let pipeline = makePipeline(at: loop.now)
        pipeline.finished = { [unowned loop] in loop.exit(code: 0) }
        var signals: [SignalSource] = []
        for signo in [SIGINT, SIGTERM] {
            signals.append(try loop.addSignal(signo) { [unowned pipeline] in pipeline.fail(CalibrationError.interrupted) })
        }
        pipeline.start()
        let runner = try LiveRunner(loop: loop, pipeline: pipeline)
        var watchFailure: SystemError?
        runner.watchFailed = { [unowned loop] error in
            // A touchscreen that cannot be watched would only look like a target timing out.
            watchFailure = watchFailure ?? error
            loop.exit(code: 1)
        }
        try loop.run()
        pipeline.finished = nil
        withExtendedLifetime((runner, signals)) {}
        if let watchFailure { throw watchFailure }
        return pipeline
    }
}
