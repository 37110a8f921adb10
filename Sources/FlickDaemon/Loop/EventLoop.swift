import CSystemd
import FlickCore
import FlickSystem
#if canImport(Glibc)
import Glibc
#endif

/// What an fd is watched for: epoll's event bits (kernel ABI values; Glibc's module does not
/// export `<sys/epoll.h>`).
public struct IOEvents: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Readable (`EPOLLIN`).
    public static let readable = IOEvents(rawValue: 0x001)
    /// Writable (`EPOLLOUT`).
    public static let writable = IOEvents(rawValue: 0x004)
    /// An error (`EPOLLERR`); always reported.
    public static let error = IOEvents(rawValue: 0x008)
    /// Hang-up (`EPOLLHUP`); always reported.
    public static let hangUp = IOEvents(rawValue: 0x010)
}

/// The daemon's loop: libsystemd's sd-event. Components are passive (they expose an fd or a
/// deadline and a dispatch function); this loop does all the waiting, so when nothing moves,
/// nothing wakes.
///
/// Single-threaded: create it, its sources and their handlers on one thread and run it there.
public final class EventLoop {
    let event: OpaquePointer

    /// Creates a loop.
    /// - Throws: `SystemError` if sd-event cannot be allocated. The corresponding C function
    ///   is `sd_event_new`.
    public init() throws(SystemError) {
        var e: OpaquePointer?
        try check(sd_event_new(&e), "sd_event_new", "event loop")
        event = e!
    }

    deinit {
        sd_event_unref(event)
    }

    /// The loop's idea of now on `CLOCK_MONOTONIC`: the time of the current iteration's wake-up.
    public var now: Instant {
        var usec: UInt64 = 0
        if sd_event_now(event, CLOCK_MONOTONIC, &usec) < 0 { return Self.monotonicNow() }
        return Instant(microseconds: usec)
    }

    /// How many iterations the loop has run: each wake-up is one. Read twice around an idle
    /// spell, it counts the wake-ups that should not have happened (the benchmark's idle cost).
    /// The corresponding C function is `sd_event_get_iteration`.
    public var iteration: UInt64 {
        var count: UInt64 = 0
        return sd_event_get_iteration(event, &count) < 0 ? 0 : count
    }

    /// Reads `CLOCK_MONOTONIC` directly (`Instant.monotonicNow()`).
    public static func monotonicNow() -> Instant { Instant.monotonicNow() }

    /// Watches `descriptor` for `events` and calls `handler` with the events that occurred. The
    /// source holds the descriptor: its file stays open, and its number taken, while the watch
    /// exists, so the watch can never be on another file that got the number.
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_add_io`.
    public func addIO(_ descriptor: Descriptor, events: IOEvents, context: String,
                      handler: @escaping (IOEvents) -> Void) throws(SystemError) -> IOSource {
        let box = Callback(handler)
        var s: OpaquePointer?
        try check(sd_event_add_io(event, &s, descriptor.rawValue, events.rawValue, { _, _, revents, userdata in
            Callback<IOEvents>.call(userdata, IOEvents(rawValue: revents))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()), "sd_event_add_io", context)
        return IOSource(source: s!, handler: box, descriptor: descriptor)
    }

    /// A one-shot timer on `CLOCK_MONOTONIC`, initially disarmed; arm it with `schedule(at:)`.
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_add_time`.
    public func addTimer(context: String, handler: @escaping (Instant) -> Void) throws(SystemError) -> TimerSource {
        let box = Callback(handler)
        var s: OpaquePointer?
        // Accuracy 1 µs: the default (250 ms) would coalesce gesture timers into mush.
        try check(sd_event_add_time(event, &s, CLOCK_MONOTONIC, UInt64.max, 1, { _, usec, userdata in
            Callback<Instant>.call(userdata, Instant(microseconds: usec))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()), "sd_event_add_time", context)
        let timer = TimerSource(source: s!, handler: box)
        timer.schedule(at: nil)
        return timer
    }

    /// Handles signal `signo` (blocked for the process, delivered through a signalfd).
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_add_signal`.
    public func addSignal(_ signo: Int32, handler: @escaping () -> Void) throws(SystemError) -> SignalSource {
        let box = Callback<Void> { _ in handler() }
        var s: OpaquePointer?
        try check(sd_event_add_signal(event, &s, signo | SD_EVENT_SIGNAL_PROCMASK, { _, _, userdata in
            Callback<Void>.call(userdata, ())
            return 0
        }, Unmanaged.passUnretained(box).toOpaque()), "sd_event_add_signal", "signal \(signo)")
        return SignalSource(source: s!, handler: box)
    }

    /// Pings systemd's watchdog from the loop when `WATCHDOG_USEC` asks for it.
    /// - Returns: whether the watchdog is on.
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_set_watchdog`.
    @discardableResult
    public func enableWatchdog() throws(SystemError) -> Bool {
        try check(sd_event_set_watchdog(event, 1), "sd_event_set_watchdog", "watchdog") > 0
    }

    /// Runs until `exit(code:)`.
    /// - Returns: the exit code.
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_loop`.
    @discardableResult
    public func run() throws(SystemError) -> Int32 {
        try check(sd_event_loop(event), "sd_event_loop", "event loop")
    }

    /// Runs one iteration, waiting at most `timeout` for something to happen.
    /// - Returns: whether something was dispatched.
    /// - Throws: `SystemError`. The corresponding C function is `sd_event_run`.
    @discardableResult
    public func runOnce(timeout: Duration) throws(SystemError) -> Bool {
        try check(sd_event_run(event, UInt64(max(0, timeout.nanoseconds / 1000))), "sd_event_run", "event loop") > 0
    }

    /// Makes `run()` return `code` after the current iteration.
    public func exit(code: Int32 = 0) {
        sd_event_exit(event, code)
    }
}
