import FlickCore
import FlickDisplay
import FlickInput

/// Assembles the pipeline one way for every caller — `flickd run`, `flickd replay`, tests,
/// benchmarks, fuzzing: a live run and a replay differ only in their sources (devices or a
/// recording, the wall clock or a virtual one) and their output (a panel or headless).
///
/// From the config: the compositor (panel rotation, indicator style) and background, the
/// scroll view (physics, limits, insets, switches), the gesture tunables with the panel's
/// pixels per millimetre, and attract mode.
public struct PipelineBuilder {
    /// Where touches come from.
    public enum Input {
        /// The touchscreens found under /dev/input (or one device), with hotplug.
        case devices(TouchInputOptions, log: (String) -> Void)
        /// A recording, its first event at `start` (the loop's clock: real time or virtual).
        case recording(EvemuRecording, start: Instant)
        /// A source of the caller's own (tests, benchmarks); `pixelsPerMillimetre` sets the slop.
        case source(any TouchSource, pixelsPerMillimetre: Double?)
    }

    /// The tunables.
    public var configuration: Configuration

    /// Creates a builder for a config.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Builds the pipeline on `output`, showing `content`, fed by `input`, at time `t`.
    /// - Parameter restore: the offset and zoom to start from (the saved state), if any.
    /// - Throws: `ScrollViewError` when the config does not fit the model, `EvemuError` when the
    ///   recording has no axes.
    public func build(output: any Output, content: Content, input: Input, at t: Instant,
                      restore: (offset: Point, zoomScale: Double)? = nil) throws -> Pipeline {
        let compositor = Compositor(rotation: configuration.panelRotation, indicatorStyle: configuration.effectiveIndicatorStyle)
        let presenter = FramePresenter(composer: FrameComposer(output: output, compositor: compositor, content: content),
                                       background: configuration.background, at: t)
        var view = try ScrollView(boundsSize: presenter.viewSize, contentSize: content.size)
        try configuration.apply(to: &view)
        if let restore {
            try? view.setZoomScale(restore.zoomScale, animated: false, at: t)
            try? view.setContentOffset(view.clampedOffset(restore.offset), animated: false, at: t)
            _ = view.takeReports()
        }
        var gestures = configuration.gestureConfiguration
        let period = presenter.refreshPeriod.inSeconds
        if period > 0 { gestures.refreshRate = 1 / period }
        let source: any TouchSource
        switch input {
        case let .devices(options, log):
            var options = options
            options.outputSize = presenter.viewSize
            options.mapping = configuration.touchMapping
            options.minimumTouchDuration = configuration.minimumTouchDuration
            let live = TouchInput(options: options, log: log)
            gestures.pixelsPerMillimetre = live.pixelsPerMillimetre
            source = live
        case let .recording(recording, start):
            let replay = try RecordingSource(recording: recording, mapping: configuration.touchMapping,
                                             outputSize: presenter.viewSize, start: start,
                                             minimumTouchDuration: configuration.minimumTouchDuration)
            gestures.pixelsPerMillimetre = replay.pixelsPerMillimetre
            source = replay
        case let .source(custom, pixelsPerMillimetre):
            gestures.pixelsPerMillimetre = pixelsPerMillimetre
            source = custom
        }
        let pipeline = Pipeline(recognizer: GestureRecognizer(scrollView: view, configuration: gestures),
                                presenter: presenter, input: source, at: t)
        pipeline.attractMode = Self.attractMode(configuration, view: view)
        pipeline.conditioning = Self.conditioning(configuration)
        presenter.frameLead = configuration.frameLead
        pipeline.touchOverlay = configuration.touchOverlay
        return pipeline
    }

    /// Smoothing and resampling as the config asks.
    public static func conditioning(_ configuration: Configuration) -> TouchConditioning {
        TouchConditioning(smoothing: configuration.touchSmoothing, maximumPrediction: configuration.touchPrediction)
    }

    /// Attract mode as the config asks, or nil when it is off.
    public static func attractMode(_ configuration: Configuration, view: ScrollView) -> AttractMode? {
        guard configuration.idleResetSeconds > 0 else { return nil }
        let home = AttractMode.home(of: view)
        return AttractMode(delay: .seconds(double: configuration.idleResetSeconds), offset: home.offset,
                         zoomScale: home.zoomScale)
    }
}
