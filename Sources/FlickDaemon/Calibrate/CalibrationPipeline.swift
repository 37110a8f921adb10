import FlickCore
import FlickDisplay
import FlickSystem
import FlickInput

/// `flickd calibrate`'s pipeline: touches into the `CalibrationSession`, and the target it asks
/// for drawn as the frames of a `FramePresenter` (a `RenderState` showing a `TargetScreen`), run
/// by the daemon's own runners (`LiveRunner`, `VirtualRunner`). It has no scroll view: a frame
/// shows the targets, prepared at once and never stepped.
///
/// The run ends with an outcome — every touch, or why not — and from then on nothing is due
/// (`nextDeadline` is nil: a virtual run returns) and `finished` is called (a live loop exits).
final class CalibrationPipeline: RunnablePipeline {
    /// How the calibration ended.
    enum Outcome {
        /// One touch per target, in the targets' order.
        case touches([Point])
        /// A timeout, an interruption, the recording ending, or the display's error.
        case failed(any Error)
    }

    let input: any TouchSource
    let presenter: FramePresenter
    private(set) var now: Instant
    /// How the run ended; nil while it runs.
    private(set) var outcome: Outcome? {
        didSet { if oldValue == nil, outcome != nil { finished?() } }
    }
    /// Called once, when the outcome is known: a live loop exits there.
    var finished: (() -> Void)?
    /// The targets, logical view px.
    let targets: [Point]
    private var session: CalibrationSession
    private var screen: TargetScreen
    /// The output, keeping the error the presenter only notes: here a display that fails ends
    /// the command with its own error and status.
    private let display: ErrorKeepingOutput
    private let say: (String) -> Void

    /// Creates the pipeline on `output`, fed by `input`, at `t`.
    /// - Parameter say: receives each line for the user (targets, touches, refusals, notes).
    init(output: any Output, input: any TouchSource, targets: [Point], session: CalibrationSession,
         rotation: PanelRotation, at t: Instant, say: @escaping (String) -> Void) {
        display = ErrorKeepingOutput(output)
        let composer = FrameComposer(output: display, compositor: Compositor(rotation: rotation), content: nil)
        presenter = FramePresenter(composer: composer, background: TargetScreen.background, at: t)
        self.input = input
        self.targets = targets
        self.session = session
        self.say = say
        screen = TargetScreen(targets: targets, current: 0, done: 0, rotation: rotation)
        now = t
        presenter.delegate = self
    }

    /// The touches accepted so far.
    var accepted: Int { session.touches.count }

    /// The recording, when the touches come from one: it can run out.
    private var recording: RecordingSource? { input as? RecordingSource }

    /// Shows the first target, and does what is due already.
    func start() {
        report(session.start(at: now))
        dispatch(now: now)
    }

    /// Ends the run with `error` (an interruption).
    func fail(_ error: any Error) {
        outcome = .failed(error)
    }

    // MARK: The loop's side

    var fileDescriptors: [Descriptor] {
        input.fileDescriptors + [presenter.fileDescriptor].compactMap { $0 }
    }

    var nextDeadline: Instant? {
        guard outcome == nil else { return nil }
        return [input.nextDeadline, session.nextDeadline, presenter.nextDeadline].compactMap { $0 }.min()
    }

    /// Everything due at `t`: the touches, the session's deadline, the display.
    func dispatch(now t: Instant) {
        if t > now { now = t }
        var steps: [CalibrationSession.Step] = []
        for frame in input.dispatch(now: now) { steps += session.handle(.frame(frame)) }
        if let deadline = session.nextDeadline, deadline <= now { steps += session.handle(.timer(now)) }
        report(steps)
        for note in recording?.takeDiagnostics() ?? [] { say("input: \(note)") }
        presenter.setNeedsDisplay(at: now)
        if outcome == nil && recording?.isFinished == true {
            outcome = .failed(CalibrationError.inputEnded(source: input.name, accepted: accepted, of: targets.count))
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
            case let .accepted(i, touch):
                say("touch \(i + 1)/\(n) at (\(touch.x.fixed(1)), \(touch.y.fixed(1)))")
            case let .ignored(i, why):
                say("target \(i + 1)/\(n): ignored \(why)")
            case let .refused(i, why):
                say("target \(i + 1)/\(n): refused \(why); lift every finger and touch the target again")
            case .finished(let touches):
                screen.current = nil
                screen.done = n
                outcome = .touches(touches)
            case .timedOut(let i):
                outcome = .failed(CalibrationError.timedOut(target: i, of: n, seconds: session.settings.timeout.inSeconds))
            }
        }
    }
}

// MARK: Frames

extension CalibrationPipeline: FramePresenterDelegate {
    func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState {
        let view = presenter.viewSize
        var state = RenderState(boundsSize: view, contentSize: view)
        state.targetScreen = screen
        return state
    }

    /// The targets stand still: a frame is asked for only when they change.
    func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant? { nil }

    func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant) {}

    func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note) {
        switch note {
        case .frameRefused, .outputFailed:
            // The daemon draws on after a refused frame; a calibration that cannot show its
            // target would only time out, so it ends with the display's error.
            if let error = display.takeFailure() { outcome = .failed(error) }
        case .frameLate, .planesGivenUp, .transition, .outputNote:
            // Never latched, never on planes, never traced; never scanned out, so never panned.
            break
        case .flipLost:
            // Committed anew: the target is still shown.
            break
        }
    }
}

/// An output that keeps the last error it threw, for the one caller that needs the error
/// itself where the presenter passes on only its text.
private final class ErrorKeepingOutput: ForwardingOutput {
    private var failure: (any Error)?

    /// The last error thrown since the last call, if any.
    func takeFailure() -> (any Error)? {
        defer { failure = nil }
        return failure
    }

    override func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        try keeping { try super.withBackBuffer(body) }
    }

    override func commit(_ layers: FrameLayers, now: Instant) throws {
        try keeping { try super.commit(layers, now: now) }
    }

    override func dispatch(now: Instant) throws -> [OutputEvent] {
        try keeping { try super.dispatch(now: now) }
    }

    private func keeping<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch {
            failure = error
            throw error
        }
    }
}
