import FlickCore
import FlickSystem

/// What the frame presenter asks of the model side, and tells it. The pipeline answers, or
/// `flickd calibrate`'s, whose frames show its targets (`RenderState.targetScreen`).
public protocol FramePresenterDelegate: AnyObject {
    /// Steps the model's animations to `t`, the time the frame being prepared will be shown,
    /// and returns what that frame shows. Only the presenter calls it: once per frame.
    func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState
    /// When the model next needs a frame after one shown at `t`, if ever: `t` itself while it
    /// moves or fades (the next frame follows at once), the end of an indicator hold, or nil.
    func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant?
    /// Whether the frame shown at `t` is best prepared as late as the display allows
    /// (`FramePresenter.frameLead` before `t`) rather than at once: while fingers move the content
    /// and are resampled to each frame's time, what is prepared later is predicted over less.
    func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool
    /// A frame reached the screen at `vblank`.
    func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant)
    /// Something worth a log line, or (while tracing) a step of the presenter's machine.
    func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note)
}

extension FramePresenterDelegate {
    /// Frames are prepared at once unless the model says otherwise.
    public func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool { false }
}

/// The one owner of what is shown when: whether the display needs a frame, the frame in
/// flight, the last presentation (vblank) time and the next one, and stepping the model's
/// animations to the time a frame will be shown — exactly once per frame.
///
/// Everything that may change the picture says so with one call, `setNeedsDisplay(at:)`: input,
/// timers, control commands, config reloads, content that arrives later (with `redraw`, for
/// changes the model does not know of). With no frame in flight the presenter prepares one at
/// once for the next vblank and commits it if it differs from the one shown; with a frame in
/// flight it waits for its presentation, then prepares the next. While the model moves each
/// presentation brings the next frame; when a prepared frame shows nothing new the presenter
/// asks for a wake-up when the model wants its next frame (`nextDeadline`); at rest it asks for
/// nothing, and nothing wakes.
///
/// While the model follows fingers resampled to each frame's time (`latchesFrameFor`), the
/// frame for a vblank is prepared `frameLead` before it instead of at the previous
/// presentation ("late latching"): the positions are then predicted over a few milliseconds
/// rather than a refresh period. A latched frame that misses its vblank doubles the lead, up to
/// a refresh period (where it is as if it were not latched), and says so.
///
/// Its machine (`### frame` in docs/frame-presenter.md, held to the code by
/// `FramePresenterTableTests`): idle, a frame waiting for its time to be prepared, or a frame in flight.
public final class FramePresenter {
    /// Where presentation stands.
    public enum State: Hashable, Sendable {
        /// No frame in flight.
        case idle
        /// No frame in flight; the frame for `vblank` is prepared `frameLead` before it.
        case latching(vblank: Instant)
        /// A frame was committed; its presentation is awaited.
        case inFlight

        var name: String {
            switch self {
            case .idle: "idle"
            case .latching: "latching"
            case .inFlight: "inFlight"
            }
        }
    }

    /// The machine's alphabet: the names its table and its trace use.
    enum Event: String, Sendable {
        /// The one call: something may look different.
        case needsDisplay
        /// The wake-up the presenter asked for (the model's next frame, or a refused frame's retry).
        case wake
        /// The display showed the frame in flight.
        case presented
    }

    /// What the presenter has to say.
    public enum Note: Hashable, Sendable {
        /// A frame could not be committed; the next change is drawn afresh.
        case frameRefused(String)
        /// A latched frame missed its vblank; the lead was widened.
        case frameLate(String)
        /// The overlay planes failed once and were given up: every frame is composed from now on.
        case planesGivenUp(String)
        /// Reading the display's events failed.
        case outputFailed(String)
        /// The display said something once (`OutputEvent.note`).
        case outputNote(String)
        /// The frame in flight's flip was never reported: it is taken as shown and the next frame
        /// committed anew.
        case flipLost(String)
        /// A step of the presenter's machine (only while tracing).
        case transition(Transition)
    }

    /// The drawing half: output, compositor, content. A new one for each output attached
    /// (`attach(_:at:)`), around the same compositor and content.
    public private(set) var composer: FrameComposer
    /// The model side.
    public weak var delegate: (any FramePresenterDelegate)?
    /// Whether the machine's steps are noted.
    public var tracing = false
    /// The colour outside the content.
    public private(set) var background: Color
    /// Where presentation stands.
    public private(set) var state = State.idle
    /// When the last frame reached the screen.
    public private(set) var lastPresentation: Instant?
    /// The latest time the presenter has been told of.
    public private(set) var now: Instant
    /// How long before its vblank a latched frame is prepared: the time composing and committing
    /// it takes, with room to spare (`input.resample_lead_ms`); zero prepares every frame at once.
    public var frameLead: Duration = .zero {
        didSet { lead = frameLead }
    }
    /// The lead in force: `frameLead`, widened by latched frames that missed their vblank.
    public private(set) var lead: Duration = .zero
    /// Whether the panel is dark (display power): no frame is prepared or committed and no
    /// wake-up is asked for, except to hear of a frame already in flight. Lifting it draws
    /// the next frame afresh, whatever the model did meanwhile.
    public var isSuspended = false {
        didSet {
            guard isSuspended != oldValue else { return }
            if case .latching = state { state = .idle }
            if !isSuspended {
                appearance &+= 1
                shown = nil
                retry = nil
            }
        }
    }

