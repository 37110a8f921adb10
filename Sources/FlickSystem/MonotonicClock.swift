import FlickCore
import Glibc

extension Instant {
    /// Now on the kernel's `CLOCK_MONOTONIC`, the clock of evdev timestamps and sd-event: the
    /// one place flickd reads it directly. The corresponding C function is `clock_gettime`.
    public static func monotonicNow() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec))
    }
}
