import FlickCore

/// Runs a session on virtual time, as fast as possible: the next thing to happen — a recorded
/// frame, a presentation, a session wake-up — happens next, with `now` set to its time and
/// never going back (swift-nio's EmbeddedEventLoop, in spirit). Used by `flickd replay` and by
/// tests; a replay decides exactly as a live run with the same timestamps would.
public struct VirtualRunner {
    /// How a run ended.
    public struct Outcome: Sendable {
        /// The virtual time when everything came to rest.
        public var end: Instant
        /// Wake-ups that were neither a frame nor a presentation (gesture timers, indicator holds).
        public var timerWakeups: Int
        /// Whether it stopped at `limit` with something still moving.
        public var hitLimit: Bool
    }

    /// Runs until the source is finished and the session is at rest (no frame in flight, no
    /// wake-up), or until `limit`.
    public static func run(_ session: Session, input: TouchSource, display: PresentationSource,
                           limit: Instant? = nil) -> Outcome {
        var now = session.now
        var wakeups = 0
        while true {
            let candidates = [input.nextDeadline, display.nextDeadline, session.nextWakeup].compactMap { $0 }
            guard let next = candidates.min() else {
                return Outcome(end: now, timerWakeups: wakeups, hitLimit: false)
            }
            if let limit, next > limit { return Outcome(end: now, timerWakeups: wakeups, hitLimit: true) }
            now = max(now, next)
            var handled = false
            for vblank in display.dispatch(now: now) {
                session.presented(at: vblank)
                handled = true
            }
            if let due = input.nextDeadline, due <= now {
                for frame in input.dispatch(now: now) { session.handle(frame) }
                handled = true
            }
            if !handled || (session.nextWakeup.map { $0 <= now } ?? false) {
                wakeups += 1
                session.timerFired(at: now)
            }
        }
    }
}
