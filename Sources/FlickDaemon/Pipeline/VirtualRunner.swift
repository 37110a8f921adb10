import FlickCore

/// Runs a pipeline on virtual time, as fast as possible: the next thing to happen — a recorded
/// frame, a presentation, a wake-up — happens next, with `now` set to its time and never going
/// back (swift-nio's EmbeddedEventLoop, in spirit). Used by `flickd replay`, `flickd calibrate
/// --recording` and by tests; a replay decides exactly as a live run with the same timestamps
/// would.
public enum VirtualRunner {
    /// How a run ended.
    public struct Outcome: Sendable {
        /// The virtual time when everything came to rest.
        public var end: Instant
        /// Wake-ups that were neither an input frame nor a presentation (gesture timers, the
        /// frames a model asked for with none in flight, attract mode).
        public var timerWakeups: Int
        /// Whether it stopped at `limit` with something still due.
        public var hitLimit: Bool
    }

    /// Runs until nothing is due — the input has nothing more to deliver (no next deadline) and
    /// the pipeline is at rest (no frame in flight, no wake-up) — or until `limit`.
    public static func run(_ pipeline: any RunnablePipeline, limit: Instant? = nil) -> Outcome {
        var now = pipeline.now
        var wakeups = 0
        while let next = pipeline.nextDeadline {
            if let limit, next > limit { return Outcome(end: now, timerWakeups: wakeups, hitLimit: true) }
            now = max(now, next)
            let input = pipeline.input.nextDeadline.map { $0 <= now } ?? false
            let presentation = pipeline.presenter.state == .inFlight && (pipeline.presenter.output.nextDeadline.map { $0 <= now } ?? false)
            if !input && !presentation { wakeups += 1 }
            pipeline.dispatch(now: now)
        }
        return Outcome(end: now, timerWakeups: wakeups, hitLimit: false)
    }
}
