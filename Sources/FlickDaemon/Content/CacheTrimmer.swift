import FlickCore
import FlickDisplay
import FlickSystem
import Logging

/// Trims the pyramid cache (`PyramidCache`) a grace after a pyramid is shown, on a thread of its
/// own below the loop, so the version it replaced and pyramids over `content.cache_max_mb` go
/// without the loop waiting on an SD card. A build in flight trims in its child instead.
///
/// | state   | event                          | next                                         |
/// |---------|--------------------------------|----------------------------------------------|
/// | idle    | a pyramid shown at t           | due(t + grace)                               |
/// | due     | a pyramid shown at t           | due(t + grace)                               |
/// | due     | its time, a build in flight    | idle (the build's child trims when done)     |
/// | due     | its time                       | running (a thread started; none: said, idle) |
/// | running | a pyramid shown at t           | running, then due(t + grace) when it ends    |
/// | running | the thread is done             | idle, or due if a show came meanwhile        |
final class CacheTrimmer {
    enum State {
        case idle
        case due(Instant)
        case running(BackgroundWorker, then: Instant?)
    }

    private(set) var state = State.idle
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// A pyramid was shown at `t`: the cache is trimmed a grace later.
    func shown(at t: Instant) {
        let due = t + PyramidCache.graceAfterShowing
        switch state {
        case .idle, .due: state = .due(due)
        case .running(let worker, _): state = .running(worker, then: due)
        }
    }

    /// Whether a trim runs (or ended and is not taken yet).
    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// When a trim is due.
    var nextDeadline: Instant? {
        if case .due(let t) = state { return t }
        return nil
    }

    /// Readable when the running trim is done.
    var fileDescriptor: Descriptor? {
        if case .running(let worker, _) = state { return worker.fileDescriptor }
        return nil
    }

    /// Does what is due at `t`: a trim started (of `cacheDirectory` to `limit` bytes, keeping
    /// `inUse`) unless `building`, or a finished one taken.
    func dispatch(now t: Instant, building: Bool, cacheDirectory: String, inUse: [String], limit: Int64?) {
        switch state {
        case .idle:
            return
        case .due(let due):
            guard due <= t else { return }
            guard !building else {
                state = .idle
                return
            }
            guard let worker = BackgroundWorker(level: .ahead) else {
                logger.warning("content: cannot start a thread to trim the pyramid cache \(cacheDirectory); trimmed at the next build")
                state = .idle
                return
            }
            let logger = logger
            _ = worker.submit {
                if let line = PyramidCache.trimmed(cacheDirectory, inUse: inUse, limit: limit) { logger.notice("content: \(line)") }
            }
            state = .running(worker, then: nil)
        case .running(let worker, let then):
            guard worker.takeDone() else { return }
            worker.stop()
            state = then.map { .due($0) } ?? .idle
        }
    }
}
