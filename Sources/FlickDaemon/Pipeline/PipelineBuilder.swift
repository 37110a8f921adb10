import FlickCore
import FlickDisplay
import FlickInput

/// Assembles the pipeline one way for every caller — `flickd run`, `flickd replay`, tests,
/// benchmarks, fuzzing: a live run and a replay differ only in their sources (devices or a
/// recording, the wall clock or a virtual one) and their output (a panel or headless).
///
/// From the config: the compositor (panel rotation, indicator style sized for the panel) and background, the
/// scroll view (physics, limits, insets, switches), the gesture tunables with the panel's
/// pixels per millimetre, and attract mode. `apply(_:previous:to:at:)` is the one mapping of
/// the config onto a pipeline: `build` calls it once the parts exist, a reload calls it again.
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
    /// What display power needs from the world (the backlight, the zone, the wall clock); nil:
    /// no backlight and a fixed wall clock in UTC (`PowerEnvironment.withoutBacklight(at:)`):
    /// only the live daemon reads the machine's.
    public var powerEnvironment: PowerEnvironment?

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
        // The indicators' look and the background are `apply`'s: the rotation is the compositor's for good.
        let compositor = Compositor(rotation: configuration.panelRotation)
        let presenter = FramePresenter(composer: FrameComposer(output: output, compositor: compositor, content: content),
                                       background: .black, at: t)
        var view = try ScrollView(boundsSize: presenter.viewSize, contentSize: content.size)
        // The limits first (`apply` restates them): the saved position is restored within them.
        try configuration.apply(to: &view)
        if let restore {
            view.restore(offset: restore.offset, zoomScale: restore.zoomScale, at: t)
        } else {
            let home = configuration.framing.home(of: view)
            try view.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: false, at: t)
        }
        _ = view.takeReports()
        // The panel's facts; `apply` keeps them and sets the rest.
        var panel = GestureConfiguration()
        let period = presenter.refreshPeriod.inSeconds
        if period > 0 { panel.refreshRate = 1 / period }
        // Devices and recordings are opened with the config's touch settings (the touchscreen's
        // density comes from its mapped axes); `apply` gives them to any source, again at reload.
        let touch = TouchSettings(configuration)
        let source: any TouchSource
        switch input {
        case let .devices(options, log):
            var options = options
            options.outputSize = presenter.viewSize
            options.mapping = touch.mapping
            options.minimumTouchDuration = touch.minimumTouchDuration
            let live = TouchInput(options: options, log: log)
            panel.pixelsPerMillimetre = live.pixelsPerMillimetre
            source = live
        case let .recording(recording, start):
            let replay = try RecordingSource(recording: recording, mapping: touch.mapping, outputSize: presenter.viewSize,
                                             start: start, minimumTouchDuration: touch.minimumTouchDuration)
            panel.pixelsPerMillimetre = replay.pixelsPerMillimetre
            source = replay
        case let .source(custom, pixelsPerMillimetre):
            panel.pixelsPerMillimetre = pixelsPerMillimetre
            source = custom
        }
        let pipeline = Pipeline(recognizer: GestureRecognizer(scrollView: view, configuration: Self.gestures(configuration, panel: panel)),
                                presenter: presenter, input: source, at: t)
        pipeline.powerEnvironment = powerEnvironment
        try Self.apply(configuration, previous: nil, to: pipeline, at: t)
        return pipeline
    }

    /// Maps `configuration` onto `pipeline` at `t`: the one place a tunable reaches the running
    /// pipeline, the same at start (`previous` nil, from `build`) and at every reload
    /// (`previous` the config in force): the scroll view's limits and switches, the gestures,
    /// the background and the indicators (sized for the panel, else by the touchscreen's
    /// density), the touch settings, framing, attract mode, the overlay, smoothing and
    /// resampling, the frame lead and power. Tunables apply to the next gesture: the one in
    /// flight keeps its own (GestureRecognizer).
    /// - Throws: `ScrollViewError` when the config does not fit the model (nothing is applied).
    public static func apply(_ configuration: Configuration, previous: Configuration?, to pipeline: Pipeline,
                             at t: Instant) throws {
        try pipeline.update(at: t) { v throws in try configuration.apply(to: &v) }
        pipeline.setGestureConfiguration(gestures(configuration, panel: pipeline.recognizer.configuration))
        let style = indicatorStyle(configuration, output: pipeline.presenter.output,
                                   touch: pipeline.recognizer.configuration.pixelsPerMillimetre)
        pipeline.setAppearance(background: configuration.background, indicatorStyle: style, at: t)
        pipeline.input.configure(TouchSettings(configuration), outputSize: pipeline.presenter.viewSize)
        pipeline.framing = configuration.framing
        pipeline.attractMode = attractMode(configuration)
        pipeline.touchOverlay = configuration.touchOverlay
        pipeline.linkHighlight = configuration.linkHighlight
        if previous?.touchSmoothing != configuration.touchSmoothing || previous?.touchPrediction != configuration.touchPrediction {
            // Fingers already down start their filters afresh: at most a pixel's step, once.
            pipeline.conditioning = conditioning(configuration)
        }
        if previous?.frameLead != configuration.frameLead { pipeline.presenter.frameLead = configuration.frameLead }
        if previous?.power != configuration.power {
            pipeline.configurePower(configuration.power, reload: previous != nil, at: t)
        }
    }

    /// Puts `pipeline` on another panel (`output`), or on none (`DisconnectedOutput`), the
    /// config mapped onto it as at the start: the indicators sized for that panel, the
    /// touchscreen mapped onto its logical size, the gestures told its refresh rate
    /// (`Pipeline.attach`). `note` is the one line that says what changed.
    /// - Throws: `ScrollViewError` when the new size does not fit the model.
    public static func attach(_ output: any Output, configuration: Configuration, to pipeline: Pipeline, note: String,
                              at t: Instant) throws {
        let style = indicatorStyle(configuration, output: output, touch: pipeline.recognizer.configuration.pixelsPerMillimetre)
        var panel = pipeline.recognizer.configuration
        let period = output.refreshPeriod.inSeconds
        if output.isConnected, period > 0 {
            panel.refreshRate = 1 / period
            pipeline.setGestureConfiguration(gestures(configuration, panel: panel))
        }
        try pipeline.attach(output, indicatorStyle: style, note: note, at: t)
        pipeline.input.setOutputSize(pipeline.presenter.viewSize)
    }

    /// The config's gesture tunables with the panel's own facts (its pixels per millimetre and
    /// refresh rate) taken from `panel`.
    static func gestures(_ configuration: Configuration, panel: GestureConfiguration) -> GestureConfiguration {
        var gestures = configuration.gestureConfiguration
        gestures.pixelsPerMillimetre = panel.pixelsPerMillimetre
        gestures.refreshRate = panel.refreshRate
        return gestures
    }

    /// The indicators' look sized for the panel: its density from the output's millimetres
    /// (the DRM connector's, fbdev's, a headless panel's), else from the touchscreen's resolution
    /// (`touch`, screen pixels per millimetre of the glass over the panel), else unknown (the
    /// style's pixels).
    static func indicatorStyle(_ configuration: Configuration, output: any Output, touch: Double?) -> IndicatorStyle {
        configuration.effectiveIndicatorStyle(pixelsPerMillimetre: output.pixelsPerMillimetre ?? touch,
                                              panel: Size(width: Double(output.size.width), height: Double(output.size.height)))
    }

    /// Smoothing and resampling as the config asks.
    public static func conditioning(_ configuration: Configuration) -> TouchConditioning {
        TouchConditioning(smoothing: configuration.touchSmoothing, maximumPrediction: configuration.touchPrediction)
    }

    /// Attract mode as the config asks, or nil when it is off.
    public static func attractMode(_ configuration: Configuration) -> AttractMode? {
        guard configuration.idleResetSeconds > 0 else { return nil }
        return AttractMode(delay: .seconds(double: configuration.idleResetSeconds), framing: configuration.framing)
    }
}
