import FlickCore
import FlickSystem

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
    /// command, a reload). Content shown from there lets the old content's descriptors go, but
    /// they stay open (their numbers taken) until their watches go here.
    public func rearm() {
        do { try watch() } catch { watchFailed?(error) }
        timer?.schedule(at: pipeline.nextDeadline)
    }

    private func dispatch(at t: Instant) {
        pipeline.dispatch(now: max(t, loop.now))
        rearm()
    }

    /// Watches the pipeline's descriptors, which change when devices come and go and content
    /// is replaced; dropping a stale watch is what finally closes the file it held.
    private func watch() throws(SystemError) {
        try watches?.update(pipeline.fileDescriptors)
    }
}
