import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FlickSystem
import Glibc

/// `flickd events`: what a panel sends, in flickd's terms — each contact in device units and in
/// screen pixels after calibration and rotation, pressure and size when the device has them,
/// the report rate and its jitter, `SYN_DROPPED`, and the gestures flickd recognises.
///
/// The touches go through the pipeline a live run builds (`PipelineBuilder`: the same decoder,
/// mapping and recogniser), on a headless display showing the test pattern; the source's
/// observer (`InputObservation`) gives `EventsMonitor` the raw side. A live device runs on the
/// loop until a signal, `count` or `duration`; a recording runs on the virtual clock, so its
/// output is exact.
public enum Events {
    /// What to watch and for how long.
    public struct Options: Sendable {
        /// The device node; by default the first touchscreen in `directory`.
        public var device: String?
        /// An evemu recording to play on the virtual clock instead of a device.
        public var recording: String?
        /// The folder of event nodes searched when no device is named.
        public var directory = "/dev/input"
        /// The panel's size in pixels; by default the one the device's axes suggest.
        public var size: PixelSize?
        /// Stop after this many reports.
        public var count: Int?
        /// Stop after this long (of the loop's clock, or of the recording's).
        public var duration: Duration?
        /// Touch time between two rate lines.
        public var rateInterval: Duration = .seconds(1)
        /// The content the gestures act on (its edges and pages: a flick that bounces, a page
        /// turned), loaded as `flickd replay` loads it, a document through `flickd-render`;
        /// empty: the test pattern.
        public var content = ""

        /// Creates options: the first touchscreen, until stopped.
        public init(device: String? = nil, recording: String? = nil) {
            self.device = device
            self.recording = recording
        }
    }

    /// Runs a session.
    /// - Parameters:
    ///   - options: the device or recording, and when to stop.
    ///   - configuration: the mapping (rotation, calibration), gesture tunables and panel rotation.
    ///   - out: receives each line of the session (standard output).
    ///   - note: receives the source's diagnostics (standard error).
    /// - Returns: the number of reports seen.
    /// - Throws: `FlickError`: no touchscreen, a device that cannot be opened, a bad recording.
    @discardableResult
    public static func run(_ options: Options, configuration: Configuration, out: @escaping (String) -> Void,
                           note: @escaping (String) -> Void) throws -> Int {
        if let path = options.recording {
            return try replay(path, options: options, configuration: configuration, out: out, note: note)
        }
        return try live(options, configuration: configuration, out: out, note: note)
    }

    private static func replay(_ path: String, options: Options, configuration: Configuration,
                               out: @escaping (String) -> Void, note: @escaping (String) -> Void) throws -> Int {
        let recording = try Replay.touchscreenRecording(path, note: note)
        let (output, logical) = try Replay.headless(panel: options.size, device: recording.description,
                                                    configuration: configuration)
        let start = Instant.zero
        let monitor = EventsMonitor(origin: start, rateInterval: options.rateInterval)
        let pipeline = try build(output: output, logical: logical, input: .recording(recording, start: start),
                                 content: options.content, configuration: configuration, at: start)
        guard let source = pipeline.input as? RecordingSource else { return 0 }
        EventsMonitor.header(device: path, description: recording.description, mapping: configuration.touchMapping,
                             screen: logical.size).forEach(out)
        var stopped = false
        source.observer = { observation in
            for line in monitor.lines(for: observation) { out(line) }
            if let count = options.count, monitor.reports >= count { stopped = true }
        }
        let printer = Printer(monitor: monitor, out: out, note: note)
        pipeline.sink = printer
        pipeline.start()
        let recorded = (recording.events.last?.time ?? .zero) - (recording.events.first?.time ?? .zero)
        let end = options.duration.map { start + $0 } ?? start + recorded + .seconds(600)
        while !stopped, let next = pipeline.nextDeadline, next <= end {
            pipeline.dispatch(now: max(pipeline.now, next))
        }
        for line in source.takeDiagnostics() { note(line) }
        out(monitor.finish())
        return monitor.reports
    }

