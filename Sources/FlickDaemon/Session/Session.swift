import FlickCore

/// Where a session's frames go: the display backend behind a compositor. `submit` composes the
/// view into the back buffer and queues it; the backend reports the presentation (vblank) time
/// later through `Session.presented(at:)`.
public protocol FrameTarget: AnyObject {
    /// The logical view size, in screen pixels (after panel rotation).
    var viewSize: Size { get }
    /// Refresh period of the display, for stepping animations to the next vblank.
    var refreshPeriod: Duration { get }
    /// Composes `view` with indicators at `indicatorOpacity`, as it should look at the vblank
    /// `t`, and queues it at `now` for the first vblank the backend can still make (a frame
    /// queued between vblanks shows at the next one, not one later).
    /// - Returns: whether a frame was queued; `false` when the picture equals the one shown, so
    ///   no presentation will follow.
    /// - Throws: whatever the backend reports; the session logs it and keeps going.
    func submit(_ view: ScrollView, indicatorOpacity: Double, at t: Instant, now: Instant) throws -> Bool
}

/// The daemon between input, model, display and clients, with no I/O and no clock of its own:
/// touch frames, timers, presentation times and commands come in; frames and published events
/// go out. The live loop (sd-event) and the replay loop (virtual time) drive the same session.
///
/// Frames are paced by presentation only: one frame in flight at a time; a frame is composed
/// only when something visible changed; while the model animates, each presentation steps it to
/// the next vblank and composes the next frame. When nothing moves, `nextWakeup` is nil.
public final class Session {
    /// The recogniser and, inside it, the scroll view.
    public private(set) var recognizer: GestureRecognizer
    /// Where frames go.
    public let target: FrameTarget
    /// Receives every output of the recogniser in order, with the view after it.
    public var publish: (GestureOutput, ScrollView) -> Void = { _, _ in }
    /// Receives problems worth a log line (backend errors, ignored inputs).
    public var report: (String) -> Void = { _ in }

    /// Whether a frame is queued and not yet presented.
    public private(set) var framePending = false
    /// Frames submitted since start.
    public private(set) var framesSubmitted = 0
    /// What the last submitted frame showed, and for when.
    private var shown: Shown?
    private var shownAt: Instant
    /// The latest time the session has been told of.
    public private(set) var now: Instant
    /// Attract mode, when the config turns it on.
    public var idleReset: IdleReset?
    /// Called when attract mode sends the view home.
    public var didIdleReset: () -> Void = {}
    /// The last touch or command: attract mode counts from here.
    private var lastActivity: Instant

    private struct Shown: Equatable {
        var offset: Point
        var zoom: Double
        var opacity: Double
        var content: Size
    }

    /// Creates a session and composes its first frame at `t`.
    public init(recognizer: GestureRecognizer, target: FrameTarget, at t: Instant) {
        self.recognizer = recognizer
        self.target = target
        now = t
        shownAt = t
        lastActivity = t
    }

    /// Submits the first frame (the daemon is ready once it is presented).
    public func start() {
        render(force: true)
    }

    // MARK: Inputs

    /// A touch frame from the input device.
    public func handle(_ frame: TouchFrame) {
        observe(frame.time)
        lastActivity = max(lastActivity, frame.time)
        recognizer.handle(frame)
        flush()
    }

    /// The wake-up timer fired at `t` (a gesture timer or an indicator deadline).
    public func timerFired(at t: Instant) {
        observe(t)
        recognizer.fireTimers(upTo: t)
        if let reset = idleReset, let due = idleDeadline, due <= t {
            recognizer.updateScrollView(at: t) { v in
                try? v.setZoomScale(reset.zoomScale, contentOffset: reset.offset, animated: true, at: t)
            }
            didIdleReset()
        }
        if recognizer.scrollView.isAnimating, !framePending {
            // Motion with no frame in flight to step it (an animation that began showing no
            // change yet): step it to the next frame here, as a presentation would.
            let next = t + target.refreshPeriod
            recognizer.advance(to: next)
            flush(at: next)
        } else {
            flush()
        }
    }

    /// The queued frame reached the screen at `vblank`.
    public func presented(at vblank: Instant) {
        observe(vblank)
        framePending = false
        // The next frame shows at the next vblank: step the model there, then compose it.
        let next = vblank + target.refreshPeriod
        if recognizer.scrollView.isAnimating { recognizer.advance(to: next) }
        flush(at: next)
    }

    /// Applies a programmatic change (control socket) at `t`.
    public func update<T>(at t: Instant, _ body: (inout ScrollView) throws -> T) rethrows -> T {
        observe(t)
        lastActivity = max(lastActivity, now)
        defer { flush() }
        return try recognizer.updateScrollView(at: now, body)
    }

    /// Draws the next frame even if the model did not change (new content, new colours).
    public func invalidate() {
        shown = nil
        render(force: true)
    }

    /// Replaces the gesture tunables (config reload).
    public func setGestureConfiguration(_ configuration: GestureConfiguration) {
        recognizer.setConfiguration(configuration)
    }

    /// When the loop must wake the session next, if at all: a gesture timer, or the end of an
    /// indicator hold while no frame is in flight. Nil means idle: no timer at all.
    public var nextWakeup: Instant? {
        var wake = recognizer.nextDeadline
        // Measured from the last frame's time, so a fade frame already shown is not asked for
        // again (which would spin the loop without changing a pixel).
        if !framePending, let frame = recognizer.scrollView.nextFrameTime(after: shownAt) {
            wake = min(wake ?? frame, frame)
        }
        if let idle = idleDeadline { wake = min(wake ?? idle, idle) }
        return wake
    }

    /// When attract mode sends the view home, if it will.
    private var idleDeadline: Instant? {
        idleReset?.deadline(lastActivity: lastActivity, view: recognizer.scrollView, touching: recognizer.isTouching)
    }

    // MARK: Internals

    private func observe(_ t: Instant) {
        if t > now { now = t }
    }

    /// Publishes the recogniser's outputs and composes a frame if the picture changed.
    private func flush(at frameTime: Instant? = nil) {
        let view = recognizer.scrollView
        for output in recognizer.takeOutputs() { publish(output, view) }
        for note in recognizer.takeDiagnostics() { report(note) }
        render(force: false, at: frameTime)
    }

    /// Composes a frame for `frameTime` (by default the next vblank after now) if it differs
    /// from the last one.
    private func render(force: Bool, at frameTime: Instant? = nil) {
        guard !framePending else { return }
        let view = recognizer.scrollView
        let t = frameTime ?? now + target.refreshPeriod
        let state = Shown(offset: view.contentOffset, zoom: view.zoomScale, opacity: view.indicatorOpacity(at: t),
                          content: view.unscaledContentSize)
        guard force || state != shown else {
            // Nothing new to show for `t`: ask again no sooner than the frame after it, so a
            // motion that shows no change for a while paces at the refresh rate, not in a spin.
            shownAt = max(shownAt, t)
            return
        }
        do {
            shown = state
            shownAt = t
            guard try target.submit(view, indicatorOpacity: state.opacity, at: t, now: now) else { return }
            framePending = true
            framesSubmitted += 1
        } catch {
            report("frame not shown: \(error)")
        }
    }
}
