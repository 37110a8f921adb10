import FlickCore
import FlickDaemon
import FlickDisplay

/// The headless output with a stopwatch on `commit`: the moment the flip is queued.
final class TimedOutput: ForwardingOutput {
    /// Called with `CLOCK_MONOTONIC` at each commit, after the inner output accepted it.
    var onCommit: (Instant) -> Void = { _ in }

    override func commit(_ layers: FrameLayers, now: Instant) throws {
        try inner.commit(layers, now: now)
        onCommit(EventLoop.monotonicNow())
    }
}
