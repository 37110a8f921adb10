import CSystemd
import FlickSystem

/// Told at once when the wall clock is set — NTP's first sync on a board without a real-time
/// clock (it boots at its last shutdown's time, or 1970), `date -s`, `timedatectl set-time`:
/// a CLOCK_REALTIME timerfd armed for the end of time with `TFD_TIMER_CANCEL_ON_SET`, which the
/// kernel cancels at each setting (read fails with `ECANCELED`), watched by the loop and armed
/// again each time. Slewing (NTP's small corrections, `adjtime`) sets nothing and says nothing:
/// it moves the clock by parts per million. Nothing here touches the clock: the unit's
/// `ProtectClock=yes` forbids setting it, not being told.
final class WallClockWatch {
    /// The watch, which holds the timerfd.
    private let source: IOSource

    /// Watches on `loop`; `handler` is called once per setting of the clock.
    /// - Throws: `SystemError` if the timerfd cannot be made, armed or watched.
    init(loop: EventLoop, handler: @escaping () -> Void) throws(SystemError) {
        let context = "wall clock watch"
        guard let fd = Descriptor(returnedBy: flickd_clock_set_timerfd()) else { throw SystemError.current("timerfd_create", context) }
        try retrying("timerfd_settime", context) { flickd_clock_set_arm(fd.rawValue) }
        source = try loop.addIO(fd, events: .readable, context: context) { _ in
            guard flickd_clock_set_read(fd.rawValue) == 1 else { return }
            // Cancelled: armed again before anything else, so a second setting is not missed.
            _ = flickd_clock_set_arm(fd.rawValue)
            handler()
        }
    }
}