    /// What the last committed frame shows.
    public private(set) var shown: RenderState?
    /// Whether the panel shows the last frame prepared: none in flight, none waiting for its
    /// time or for a retry after a refusal. Otherwise what the model shows now is not on the
    /// panel yet.
    public var showsLatestFrame: Bool { state == .idle && retry == nil && !output.isFlipPending }
    /// The presentation time of the last frame prepared, committed or not (nil before the
    /// first): the model's next frame is asked for relative to it, so a frame already prepared
    /// is not asked for again.
    private var preparedFor: Instant?
    /// Bumped by every redraw the model does not know of.
    private var appearance = 0
    /// After the display refused a frame: when to try again, and how long to wait after that
    /// if it refuses again (one refresh period at first, doubling to a second), so a frame the
    /// display refused once is still drawn with nothing else changing, and a display that
    /// refuses every frame is not asked sixty times a second.
    private var retry: (at: Instant, backoff: Duration)?
    /// The vblank the latched frame in flight was prepared for.
    private var latchedFor: Instant?
    /// The vblank the frame in flight was prepared for, when the vblanks' phase was known.
    private var committedFor: Instant?
    /// Whether the last frame presented reached the panel a refresh or more after the vblank it
    /// was prepared for (the fleet's `flickd_frames_late_total`).
    public private(set) var lastPresentationWasLate = false
    /// When the frame in flight was committed: its flip is given up as lost `flipTimeout` later.
    private var committedAt: Instant?
    /// How many refresh periods a flip may take before it is taken as lost: a driver reports
    /// a flip at the vblank after the commit, so four periods is a flip that will not come.
    static let flipTimeoutPeriods = 4

    /// Creates a presenter; nothing is drawn before the first `setNeedsDisplay(at:)`.
    public init(composer: FrameComposer, background: Color, at t: Instant) {
        self.composer = composer
        self.background = background
        now = t
    }

    /// The output.
    public var output: any Output { composer.output }
    /// The time between two vblanks.
    public var refreshPeriod: Duration { output.refreshPeriod }
    /// The logical view size, in screen pixels (after panel rotation).
    public var viewSize: Size { composer.viewSize.size }
    /// The display's fd to watch for readability (DRM), if it has one.
    public var fileDescriptor: Descriptor? { output.pollDescriptor }

    /// How long a flip may take before it is taken as lost (`Note.flipLost`): four refresh
    /// periods, doubled each time a flip given up as lost turned out late instead (the display
    /// refused the next commit as busy, and reported the flip after all), up to a second: a slow
    /// or emulated machine learns its own pace instead of fighting a busy CRTC.
    public var flipTimeout: Duration { min(refreshPeriod * (Self.flipTimeoutPeriods << lateFlips), .seconds(1)) }
    /// Flips given up as lost that were only late.
    private var lateFlips = 0

    /// When the presenter must be dispatched next without its fd, if ever: the headless
    /// output's virtual vblank (or, on a display whose flips come through its fd, the time its
    /// flip is given up as lost), or with none in flight the model's next frame or a refused
    /// frame's retry. Nil with no panel connected: nothing is drawn, so nothing is waited for.
    public var nextDeadline: Instant? {
        if isSuspended { return state == .inFlight ? output.nextDeadline : nil }
        guard output.isConnected else { return nil }
        switch state {
        case .inFlight:
            // A compositor's window may wait unseen for its frame callback: nothing is lost then.
            let lost = output.flipsCanWaitIndefinitely ? nil : committedAt.map { $0 + flipTimeout }
            guard let vblank = output.nextDeadline else { return lost }
            return lost.map { min($0, vblank) } ?? vblank
        case let .latching(vblank):
            return vblank - lead
        case .idle:
            // After a refusal the retry's backoff paces the display, even while the model moves:
            // a display that refuses every frame (DRM master lost) is not asked at the refresh rate.
            guard let retry else { return preparedFor.flatMap { delegate?.presenter(self, nextFrameAfter: $0) } }
            return retry.at
        }
    }

    // MARK: The one call

