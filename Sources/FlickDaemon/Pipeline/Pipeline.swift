import FlickCore
import FlickSystem
import FlickDisplay

/// The daemon between input, model, display and clients, with no I/O and no clock of its own:
/// the one way through the house (docs/ARCHITECTURE.md, "The path of one touch").
///
/// A loop waits on `fileDescriptors` and `nextDeadline` and calls `dispatch(now:)`, which does
/// everything due at that time in one order: the input's frames through the recogniser, the
/// gesture timers, attract mode, then the display (its presentations, and the frame for the
/// next vblank). Control commands come in through `update(at:_:)`. Everything the recogniser
/// returns goes to the sink, in order, once — after the frame is queued, so the journal and the
/// subscribers never stand between a touch and its flip. Notices (attract mode sending the view
/// home, a refused frame) are not the recogniser's and go to the sink at once.
/// The live loop (sd-event, `LiveRunner`) and the replay loop (virtual time, `VirtualRunner`)
/// drive the same pipeline; `PipelineBuilder` assembles it the same way for both.
public final class Pipeline {
    /// The recogniser and, inside it, the scroll view.
    public internal(set) var recognizer: GestureRecognizer
    /// The one owner of what is shown when.
    public let presenter: FramePresenter
    /// Where touches come from.
    public let input: any TouchSource
    /// Where everything the pipeline has to say goes.
    public weak var sink: (any PipelineSink)?
    /// Attract mode, when the config turns it on.
    public var attractMode: AttractMode?
    /// Display power, when the config turns it on (`[power]`, docs/power.md), and what it
    /// needs from the world (the backlight, the zone, the wall clock; set before `apply`).
    public internal(set) var power: PanelPower?
    public var powerEnvironment: PowerEnvironment?
    /// How content is framed: the zoom limits that follow it, its home view, centring. Worked
    /// out again for each content shown (`present`).
    public var framing = ContentFraming()
    /// The fingers on their way to the recogniser and to each frame: smoothed, and resampled
    /// to each frame's presentation time (`TouchPrediction`).
    public internal(set) var prediction = TouchPrediction()
    /// Smoothing and resampling as the config asks (`input.smoothing`, `input.resample`): the
    /// prediction's stages. Setting them (a reload) keeps what the frames showed so far.
    public var conditioning: TouchConditioning {
        get { prediction.conditioning }
        set { prediction.conditioning = newValue }
    }
    /// The latest time the pipeline has been told of.
    public private(set) var now: Instant
    /// Whether every machine's steps are emitted (`flickd replay --trace`, debug logs).
    public var tracing = false {
        didSet {
            recognizer.tracing = tracing
            presenter.tracing = tracing
            input.tracing = tracing
        }
    }

    /// Whether the touch overlay shows dots and trails under the fingers (`debug.touch_overlay`,
    /// `touch-overlay on|off`).
    public var touchOverlay = false {
        didSet {
            guard touchOverlay != oldValue else { return }
            trails.removeAll()
            // Before the first frame (the builder applying the config) `start()` draws anyway.
            guard presenter.shown != nil else { return }
            presenter.setNeedsDisplay(at: now, redraw: true)
            flush()
        }
    }
    /// The touch overlay's marks, fed while it is on.
    var trails = TouchTrails()
    /// Whether a tapped link flashes (`content.link_highlight`).
    public var linkHighlight = true
    /// The tapped link's flash.
    var linkFlash = LinkFlash()
    /// Fingers that touched the panel since start, each contact once, the one that woke it
    /// included (phantoms never reach here).
    public private(set) var touchCount = 0

    /// The last touch or command: attract mode counts from here.
    var lastActivity: Instant
    /// What the current dispatch or command caused, each batch with the view after it; handed
    /// to the sink once the display has had its turn.
    private var pending: [(outputs: [GestureOutput], view: ScrollView)] = []
    /// Whether `start` ran: before it nothing asks for a frame.
    private var started = false
    /// The stream's clock: what is kept is stamped no earlier than what came before (see `emit`).
    private var clock = OutputClock()
    /// The stream's latest time: what is noted beside the outputs (a `power` event) is stamped
    /// no earlier.
    var streamTime: Instant? { clock.latest }

    /// Creates a pipeline; `start()` draws its first frame.
    public init(recognizer: GestureRecognizer, presenter: FramePresenter, input: any TouchSource, at t: Instant) {
        self.recognizer = recognizer
        self.presenter = presenter
        self.input = input
        now = t
        lastActivity = t
        presenter.delegate = self
    }

