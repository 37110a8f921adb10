import FlickControl
import FlickCore
import FlickSystem
import Glibc

/// `--wait SECONDS`: connecting to a daemon that is still starting. The socket may not exist
/// yet (ENOENT), or exist with no one listening on it yet (ECONNREFUSED, a stale file flickd
/// is about to replace), or its queue be full (EAGAIN): those are retried, polling with a
/// back-off from 10 ms doubling to 250 ms, until the time is up. Anything else (no permission,
/// a path too long) will not change by waiting and fails at once.
enum SocketWait {
    /// The first pause and the longest.
    static let firstPause: Duration = .milliseconds(10), longestPause: Duration = .milliseconds(250)

    /// A connection to `path`, waiting up to `seconds` for it to accept (nil: one try).
    /// - Throws: `ControlClientError` when it cannot be reached and waiting will not help,
    ///   `SocketWaitError.timedOut` when the time ran out.
    static func connect(_ path: String, within seconds: Double?) throws -> ControlClient {
        guard let seconds else { return try ControlClient(path: path) }
        let deadline = Instant.monotonicNow() + .seconds(double: seconds)
        var pause = firstPause
        while true {
            do {
                return try ControlClient(path: path)
            } catch {
                guard case let .connect(_, _, cause?) = error, [ENOENT, ECONNREFUSED, EAGAIN].contains(cause.errno) else {
                    throw error
                }
                let now = Instant.monotonicNow()
                guard now < deadline else { throw SocketWaitError.timedOut(path: path, seconds: seconds, last: error) }
                let nap = min(pause, deadline - now)
                var request = timespec(tv_sec: Int(nap.components.seconds), tv_nsec: Int(nap.components.attoseconds / 1_000_000_000))
                var remaining = timespec()
                while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
                pause = min(pause * 2, longestPause)
            }
        }
    }
}

/// `--wait` ran out.
enum SocketWaitError: FlickError, Hashable, Sendable {
    /// The socket did not accept a connection within `seconds`; `last` is why the last try failed.
    case timedOut(path: String, seconds: Double, last: ControlClientError)

    var context: ErrorContext {
        switch self {
        case let .timedOut(path, seconds, last):
            ErrorContext(source: path, reason: "no daemon accepted a connection within \(seconds.brief) s (--wait); the last try: "
                         + (last.context.reason ?? "\(last)"))
        }
    }

    /// sysexits' EX_UNAVAILABLE, as for no daemon without `--wait`.
    var kind: ErrorKind { .unavailable }
}
