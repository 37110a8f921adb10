import FlickCore

/// Runs a pipeline on sd-event: the input and display fds, and one timer armed to the
/// pipeline's earliest deadline. Whatever wakes the loop, the pipeline does everything due at
/// that time (`Pipeline.dispatch(now:)`). When nothing moves, the timer is disarmed and only an
/// fd can wake the process.
public final class LiveRunner {
    private let loop: EventLoop
    private let pipeline: Pipeline
    private var watches: [Int32: IOSource] = [:]
    /// The input's `descriptorGeneration` when the watches were made.
    private var generation: Int?
    private var timer: TimerSource?

    /// Wires the pipeline to the loop.
    /// - Throws: `SystemError` if an fd or the timer cannot be watched.
    public init(loop: EventLoop, pipeline: Pipeline) throws(SystemError) {
        self.loop = loop
        self.pipeline = pipeline
        timer = try loop.addTimer(context: "pipeline timer") { [unowned self] t in
            self.dispatch(at: t)
        }
        try watch()
        rearm()
    }

    /// Re-arms the timer for the pipeline's earliest deadline; call after anything changed the
    /// pipeline from outside the loop's callbacks (a control command, a reload).
    public func rearm() {
        timer?.schedule(at: pipeline.nextDeadline)
    }

    private func dispatch(at t: Instant) {
        pipeline.dispatch(now: max(t, loop.now))
        try? watch()
        rearm()
    }

    /// Watches the pipeline's fds, which change when devices come and go. A watch is on the
    /// file behind an fd number, so when the input's files changed every watch is made anew:
    /// a new device may have the number of one that left.
    private func watch() throws(SystemError) {
        if generation != pipeline.input.descriptorGeneration {
            watches.removeAll()
            generation = pipeline.input.descriptorGeneration
        }
        let fds = Set(pipeline.fileDescriptors)
        for fd in watches.keys where !fds.contains(fd) { watches[fd] = nil }
        for fd in fds where watches[fd] == nil {
            watches[fd] = try loop.addIO(fd: fd, events: .readable, context: "fd \(fd) of \(pipeline.input.name)") { [unowned self] _ in
                self.dispatch(at: self.loop.now)
            }
        }
    }
}
