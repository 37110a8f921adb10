import FlickCore
import Glibc

/// The compositor's presentation clock (`wp_presentation.clock_id`: Weston's is
/// CLOCK_MONOTONIC_RAW) read as flickd's, CLOCK_MONOTONIC, on which every Instant lies.
enum PresentationClock {
    /// The clock `wp_presentation.clock_id` names, set before the window is made (the event
    /// comes with the bind, while the output is not yet whole).
    final class ID {
        var clock = CLOCK_MONOTONIC
    }

    /// A time on `clock` as the same moment on CLOCK_MONOTONIC: the two clocks' offset is read
    /// now (they differ by NTP's slewing only, parts per million over the age of the frame).
    static func monotonic(seconds: Int64, nanoseconds: Int64, clock: clockid_t) -> Instant {
        let time = Instant(nanoseconds: seconds &* 1_000_000_000 &+ nanoseconds)
        guard clock != CLOCK_MONOTONIC else { return time }
        var theirs = timespec(), ours = timespec()
        guard clock_gettime(clock, &theirs) == 0, clock_gettime(CLOCK_MONOTONIC, &ours) == 0 else { return time }
        let offset = (Int64(ours.tv_sec) - Int64(theirs.tv_sec)) * 1_000_000_000 + (Int64(ours.tv_nsec) - Int64(theirs.tv_nsec))
        return time + .nanoseconds(offset)
    }
}