    /// Something may look different: the one call for input, timers, commands, reloads and
    /// content that arrives later. While a frame is in flight, what the display reports is read
    /// (a presentation brings the next frame, for the vblank after it); with none in flight, the
    /// frame for the next vblank is prepared — at the wake-up the model asked for, or now — and
    /// committed if it differs from the one shown.
    /// - Parameters:
    ///   - t: now.
    ///   - redraw: the picture changed without the model's state changing (content, colours,
    ///     indicator style, tiles that arrived): draw even if the model is where it was.
    public func setNeedsDisplay(at t: Instant, redraw: Bool = false) {
        observe(t)
        if redraw { appearance &+= 1 }
        // No panel: the model moves, nothing is drawn; `attach(_:at:)` draws the frame then due.
        guard output.isConnected else { return }
        var presentedNow = false
        // The display's events are read in every state: one that comes with nothing in flight
        // (a flip given up as lost, reported late) must not leave the card's fd readable, waking
        // the loop in a spin.
        if state == .inFlight || output.pollDescriptor != nil {
            let events: [OutputEvent]
            do {
                events = try output.dispatch(now: now)
            } catch {
                delegate?.presenter(self, didNote: .outputFailed("display: \(error)"))
                return
            }
            for event in events {
                switch event {
                case .presented(let vblank):
                    presented(at: vblank)
                    presentedNow = true
                case .note(let text):
                    delegate?.presenter(self, didNote: .outputNote(text))
                }
            }
            if state == .inFlight, !output.flipsCanWaitIndefinitely, let committedAt, now >= committedAt + flipTimeout {
                flipLost(since: committedAt)
                return
            }
        }
        if case let .latching(vblank) = state {
            // What changed meanwhile is drawn when the frame's time comes.
            guard now >= vblank - lead else { return }
            state = .idle
            prepare(for: vblank, on: .wake, from: .latching(vblank: vblank))
            return
        }
        // A presentation prepared the next frame already, with everything that changed.
        guard state == .idle, !presentedNow else { return }
        if let last = preparedFor, let wake = delegate?.presenter(self, nextFrameAfter: last), wake <= now {
            // The frame after the one last prepared, never that one again: a motion that shows
            // nothing new for a while is paced at the refresh rate, not in a spin.
            schedule(max(nextPresentation, last + refreshPeriod), on: .wake)
        } else if let retry, retry.at <= now {
            schedule(nextPresentation, on: .wake)
        } else {
            schedule(nextPresentation, on: .needsDisplay)
        }
    }

    /// When a frame committed now will be shown: the first vblank at or after now, counted in
    /// refresh periods from the last presentation (and never that vblank itself: a panel shows
    /// one frame per refresh). Before the first presentation the vblanks' phase is unknown, and
    /// now stands for it.
    public var nextPresentation: Instant {
        guard let last = lastPresentation else { return now }
        let period = max(1, refreshPeriod.nanoseconds)
        let elapsed = (now - last).nanoseconds
        // Whole periods, rounded up, without `elapsed + period - 1` (a recording's times may lie
        // near the end of Instant's range); Instant + Duration saturates.
        let periods = elapsed <= 0 ? 1 : elapsed / period + (elapsed % period == 0 ? 0 : 1)
        let (span, overflow) = periods.multipliedReportingOverflow(by: period)
        return last + .nanoseconds(overflow ? .max : span)
    }

    /// Draws on `output` from now on (a monitor connected, or another mode), or on nothing
    /// (`DisconnectedOutput`: a monitor unplugged). A new composer is made around the same
    /// compositor and content; what the old output showed, its frame in flight and its vblanks
    /// are forgotten, so the next `setNeedsDisplay(at:)` draws the whole frame afresh for the
    /// new output's first vblank. The caller closes the old output and lays the model out for
    /// the new view size first.
    public func attach(_ output: any Output, at t: Instant) {
        observe(t)
        composer = FrameComposer(output: output, compositor: composer.compositor, content: composer.content)
        state = .idle
        lastPresentation = nil
        shown = nil
        preparedFor = nil
        retry = nil
        latchedFor = nil
        committedAt = nil
        lead = frameLead
        appearance &+= 1
    }

    /// Shows other content from the next frame on.
    public func show(_ content: Content?, at t: Instant) {
        composer.content = content
        setNeedsDisplay(at: t, redraw: true)
    }

    /// Changes the colours and the indicators' look from the next frame on, redrawn now unless
    /// `redraw` is false (before the first frame, which draws them anyway).
    public func setAppearance(background: Color, indicatorStyle: IndicatorStyle, at t: Instant, redraw: Bool = true) {
        self.background = background
        composer.compositor.indicatorStyle = indicatorStyle
        if redraw { setNeedsDisplay(at: t, redraw: true) }
    }

    // MARK: The display's events

