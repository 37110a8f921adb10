import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FoundationEssentials

/// `flickd replay`: a recording played on a virtual clock as fast as possible, on the headless
/// backend, through the same pipeline a live run builds (`PipelineBuilder`): decoder,
/// recogniser, model, frame presenter and compositor. It ends once the last motion has come to
/// rest. What the pipeline emits goes to the caller's sink.
public enum Replay {
    /// What to replay and how.
    public struct Options: Sendable {
        /// The evemu recording.
        public var recording: String
        /// The headless size; by default the recorded panel's.
        public var size: PixelSize?
        /// Content to show; by default the config's, else a test pattern.
        public var content: String?
        /// Where to write every frame as PNG, if anywhere.
        public var snapshotDirectory: String?
        /// How long after the recording's last event a replay may run before it stops with
        /// something still moving: a config whose motion never settles (a deceleration rate a
        /// hair below 1) must not keep a replay going for ever.
        public var settleLimit: Duration = .seconds(600)
        /// Whether every machine's steps are emitted (`--trace`).
        public var tracing = false
        /// The wall clock at the recording's first event, seconds since 1970 (UTC), and the
        /// zone `power.on_hours` is read in: never the machine's, so a recording and a config
        /// replay the same anywhere, at any hour (`--wall-clock`, `--time-zone`).
        public var wallClock = PowerEnvironment.defaultWallClock
        public var timeZone = FixedOffsetZone.utc

        /// Creates options.
        public init(recording: String, size: PixelSize? = nil, content: String? = nil, snapshotDirectory: String? = nil) {
            self.recording = recording
            self.size = size
            self.content = content
            self.snapshotDirectory = snapshotDirectory
        }
    }

    /// How a replay went.
    public struct Summary: Sendable {
        /// Virtual time from the first event to rest.
        public var duration: Duration
        /// Frames composed or scanned out.
        public var frames: Int
        /// Outputs emitted (gestures, content touches, delegate events; not trace lines).
        public var events: Int
        /// Final offset and zoom.
        public var offset: Point
        public var zoomScale: Double
        /// PNG files written.
        public var snapshots: Int
        /// Whether it stopped at `Options.settleLimit` with something still moving.
        public var stillMoving: Bool
    }

    /// A replay that could not start for a reason of its own (the other errors are thrown as
    /// they come: the recording's, the content's, the pipeline's).
    public struct Failure: FlickError {
        public var context: ErrorContext
        public var kind: ErrorKind
    }

    /// Runs a replay.
    /// - Parameters:
    ///   - options: the recording and outputs.
    ///   - configuration: the tunables (as `run` would use them).
    ///   - sink: receives everything the pipeline emits and notes.
    ///   - note: receives warnings about the recording worth a line on stderr.
    /// - Throws: `Failure` saying what could not be loaded.
    public static func run(_ options: Options, configuration: Configuration, sink: any PipelineSink,
                           note: (String) -> Void) throws -> Summary {
        let recording = try touchscreenRecording(options.recording, note: note)
        let capture: HeadlessOutput.Capture = options.snapshotDirectory.map { .everyFrame(directory: $0) } ?? .never
        if let dir = options.snapshotDirectory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        let (output, logical) = try headless(panel: options.size, device: recording.description, configuration: configuration,
                                             capture: capture)
        // Tiles made as frames need them: a replay shows the same frames every run.
        let content = try ContentLoader.load(path: options.content ?? configuration.contentPath, view: logical,
                                             configuration: configuration, workers: 0)
        let start = Instant.zero
        var builder = PipelineBuilder(configuration: configuration)
        builder.powerEnvironment = .withoutBacklight(at: start, wallClock: options.wallClock, zone: options.timeZone)
        let pipeline = try builder.build(output: output, content: content.content, input: .recording(recording, start: start), at: start)
        let counter = Counter(sink)
        pipeline.sink = counter
        pipeline.tracing = options.tracing
        pipeline.start()
        let recorded = (recording.events.last?.time ?? .zero) - (recording.events.first?.time ?? .zero)
        let outcome = VirtualRunner.run(pipeline, limit: start + recorded + options.settleLimit)
        if let source = pipeline.input as? RecordingSource {
            for line in source.takeDiagnostics() { note(line) }
        }
        let v = pipeline.scrollView
        return Summary(duration: outcome.end - start, frames: pipeline.presenter.composer.committedFrameCount,
                       events: counter.events, offset: v.contentOffset, zoomScale: v.zoomScale,
                       snapshots: output.capturedFiles.count, stillMoving: outcome.hitLimit)
    }

    /// Loads a recording and checks it is of a touchscreen; its warnings go to `note`.
    /// - Throws: the recording's `EvemuError`, or `Failure` when it is of another kind of device.
    static func touchscreenRecording(_ path: String, note: (String) -> Void) throws -> EvemuRecording {
        let recording = try EvemuRecording.load(path: path)
        for warning in recording.warnings { note("warning: \(warning)") }
        // Judged as the live daemon judges the device: by its capabilities. Touches that carry no
        // position (a real fault of some panels) are then dropped by the decoder, as live.
        let verdict = TouchscreenClassifier.verdict(for: recording.description)
        guard verdict.isTouchscreen else {
            throw Failure(context: ErrorContext(source: path,
                                                reason: "'\(recording.description.name)' is not a touchscreen: \(verdict.reason)"),
                          kind: .data)
        }
        return recording
    }

    /// A headless display of `panel` pixels, by default the size `device`'s axes suggest, and
    /// the logical view on it (the panel rotation of the config applied).
    /// - Throws: `Failure` when the display cannot be allocated.
    static func headless(panel size: PixelSize?, device: DeviceDescription, configuration: Configuration,
                         capture: HeadlessOutput.Capture = .never) throws -> (HeadlessOutput, logical: PixelSize) {
        let rotation = configuration.panelRotation
        let logical = size.map { rotation.logicalSize(panel: $0) } ?? PixelSize(size: RecordingSource.panelSize(for: device))
        let panel = rotation.logicalSize(panel: logical)   // a quarter turn back is the same swap
        guard let output = HeadlessOutput(size: panel, refreshRate: configuration.headlessRefreshRate, capture: capture) else {
            throw Failure(context: ErrorContext(source: "display", reason: "cannot allocate a headless display of \(panel)"),
                          kind: .unavailable)
        }
        return (output, logical)
    }

    /// Passes everything on to the caller's sink, counting the events.
    private final class Counter: PipelineSink {
        let sink: any PipelineSink
        var events = 0

        init(_ sink: any PipelineSink) { self.sink = sink }

        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
            events += outputs.count { $0.isEvent }
            sink.pipeline(pipeline, emitted: outputs, view: view)
        }

        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
            sink.pipeline(pipeline, presentedAt: vblank)
        }

        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
            sink.pipeline(pipeline, noted: notice)
        }
    }
}

extension GestureOutput {
    /// Whether it is something clients and the journal hear of (a content touch, a delegate
    /// message, a gesture), as opposed to a trace line or a diagnostic.
    public var isEvent: Bool {
        switch kind {
        case .content, .scroll, .state, .gesture: true
        case .transition, .diagnostic: false
        }
    }
}

extension PixelSize {
    /// Rounds a size to whole pixels (at least 1).
    init(size: Size) {
        self.init(width: max(1, Int(saturating: size.width.rounded())), height: max(1, Int(saturating: size.height.rounded())))
    }
}