    private static func live(_ options: Options, configuration: Configuration, out: @escaping (String) -> Void,
                             note: @escaping (String) -> Void) throws -> Int {
        let force = forceRules(configuration)
        let path = try options.device ?? firstTouchscreen(in: options.directory, force: force)
        let probe = try EvdevDevice(path: path)
        let description = probe.description
        do { try probe.ensureNotHeldElsewhere() } catch {
            probe.close()
            throw error
        }
        probe.close()
        let (output, logical) = try Replay.headless(panel: options.size, device: description, configuration: configuration)
        let loop = try EventLoop()
        // A named node is looked for in its own folder, wherever that is.
        let folder = parentDirectory(of: path)
        var inputOptions = TouchInputOptions(directory: folder.isEmpty ? options.directory : folder, devicePath: path,
                                             force: force, grab: false, outputSize: logical.size)
        inputOptions.mapping = configuration.touchMapping
        let pipeline = try build(output: output, logical: logical, input: .devices(inputOptions, log: note),
                                 content: options.content, configuration: configuration, at: loop.now)
        guard let input = pipeline.input as? TouchInput, input.devices == [path] else {
            throw InputDeviceError(path: path, reason: "not read as a touchscreen: no X/Y axes, or its name does not start "
                                   + "with 'event' (name the /dev/input/eventN node)")
        }
        var mapping = configuration.touchMapping
        if mapping.calibration == nil { mapping.calibration = UdevCalibration.matrix(forDeviceNode: path) }
        EventsMonitor.header(device: path, description: description, mapping: mapping, screen: logical.size).forEach(out)
        let monitor = EventsMonitor(rateInterval: options.rateInterval)
        input.observer = { [unowned loop] observation in
            for line in monitor.lines(for: observation) { out(line) }
            if let count = options.count, monitor.reports >= count { loop.exit(code: 0) }
        }
        let printer = Printer(monitor: monitor, out: out, note: note)
        pipeline.sink = printer
        let runner = try LiveRunner(loop: loop, pipeline: pipeline)
        let stops = try loop.stopOnSignals(after: options.duration, context: "events --duration")
        pipeline.start()
        runner.rearm()
        _ = try loop.run()
        withExtendedLifetime((runner, stops)) {}
        out(monitor.finish())
        return monitor.reports
    }

    /// The devices the config forces in (`input.match_name`), as the daemon takes them.
    static func forceRules(_ configuration: Configuration) -> TouchscreenClassifier.ForceRules {
        var force = TouchscreenClassifier.ForceRules()
        if !configuration.inputMatchName.isEmpty { force.nameContains = [configuration.inputMatchName] }
        return force
    }

    /// The first node of `directory` flickd would take as a touchscreen (`flickd list-devices`).
    /// - Throws: `InputDeviceError` when there is none.
    public static func firstTouchscreen(in directory: String, force: TouchscreenClassifier.ForceRules = .init()) throws -> String {
        guard let report = DeviceInventory.list(directory: directory, force: force).first(where: \.verdict.isTouchscreen) else {
            throw InputDeviceError(path: directory, reason: "no touchscreen found (see flickd list-devices); name the device")
        }
        return report.path
    }

    private static func build(output: HeadlessOutput, logical: PixelSize, input: PipelineBuilder.Input, content path: String,
                              configuration: Configuration, at t: Instant) throws -> Pipeline {
        // Tiles made as frames need them, as in a replay: the gestures, not the frames, are shown.
        let content = try ContentLoader.load(path: path, view: logical, configuration: configuration, workers: 0)
        return try PipelineBuilder(configuration: configuration).build(output: output, content: content.content, input: input, at: t)
    }

    /// The gestures, among the contact lines, in the journal's words.
    private final class Printer: PipelineSink {
        let monitor: EventsMonitor
        let out: (String) -> Void
        let note: (String) -> Void

        init(monitor: EventsMonitor, out: @escaping (String) -> Void, note: @escaping (String) -> Void) {
            self.monitor = monitor
            self.out = out
            self.note = note
        }

        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            for output in outputs {
                if case .diagnostic(let text) = output.kind { note(text) }
                if let entry = GestureLog.entry(for: output, view: view) {
                    out("\(monitor.stamp(output.time))  gesture: \(entry.message)")
                }
            }
        }

        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}

        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}
    }
}

extension EventLoop {
    /// Makes SIGINT, SIGTERM and, if given, the end of `duration` from now end `run()` with
    /// status 0: how the command-line tools stop. Keep the result while the loop runs.
    /// - Throws: `SystemError` when a signal or the timer cannot be watched.
    func stopOnSignals(after duration: Duration?, context: String) throws(SystemError) -> [AnyObject] {
        let timer = try addTimer(context: context) { [unowned self] _ in exit(code: 0) }
        timer.schedule(at: duration.map { now + $0 })
        return [try addSignal(SIGINT) { [unowned self] in exit(code: 0) },
                try addSignal(SIGTERM) { [unowned self] in exit(code: 0) }, timer]
    }
}
