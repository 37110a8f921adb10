#if canImport(Glibc)
import Glibc
#endif

/// A wait that ran out: what was waited for, and how long.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for, as the test named it.
    public let what: String
    /// How long it was waited for.
    public let timeout: Duration

    /// A wait for `what` that ran out after `timeout`.
    public init(what: String, timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    /// The failure as a test prints it.
    public var description: String { "timed out waiting for \(what) (\(timeout))" }
}

/// Waits until `condition` holds, checking it every `poll`: for a state another thread or
/// process reaches without a way to signal it (a file's content, a line in a log, a status
/// field). The poll interval belongs here, not to the tests: a test names what it waits for, and
/// the deadline is generous, since it is only reached when something is wrong (a loaded machine
/// waits longer, it does not fail).
/// - Throws: `WaitTimedOut` naming `what` once `timeout` has passed, or what `condition` throws.
public func waitUntil(_ what: String, timeout: Duration = .seconds(20), poll: Duration = .milliseconds(10),
                      _ condition: () throws -> Bool) throws {
    let end = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < end else { throw WaitTimedOut(what: what, timeout: timeout) }
        pause(poll)
    }
}

/// Waits with poll(2) until `fd` is readable (or its other end closed): for a pipe or socket the
/// code already signals with, so the wait ends the moment it does.
/// - Throws: `WaitTimedOut` naming `what` once `timeout` has passed; `WaitFailed` when `fd` is
///   not open or poll(2) fails.
public func waitUntilReadable(_ fd: Int32, _ what: String, timeout: Duration = .seconds(20)) throws {
    let end = ContinuousClock.now + timeout
    while true {
        let left = end - ContinuousClock.now
        guard left > .zero else { throw WaitTimedOut(what: what, timeout: timeout) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, milliseconds(left))
        if ready > 0 {
            guard entry.revents & Int16(POLLNVAL) == 0 else { throw WaitFailed("\(what): fd \(fd) is not open") }
            return
        }
        if ready < 0 && errno != EINTR { throw WaitFailed("\(what): poll: errno \(errno)") }
    }
}

/// A wait that could not be made (a closed fd, a failed system call), rather than one that ran out.
public struct WaitFailed: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}

/// `duration` in whole milliseconds, rounded up (a wait never ends early), within poll(2)'s range.
func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    let ms = seconds.multipliedReportingOverflow(by: 1000)
    guard !ms.overflow else { return seconds < 0 ? 0 : Int32.max }
    let total = ms.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: max(0, total))
}

/// Sleeps the calling thread for `duration` (the poll interval of `waitUntil`).
func pause(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(clamping: seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var left = timespec()
    while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
}
