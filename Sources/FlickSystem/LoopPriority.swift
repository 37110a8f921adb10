import Glibc

/// The event loop's real-time scheduling (`display.realtime_priority`; docs/tiles.md, "Threads:
/// the loop first").
///
/// Lowering the workers (`WorkerPriority`) orders the threads inside flickd, but not flickd
/// against the rest of the board: the kernel shares a CPU between processes (cgroups, autogroups)
/// before it shares a process's share between its threads, so the CPU time the decoders burn is
/// charged to flickd as a whole, and a frame's few hundred µs then wait behind any other busy
/// process — a browser, a provider app, a compiler — for milliseconds. A flick over PNG tiles on a
/// loaded 2-core machine had 6 of 271 frames over 1 ms, every one preempted and waiting for a CPU
/// (BENCHMARKS.md, "the loop above its workers"). `SCHED_RR` at the lowest real-time priority puts the loop
/// ahead of every ordinary thread and behind every other real-time one (audio, IRQ threads),
/// as KWin does for its DRM commit thread; `SCHED_RESET_ON_FORK` keeps what the loop creates
/// (workers, a `flickd pyramid` child, a render helper) ordinary.
///
/// What a runaway real-time loop could take is bounded: the kernel's real-time throttling keeps
/// 5 % of every CPU for ordinary threads, the systemd unit's `LimitRTTIME=` ends a loop that runs
/// a second without blocking, and the watchdog one stuck for 5 s.
public enum LoopPriority {
    /// `SCHED_RESET_ON_FORK`, which Glibc declares only for `_GNU_SOURCE` (the kernel's ABI bit).
    static let resetOnFork: Int32 = 0x4000_0000
    /// The highest priority `SCHED_RR` takes.
    public static let maximum: Int32 = 99

    /// Puts the calling thread at `SCHED_RR` `priority`, reset on fork; 0 puts it back at
    /// `SCHED_OTHER` (its nice level unchanged). On Linux the call is the calling thread's, not
    /// the process's.
    /// - Returns: the call the kernel refused (no `CAP_SYS_NICE` and an `RLIMIT_RTPRIO` below
    ///   `priority`, a unit with `RestrictRealtime=yes`), if any; the thread then runs on as it was.
    @discardableResult
    public static func setCallingThread(to priority: Int32) -> SystemError? {
        var parameters = sched_param(sched_priority: priority)
        let policy = priority > 0 ? SCHED_RR | resetOnFork : SCHED_OTHER
        guard sched_setscheduler(0, policy, &parameters) == 0 else {
            return .current("sched_setscheduler", priority > 0 ? "the event loop: SCHED_RR \(priority)" : "the event loop: SCHED_OTHER")
        }
        return nil
    }

    /// What `display.realtime_priority` gave the loop, for the journal and `status`: the
    /// scheduling the kernel reports for it (`running`, read back after asking), and why real
    /// time was refused when it was.
    public static func outcome(asked priority: Int32, refusal: SystemError?, running: ThreadScheduling?) -> String {
        let now = running.map { "\($0)" } ?? "unknown"
        guard priority > 0 else { return "\(now) (display.realtime_priority = 0)" }
        guard let refusal else { return now }
        return "\(now): SCHED_RR \(priority) refused, \(refusal.call) failed: \(refusal.errnoDescription)"
    }
}
