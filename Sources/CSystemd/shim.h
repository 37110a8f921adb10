#pragma once
#include <systemd/sd-event.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-device.h>
// The kernel's own device events (NETLINK_KOBJECT_UEVENT), heard directly where no udev daemon
// passes them on to sd-device (KernelUevents).
#include <sys/socket.h>
#include <linux/netlink.h>

// Told when the wall clock is set (WallClockWatch): a CLOCK_REALTIME timerfd armed for the end of
// time with TFD_TIMER_CANCEL_ON_SET, which the kernel cancels, making it readable, at each
// setting of the clock. Swift's Glibc module leaves out <sys/timerfd.h>.
#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/// A non-blocking, close-on-exec CLOCK_REALTIME timerfd, or -1 with errno set.
static inline int flickd_clock_set_timerfd(void) { return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC); }

/// Arms `fd` to be cancelled at the next setting of the wall clock: 0, or -1 with errno set.
static inline int flickd_clock_set_arm(int fd) {
    // The latest time_t (32 or 64 bits): the timer itself never fires.
    const time_t latest = (time_t)((UINTMAX_C(1) << (sizeof(time_t) * 8 - 1)) - 1);
    struct itimerspec spec = { .it_value = { .tv_sec = latest, .tv_nsec = 0 } };
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

/// Drains `fd`: 1 when the wall clock was set since the last call, 0 when not, -1 with errno set
/// on another failure.
static inline int flickd_clock_set_read(int fd) {
    uint64_t expirations;
    ssize_t n = read(fd, &expirations, sizeof expirations);
    if (n < 0) return errno == ECANCELED ? 1 : (errno == EAGAIN ? 0 : -1);
    return 0;
}