    /// The display's fd or deadline fired: the same as `setNeedsDisplay(at:)`, for a loop.
    public func dispatch(now t: Instant) {
        setNeedsDisplay(at: t)
    }

    private func presented(at vblank: Instant) {
        guard state == .inFlight else {
            step(from: state, on: .presented, invalid: true)
            return
        }
        lastPresentation = vblank
        state = .idle
        lastPresentationWasLate = committedFor.map { vblank - $0 > refreshPeriod / 2 } ?? false
        committedFor = nil
        committedAt = nil
        if let target = latchedFor, vblank - target > refreshPeriod / 2, lead < refreshPeriod {
            // Composing and committing took longer than the lead: start earlier.
            let missed = lead
            lead = min(lead + lead, refreshPeriod)
            delegate?.presenter(self, didNote: .frameLate(
                "display: a frame prepared \(missed.inMilliseconds.brief) ms before its vblank missed it; "
                    + "frames are now prepared \(lead.inMilliseconds.brief) ms ahead"))
        }
        latchedFor = nil
        delegate?.presenter(self, didPresentAt: vblank)
        // The next frame shows at the next vblank: the model steps there.
        schedule(nextPresentation, on: .presented, from: .inFlight)
    }

    // MARK: Frames

    /// Prepares the frame shown at `t` now, or, when the model wants it late and there is time,
    /// waits until `lead` before `t`.
    private func schedule(_ t: Instant, on event: Event, from before: State? = nil) {
        let before = before ?? state
        guard state == .idle, !isSuspended, lead > .zero, t - lead > now, let delegate,
              delegate.presenter(self, latchesFrameFor: t) else {
            prepare(for: t, on: event, from: before)
            return
        }
        state = .latching(vblank: t)
        step(from: before, on: event)
    }

    /// Prepares the frame shown at `t` and commits it if it differs from the one shown.
    private func prepare(for t: Instant, on event: Event, from before: State? = nil) {
        let before = before ?? state
        defer { if state != before { step(from: before, on: event) } }
        guard state == .idle, !isSuspended, let delegate else { return }
        var frame = delegate.presenter(self, frameFor: t)
        frame.background = background
        frame.appearance = appearance
        guard frame != shown else {
            // Nothing new for `t`: ask again no sooner than the frame after it, so a motion that
            // shows no change for a while paces at the refresh rate, not in a spin.
            preparedFor = max(preparedFor ?? t, t)
            return
        }
        preparedFor = t
        let hadPlanes = composer.planeFailure == nil
        do {
            try composer.commit(frame, now: now)
            // Only a committed frame is shown: a refused one is still to be drawn.
            shown = frame
            state = .inFlight
            committedAt = now
            retry = nil
            // Before the first presentation `t` is only now, not a vblank: nothing to be late for.
            committedFor = lastPresentation == nil ? nil : t
            if case let .latching(vblank) = before { latchedFor = vblank }
        } catch OutputError.flipPending where before == .inFlight {
            // The flip given up as lost was only late (`flipLost`): it is in flight again.
            state = .inFlight
            committedAt = now
            if flipTimeout < .seconds(1) { lateFlips += 1 }
        } catch {
            let backoff = retry.map { min($0.backoff + $0.backoff, .seconds(1)) } ?? refreshPeriod
            retry = (now + backoff, backoff)
            delegate.presenter(self, didNote: .frameRefused("frame not shown: \(error)"))
        }
        if hadPlanes, let failure = composer.planeFailure {
            delegate.presenter(self, didNote: .planesGivenUp(
                "display: overlay planes refused (\(failure)): every frame is composed from now on"))
        }
    }

    /// The flip committed at `since` was never reported: the output takes it as shown, and the
    /// frame due now is committed anew (the same picture, redrawn: it may never have reached the
    /// panel). Said each time: a driver that loses every flip is worth a line per loss, which the
    /// timeout paces at a few per second at most.
    private func flipLost(since: Instant) {
        output.forgetPendingFlip()
        state = .idle
        committedAt = nil
        latchedFor = nil
        shown = nil
        delegate?.presenter(self, didNote: .flipLost(
            "display: no flip event \((now - since).inMilliseconds.brief) ms after the commit; committing anew"))
        prepare(for: nextPresentation, on: .wake, from: .inFlight)
        // Committed again: in flight as before, but a step of its own (refused: `prepare` said so).
        if state == .inFlight { step(from: .inFlight, on: .wake) }
    }

    private func step(from before: State, on event: Event, invalid: Bool = false) {
        guard tracing else { return }
        delegate?.presenter(self, didNote: .transition(Transition(.frame, at: now, from: before.name, on: event.rawValue,
                                                                  to: state.name, invalid: invalid)))
    }

    private func observe(_ t: Instant) {
        if t > now { now = t }
    }
}
