import Glibc

/// The signals an event loop reads through a signalfd (sd-event's `SD_EVENT_SIGNAL_PROCMASK`),
/// and what a child process must not inherit of that.
public enum SignalMask {
    /// Blocks `signals` in the calling thread, and so in every thread it starts from now on. A
    /// signalfd sees a process's signal only while no thread lets it through: a worker started
    /// before the loop blocked them (a tile decoder of content shown at start) took SIGTERM or
    /// SIGHUP itself, and its default action ended the daemon. So a daemon blocks them before
    /// it starts any thread.
    public static func block(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signo in signals { sigaddset(&set, signo) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Calls `body` with `posix_spawn` attributes that give the child an empty signal mask: a
    /// child of a thread that blocks the loop's signals would inherit the block, and not end on
    /// the SIGTERM `systemctl stop` sends every process of the unit.
    public static func withChildAttributes<T>(_ body: (UnsafePointer<posix_spawnattr_t>) -> T) -> T {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        return body(&attributes)
    }
}