    /// The scroll view.
    public var scrollView: ScrollView { recognizer.scrollView }

    /// Draws the first frame (the daemon is ready once it is presented).
    public func start() {
        started = true
        presenter.setNeedsDisplay(at: now, redraw: true)
        // After the first frame is queued (the daemon is ready when it is shown): the hours
        // may say off from the start.
        if power != nil { startPower() }
        flush()
    }

    // MARK: The loop's side

    /// Descriptors the loop watches for readability: the input devices (and their hotplug
    /// watch), the display's (DRM), the tiles' and the band's. They may change after
    /// `dispatch(now:)` or when content is shown.
    public var fileDescriptors: [Descriptor] {
        input.fileDescriptors + [presenter.fileDescriptor, tiles?.fileDescriptor, presenter.composer.fileDescriptor].compactMap { $0 }
    }

    /// The content's tiles, when it is tiled.
    public var tiles: TileStore? { presenter.composer.content?.tiles }

    /// When the loop must call `dispatch(now:)` next without an fd, if ever: a recording's next
    /// event, a virtual vblank, a frame the model asked for, a gesture timer, attract mode. Nil
    /// means idle: no timer at all.
    public var nextDeadline: Instant? {
        // Dark: the recording's next event, a frame in flight, the schedule — nothing else.
        // (Power's own code runs only when there is power: an ordinary frame never enters it.)
        if power?.isOff == true {
            return [input.nextDeadline, presenter.nextDeadline, power?.nextDeadline, unseenMotionEnd].compactMap { $0 }.min()
        }
        return [input.nextDeadline, presenter.nextDeadline, recognizer.nextDeadline, attractModeDeadline, tiles?.nextDeadline,
                power?.nextDeadline, unseenMotionEnd].compactMap { $0 }.min()
    }

    /// With no panel, the end of the model's motion: no frame steps it (`presenter(_:frameFor:)`
    /// is the only place that does), so the loop wakes once, at its end, to finish it there
    /// rather than leave it standing where it began until a panel comes.
    var unseenMotionEnd: Instant? { presenter.output.isConnected ? nil : scrollView.motionEnd }

