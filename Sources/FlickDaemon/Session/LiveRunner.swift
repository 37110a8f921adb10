import FlickCore

/// Runs a session on sd-event: the input fds, the display fd and one timer armed to the
/// earliest deadline (gesture timer, indicator hold, headless vblank, a recording's next event).
/// When nothing moves, the timer is disarmed and only an fd can wake the process.
public final class LiveRunner {
    private let loop: EventLoop
    private let session: Session
    private let input: TouchSource
    private let display: PresentationSource
    private var inputWatches: [Int32: IOSource] = [:]
    private var displayWatch: IOSource?
    private var timer: TimerSource?
    /// Called when a finite input (a recording) has delivered everything.
    public var onInputFinished: () -> Void = {}
    /// Called with each presentation time (the daemon says READY=1 after the first).
    public var onPresented: (Instant) -> Void = { _ in }

    /// Wires the session to the loop.
    /// - Throws: `SystemError` if an fd or the timer cannot be watched.
    public init(loop: EventLoop, session: Session, input: TouchSource, display: PresentationSource) throws(SystemError) {
        self.loop = loop
        self.session = session
        self.input = input
        self.display = display
        timer = try loop.addTimer(context: "session timer") { [unowned self] t in
            self.wake(at: t)
        }
        if let fd = display.fileDescriptor {
            displayWatch = try loop.addIO(fd: fd, events: .readable, context: "display") { [unowned self] _ in
                self.dispatchDisplay()
            }
        }
        try watchInputs()
        rearm()
    }

    /// Re-arms the timer for the earliest deadline; call after anything changed the session
    /// from outside (a control command).
    public func rearm() {
        let deadlines = [session.nextWakeup, input.nextDeadline, display.nextDeadline].compactMap { $0 }
        timer?.schedule(at: deadlines.min())
    }

    private func watchInputs() throws(SystemError) {
        let fds = Set(input.fileDescriptors)
        for fd in inputWatches.keys where !fds.contains(fd) { inputWatches[fd] = nil }
        for fd in fds where inputWatches[fd] == nil {
            inputWatches[fd] = try loop.addIO(fd: fd, events: .readable, context: "input \(input.name)") { [unowned self] _ in
                self.dispatchInput()
            }
        }
    }

    private func dispatchInput() {
        for frame in input.dispatch(now: loop.now) { session.handle(frame) }
        try? watchInputs()
        if input.isFinished { onInputFinished() }
        rearm()
    }

    private func dispatchDisplay() {
        for vblank in display.dispatch(now: loop.now) {
            session.presented(at: vblank)
            onPresented(vblank)
        }
        rearm()
    }

    private func wake(at t: Instant) {
        let now = max(t, loop.now)
        for vblank in display.dispatch(now: now) {
            session.presented(at: vblank)
            onPresented(vblank)
        }
        if let due = input.nextDeadline, due <= now {
            dispatchInput()
        }
        if let wake = session.nextWakeup, wake <= now { session.timerFired(at: now) }
        rearm()
    }
}
