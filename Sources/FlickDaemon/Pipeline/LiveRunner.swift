import FlickCore
import FlickSystem

/// Runs a pipeline (the daemon's, or calibrate's) on sd-event: the input and display fds, and
/// one timer armed to the pipeline's earliest deadline. Whatever wakes the loop, the pipeline
/// does everything due at that time (`RunnablePipeline.dispatch(now:)`). When nothing moves,
/// the timer is disarmed and only an fd can wake the process. Passive components beside the
/// pipeline (the content host) get fd watches and a timer of their own, the same way.
public final class LiveRunner {
    private let loop: EventLoop
    private let pipeline: any RunnablePipeline
    private var watches: FileWatches?
    private var timer: TimerSource?
    private var companions: [Companion] = []
    /// Called when a new fd (a device plugged in, new content's pipe) cannot be watched at a
    /// re-arm; by default the run goes on with the fds it watches.
    public var watchFailed: ((SystemError) -> Void)?

    /// A component beside the pipeline, with its watches and its timer.
    private struct Companion {
        var component: any PassiveComponent
        var watches: FileWatches
        var timer: TimerSource
    }

    /// Wires the pipeline, and `companions` beside it, to the loop.
    /// - Throws: `SystemError` if an fd or a timer cannot be watched.
    public init(loop: EventLoop, pipeline: any RunnablePipeline, companions: [any PassiveComponent] = []) throws(SystemError) {
        self.loop = loop
        self.pipeline = pipeline
        timer = try loop.addTimer(context: "pipeline timer") { [unowned self] t in
            self.dispatch(at: t)
        }
        watches = FileWatches(loop: loop, context: pipeline.input.name) { [unowned self] in
            self.dispatch(at: self.loop.now)
        }
        for component in companions {
            let context = "\(type(of: component))"
            let timer = try loop.addTimer(context: "\(context) timer") { [unowned self, unowned component] t in
                self.dispatch(component, at: t)
            }
            let watches = FileWatches(loop: loop, context: context) { [unowned self, unowned component] in
                self.dispatch(component, at: self.loop.now)
            }
            self.companions.append(Companion(component: component, watches: watches, timer: timer))
        }
        try watch()
        rearm()
    }

    /// Re-arms the timers for the earliest deadlines and brings the watches up to date; call
    /// after anything changed the pipeline or a companion from outside the loop's callbacks (a
    /// control command, a reload). Content shown from there lets the old content's descriptors
    /// go, but they stay open (their numbers taken) until their watches go here.
    public func rearm() {
        do { try watch() } catch { watchFailed?(error) }
        timer?.schedule(at: pipeline.nextDeadline)
        for companion in companions { companion.timer.schedule(at: companion.component.nextDeadline) }
    }

    private func dispatch(at t: Instant) {
        pipeline.dispatch(now: max(t, loop.now))
        rearm()
    }

    private func dispatch(_ component: any PassiveComponent, at t: Instant) {
        component.dispatch(now: max(t, loop.now))
        rearm()
    }

    /// Watches the pipeline's and the companions' descriptors, which change when devices come
    /// and go and content is replaced; dropping a stale watch is what finally closes the file it held.
    private func watch() throws(SystemError) {
        try watches?.update(pipeline.fileDescriptors)
        for companion in companions { try companion.watches.update(companion.component.fileDescriptors) }
    }
}
