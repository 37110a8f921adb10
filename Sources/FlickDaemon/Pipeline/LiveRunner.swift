import FlickCore

/// Runs a pipeline (the daemon's, or calibrate's) on sd-event: the input and display fds, and
/// one timer armed to the pipeline's earliest deadline. Whatever wakes the loop, the pipeline
/// does everything due at that time (`RunnablePipeline.dispatch(now:)`). When nothing moves,
/// the timer is disarmed and only an fd can wake the process.
public final class LiveRunner {
    private let loop: EventLoop
    private let pipeline: any RunnablePipeline
    private var watches: FileWatches?
    private var timer: TimerSource?
    /// Called when a new fd (a device plugged in, new content's pipe) cannot be watched at a
    /// re-arm; by default the run goes on with the fds it watches.
    public var watchFailed: ((SystemError) -> Void)?

    /// Wires the pipeline to the loop.
    /// - Throws: `SystemError` if an fd or the timer cannot be watched.
    public init(loop: EventLoop, pipeline: any RunnablePipeline) throws(SystemError) {
        self.loop = loop
        self.pipeline = pipeline
        timer = try loop.addTimer(context: "pipeline timer") { [unowned self] t in
            self.dispatch(at: t)
        }
        watches = FileWatches(loop: loop, context: pipeline.input.name) { [unowned self] in
            self.dispatch(at: self.loop.now)
        }
        try watch()
        rearm()
    }

    /// Re-arms the timer for the pipeline's earliest deadline and brings the watches up to date;
    /// call after anything changed the pipeline from outside the loop's callbacks (a control
    /// command, a reload). Content shown from there closes the old content's fds: their watches
    /// must go before the numbers can be reused (a client accepted on one was otherwise never
    /// read, the stale watch's removal at the next frame taking the client's registration too).
    public func rearm() {
        do { try watch() } catch { watchFailed?(error) }
        timer?.schedule(at: pipeline.nextDeadline)
    }

    private func dispatch(at t: Instant) {
        pipeline.dispatch(now: max(t, loop.now))
        rearm()
    }

    /// Watches the pipeline's fds, which change when devices come and go (`FileWatches` makes
    /// them anew when the input's files changed); only then are replaced content's pipes closed.
    private func watch() throws(SystemError) {
        defer { pipeline.presenter.composer.releaseRetired() }
        try watches?.update(pipeline.fileDescriptors, generation: pipeline.descriptorGeneration)
    }
}