    /// Does everything due at `t`, in order: the input's frames, the gesture timers, attract
    /// mode, then the display (its presentations, and the frame for the next vblank).
    public func dispatch(now t: Instant) {
        observe(t)
        syncLinks()
        let frames = input.dispatch(now: now)
        // A Wayland seat's wheel, touchpad scrolls and pinches, each before the first frame it
        // precedes.
        var pointer = (input as? any PointerSource)?.takePointerInputs()[...] ?? []
        // The decoders' steps go in among the frames, each before the first frame it precedes.
        var steps = input.takeTransitions()[...]
        for raw in frames {
            if !pointer.isEmpty { pointer = handlePointer(pointer, before: raw.time) }
            let due = steps.prefix { $0.time <= raw.time }
            emit(due.map { GestureOutput(time: $0.time, kind: .transition($0)) })
            steps = steps.dropFirst(due.count)
            observe(raw.time)
            touchCount &+= raw.began.count
            // The touch that wakes the panel, and those within the guard, are nobody's.
            if power != nil, powerSwallows(raw) { continue }
            lastActivity = max(lastActivity, raw.time)
            // The overlay shows what the panel reported; the recogniser gets it smoothed.
            if touchOverlay { trails.add(raw) }
            emit(recognizer.handle(prediction.take(raw)))
        }
        emit(steps.map { GestureOutput(time: $0.time, kind: .transition($0)) })
        if !pointer.isEmpty { _ = handlePointer(pointer, before: nil) }
        emit(recognizer.fireTimers(upTo: now))
        if let end = unseenMotionEnd, end <= now { emit(recognizer.advance(to: end)) }
        if power != nil { powerTimers() }
        if power?.isOff != true, let reset = attractMode, let due = attractModeDeadline, due <= now {
            emit(recognizer.update(at: now) { [now] v in
                let home = reset.home(of: v)
                try? v.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: true, at: now)
            })
            sink?.pipeline(self, noted: .attractMode(seconds: reset.delay.inSeconds))
        }
        // Tiles that arrived change the picture, not the model: one redraw for all of them.
        tiles?.expire(now: now)
        let arrived = tiles?.takeArrivals() ?? 0
        let banded = presenter.composer.takeBandFill()
        presenter.setNeedsDisplay(at: now, redraw: arrived > 0 || banded)
        for failure in tiles?.takeFailures() ?? [] { sink?.pipeline(self, noted: .tile("\(failure)")) }
        for warning in tiles?.takeWarnings() ?? [] { sink?.pipeline(self, noted: .reducedPage("\(warning)")) }
        if tiles?.takeStartedPacing() == true { sink?.pipeline(self, noted: .redrawsPaced) }
        flush()
    }

    // MARK: From outside

    /// Applies a programmatic change (a control command, a reload) at `t`.
    public func update<T>(at t: Instant, _ body: (inout ScrollView) throws -> T) rethrows -> T {
        observe(t)
        lastActivity = max(lastActivity, now)
        if power != nil { powerActivity(at: now) }
        var result: T?
        let outputs = try recognizer.update(at: now) { result = try body(&$0) }
        emit(outputs)
        // Before `start` (the config applied as the pipeline is built) the first frame is start's.
        if started { presenter.setNeedsDisplay(at: now) }
        flush()
        // The body ran (it did not throw), so it returned a value.
        return result!
    }

    /// Leaves the touch of finger `contact` to the content to its end (a control client's
    /// `claim`) at `t`.
    /// - Returns: why not, when the content does not have that touch.
    public func claim(_ contact: ContactID, at t: Instant) -> ContentTouchClaimRefusal? {
        observe(t)
        let (refusal, outputs) = recognizer.claim(contact, at: now)
        emit(outputs)
        flush()
        return refusal
    }

    /// Shows other content from the next frame on (its size and home position are an
    /// `update` of the caller's). What the frame's step of the model caused goes to the sink now.
    public func show(_ content: Content?, at t: Instant) {
        observe(t)
        presenter.show(content, at: now)
        syncLinks()
        flush()
    }

    /// Hands the recogniser the links of the content on screen, with those its source found
    /// since (a document's pages drawn in a replay): a tap tests them before the content hears it.
    func syncLinks() {
        guard let content = presenter.composer.content else {
            recognizer.links = DocumentLinks()
            return
        }
        for found in content.tiles?.source.takeLinks() ?? [] { content.links.add(page: found.page, links: found.links) }
        // Equal tables share their storage, so this is cheap at every wake-up.
        if content.links != recognizer.links { recognizer.links = content.links }
    }

    /// Draws the next frame even if the model stands still: the content's pixels changed (an
    /// app invalidated some of them).
    public func contentChanged(at t: Instant) {
        observe(t)
        presenter.setNeedsDisplay(at: now, redraw: true)
        flush()
    }

    /// Changes the colours and the indicators' look from the next frame on (a reload); drawn
    /// even when the model stands still.
    public func setAppearance(background: Color, indicatorStyle: IndicatorStyle, at t: Instant) {
        observe(t)
        presenter.setAppearance(background: background, indicatorStyle: indicatorStyle, at: now, redraw: started)
        flush()
    }

    /// Replaces the gesture tunables (config reload); a gesture in progress keeps its own.
    public func setGestureConfiguration(_ configuration: GestureConfiguration) {
        recognizer.setConfiguration(configuration)
    }

    /// When attract mode sends the view home, if it will.
    private var attractModeDeadline: Instant? {
        attractMode?.deadline(lastActivity: lastActivity, view: recognizer.scrollView, touching: recognizer.isTouching)
    }

    /// Keeps outputs for the sink, with the view after them, each stamped no earlier than the
    /// one before: one clock for the whole stream, the recogniser's outputs and the decoders'
    /// and the presenter's steps alike (`OutputClock`).
    func emit(_ outputs: [GestureOutput]) {
        guard !outputs.isEmpty else { return }
        if linkHighlight { flashLinks(in: outputs) }
        var stamped = outputs
        clock.stamp(&stamped)
        pending.append((stamped, recognizer.scrollView))
    }

    /// Starts the flash of a link tapped among `outputs`: the area the recogniser followed.
    private func flashLinks(in outputs: [GestureOutput]) {
        for output in outputs {
            guard case let .gesture(.link(_, area)) = output.kind else { continue }
            linkFlash.flash(area.rect, at: output.time)
            presenter.setNeedsDisplay(at: now, redraw: true)
        }
    }

    /// Hands what was kept to the sink, in order.
    func flush() {
        guard !pending.isEmpty else { return }
        let batches = pending
        pending.removeAll(keepingCapacity: true)
        for batch in batches { sink?.pipeline(self, emitted: batch.outputs, view: batch.view) }
    }

    /// Moves the pipeline's time to `t`, never back.
    func observe(_ t: Instant) {
        if t > now { now = t }
    }
}
