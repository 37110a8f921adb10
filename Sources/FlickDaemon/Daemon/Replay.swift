import FlickControl
import FlickCore
import FlickDisplay
import FlickInput
import FoundationEssentials

/// `flickd replay`: a recording played on a virtual clock as fast as possible, on the headless
/// backend, through the same decoder, recogniser, model, session and compositor as a live run.
/// It ends once the last motion has come to rest.
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
        /// Frames composed.
        public var frames: Int
        /// Outputs published (gestures, content touches, delegate events).
        public var events: Int
        /// Final offset and zoom.
        public var offset: Point
        public var zoomScale: Double
        /// PNG files written.
        public var snapshots: Int
        /// Whether it stopped at `Options.settleLimit` with something still moving.
        public var stillMoving: Bool
    }

    /// A replay that could not start.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs a replay.
    /// - Parameters:
    ///   - options: the recording and outputs.
    ///   - configuration: the tunables (as `run` would use them).
    ///   - emit: receives every output with the view after it (JSON lines, logs).
    ///   - note: receives diagnostics worth a line on stderr.
    /// - Throws: `Failure` saying what could not be loaded.
    public static func run(_ options: Options, configuration: Configuration,
                           emit: @escaping (GestureOutput, ScrollView) -> Void,
                           note: @escaping (String) -> Void) throws -> Summary {
        let recording: EvemuRecording
        do {
            recording = try EvemuRecording.load(path: options.recording)
        } catch {
            throw Failure(description: error.description)
        }
        for warning in recording.warnings { note("warning: \(warning)") }
        let verdict = TouchscreenClassifier.verdict(for: recording)
        guard verdict.isTouchscreen else {
            throw Failure(description: "\(options.recording): '\(recording.description.name)' is not a touchscreen: \(verdict.reason)")
        }
        let rotation = configuration.panelRotation
        let logical = options.size.map { rotation.logicalSize(panel: $0) }
            ?? PixelSize(size: RecordingSource.panelSize(for: recording.description))
        let panel = rotation.logicalSize(panel: logical)   // a quarter turn back is the same swap
        let capture: HeadlessOutput.Capture = options.snapshotDirectory.map { .everyFrame(directory: $0) } ?? .never
        if let dir = options.snapshotDirectory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        guard let output = HeadlessOutput(size: panel, refreshRate: configuration.headlessRefreshRate, capture: capture) else {
            throw Failure(description: "cannot allocate a headless display of \(panel)")
        }
        let content = try ContentLoader.load(path: options.content ?? configuration.contentPath, view: logical,
                                             configuration: configuration)
        let display = DisplayTarget(output: output, compositor: Compositor(rotation: rotation,
                                                                            indicatorStyle: configuration.effectiveIndicatorStyle),
                                    content: content.content, background: configuration.background)
        var view: ScrollView
        do {
            view = try ScrollView(boundsSize: display.viewSize, contentSize: content.content.size)
            try configuration.apply(to: &view)
        } catch {
            throw Failure(description: "\(error)")
        }
        let start = Instant.zero
        let source: RecordingSource
        do {
            source = try RecordingSource(recording: recording, mapping: configuration.touchMapping,
                                         outputSize: display.viewSize, start: start)
        } catch {
            throw Failure(description: error.description)
        }
        var gestures = configuration.gestureConfiguration
        gestures.pixelsPerMillimetre = source.pixelsPerMillimetre
        let session = Session(recognizer: GestureRecognizer(scrollView: view, configuration: gestures), target: display, at: start)
        var events = 0
        session.publish = { output, view in
            events += 1
            emit(output, view)
        }
        session.report = note
        display.report = note
        session.start()
        let recorded = (recording.events.last?.time ?? .zero) - (recording.events.first?.time ?? .zero)
        let outcome = VirtualRunner.run(session, input: source, display: display, limit: start + recorded + options.settleLimit)
        for line in source.takeDiagnostics() { note(line) }
        let v = session.recognizer.scrollView
        return Summary(duration: outcome.end - start, frames: session.framesSubmitted, events: events,
                       offset: v.contentOffset, zoomScale: v.zoomScale, snapshots: output.capturedFiles.count,
                       stillMoving: outcome.hitLimit)
    }
}

extension PixelSize {
    /// Rounds a size to whole pixels (at least 1).
    init(size: Size) {
        self.init(width: max(1, Int(saturating: size.width.rounded())), height: max(1, Int(saturating: size.height.rounded())))
    }
}
