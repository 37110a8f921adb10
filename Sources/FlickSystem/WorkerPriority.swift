import Glibc

/// The scheduling every worker thread of flickd runs at, below the event loop's: `SCHED_BATCH`,
/// 5 or 10 nice levels above the loop (docs/tiles.md, "Threads: the loop first").
///
/// The loop thread is the one that must never wait: a frame it cannot take from a band in time
/// it composes itself, while the vblank comes. Every worker is ahead of need; at equal priority
/// two PNG decoders held both cores of a 2-core board and the loop waited behind them
/// (BENCHMARKS.md, "the loop above its workers"). `SCHED_BATCH` keeps a waking worker from preempting the
/// loop, and the nice levels give the loop three (band) to ten (decoders) times a worker's share
/// of a core both want. Among the workers, the band's comes first: its band is due within a few
/// frames, and a late one is a frame composed on the loop; a decoder works for that band or
/// further ahead, and a pyramid build (its `flickd pyramid` child inherits the thread's
/// scheduling) for content not shown yet.
///
/// Not `SCHED_IDLE`: it starves the workers behind any other busy process (a kiosk's browser, a
/// provider app), and a thread cannot leave it without `CAP_SYS_NICE`. Lowering a thread's
/// priority needs no capability; the systemd unit's system-call filter allows the two calls.
public enum WorkerPriority {
    /// How far below the loop a worker runs: nice levels added to the loop's.
    public enum Level: Int32, Sendable, CaseIterable {
        /// The scan-out band's worker: a CFS weight about a third of the loop's.
        case band = 5
        /// Tile decoders and pyramid builds: about a tenth of the loop's.
        case ahead = 10
    }

    /// Lowers the calling thread to a worker's scheduling: `SCHED_BATCH`, then the loop's nice
    /// level plus `level`'s (at most 19). A thread only ever lowers itself: on Linux both calls
    /// apply to the calling thread, not the process, and what it spawns inherits them.
    /// - Returns: the call the kernel refused (a seccomp filter without them, say), if any; the
    ///   thread then runs on at the loop's priority.
    @discardableResult
    public static func lowerCallingThread(to level: Level) -> SystemError? {
        // The creating thread's (the loop's) nice is inherited: read before anything changes.
        errno = 0
        let base = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        if base == -1 && errno != 0 { return .current("getpriority", "a worker thread") }
        var parameters = sched_param(sched_priority: 0)
        guard sched_setscheduler(0, ThreadScheduling.batch, &parameters) == 0 else {
            return .current("sched_setscheduler", "a worker thread: SCHED_BATCH")
        }
        let nice = min(19, base + level.rawValue)
        guard setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0 else {
            return .current("setpriority", "a worker thread: nice \(nice)")
        }
        return nil
    }
}

/// A thread's scheduling as the kernel reports it: policy, nice level and real-time priority.
public struct ThreadScheduling: Equatable, Sendable, CustomStringConvertible {
    /// The policy's number (`SCHED_OTHER` 0, `SCHED_BATCH` 3, `SCHED_IDLE` 5, …).
    public var policy: Int32
    /// `SCHED_BATCH`, which Glibc declares only for `_GNU_SOURCE` (the kernel's ABI number).
    public static let batch: Int32 = 3
    /// `SCHED_IDLE`, likewise.
    public static let idle: Int32 = 5
    /// The nice level, -20…19.
    public var nice: Int32
    /// The real-time priority, 1…99 under `SCHED_RR`/`SCHED_FIFO`, 0 otherwise.
    public var realtimePriority: Int32

    /// Creates a value.
    public init(policy: Int32, nice: Int32, realtimePriority: Int32 = 0) {
        self.policy = policy
        self.nice = nice
        self.realtimePriority = realtimePriority
    }

    /// The calling thread's, from `/proc/thread-self/stat`; `nil` if it cannot be read.
    public static func callingThread() -> ThreadScheduling? {
        read("/proc/thread-self/stat")
    }

    /// Thread `tid`'s, of this process or of `process`, from `/proc/PID/task/TID/stat`; `nil`
    /// if there is no such thread.
    public static func thread(_ tid: Int32, of process: Int32? = nil) -> ThreadScheduling? {
        read("/proc/\(process.map { "\($0)" } ?? "self")/task/\(tid)/stat")
    }

    /// The policy's name as `chrt` prints it.
    public var policyName: String {
        switch policy {
        case SCHED_OTHER: "SCHED_OTHER"
        case SCHED_FIFO: "SCHED_FIFO"
        case SCHED_RR: "SCHED_RR"
        case Self.batch: "SCHED_BATCH"
        case Self.idle: "SCHED_IDLE"
        default: "policy \(policy)"
        }
    }

    public var description: String {
        policy == SCHED_RR || policy == SCHED_FIFO ? "\(policyName) \(realtimePriority)" : "\(policyName), nice \(nice)"
    }

    private static func read(_ path: String) -> ThreadScheduling? {
        // A `stat` line is under 1 KiB (its size reads 0: FileIO reads it to its end).
        guard case .success(let bytes) = FileIO.read(path, limit: 4096) else { return nil }
        return parse(stat: String(decoding: bytes, as: UTF8.self))
    }

    /// Reads a `stat` line: nice is its 19th field, the real-time priority its 40th, the policy
    /// its 41st. The second field (the thread's name, in parentheses) may hold spaces and
    /// parentheses of its own, so fields are counted from the last `)`.
    static func parse(stat: String) -> ThreadScheduling? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        // After the name: field 3 (the state) onwards.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 41 - 3, let nice = Int32(fields[19 - 3]), let realtime = Int32(fields[40 - 3]),
              let policy = Int32(fields[41 - 3]) else { return nil }
        return ThreadScheduling(policy: policy, nice: nice, realtimePriority: realtime)
    }
}
