import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the calling thread's time went between two readings: whether it slept on something
/// (a lock, I/O: a voluntary switch), was taken off its CPU (an involuntary one), waited on a run
/// queue for a CPU, or faulted pages in. Read around a frame that took too long, it tells a
/// loop that waited for its own workers (a lock they held) from one that was not given a CPU.
struct ThreadWaits {
    var voluntary = 0
    var involuntary = 0
    /// Nanoseconds runnable but not running (`schedstat`'s second field).
    var runQueueNanoseconds: Int64 = 0
    var minorFaults = 0
    var majorFaults = 0

    /// The calling thread's counters now: `getrusage(RUSAGE_THREAD)` and one read of
    /// `/proc/thread-self/schedstat`, some tens of µs, so read it outside the interval being
    /// timed.
    static func now() -> ThreadWaits {
        var usage = rusage()
        var out = ThreadWaits()
        // RUSAGE_THREAD (1) is behind _GNU_SOURCE, which Glibc's module does not import.
        if getrusage(__rusage_who_t(1), &usage) == 0 {
            out.voluntary = usage.ru_nvcsw
            out.involuntary = usage.ru_nivcsw
            out.minorFaults = usage.ru_minflt
            out.majorFaults = usage.ru_majflt
        }
        out.runQueueNanoseconds = SchedStat.read("/proc/thread-self/schedstat")?.waiting ?? 0
        return out
    }

    static func - (a: ThreadWaits, b: ThreadWaits) -> ThreadWaits {
        ThreadWaits(voluntary: a.voluntary - b.voluntary, involuntary: a.involuntary - b.involuntary,
                    runQueueNanoseconds: a.runQueueNanoseconds - b.runQueueNanoseconds,
                    minorFaults: a.minorFaults - b.minorFaults, majorFaults: a.majorFaults - b.majorFaults)
    }
}

/// A thread's `schedstat` (`/proc/…/task/TID/schedstat`, `/proc/thread-self/schedstat`): its
/// first two fields, time on a CPU and time runnable but waiting for one, ns.
enum SchedStat {
    /// The file's two times; nil where it cannot be read (no such thread, no schedstats).
    static func read(_ path: String) -> (cpu: Int64, waiting: Int64)? {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let fields = text.split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return fields.count >= 2 ? (fields[0], fields[1]) : nil
    }
}

/// The frames of a flick that took longer than the bound, and what they waited on.
struct SlowFrames {
    /// Per slow frame: its time in µs, split as (arrivals taken, band taken, committed), and
    /// what the thread waited on meanwhile.
    var frames: [(total: Double, arrivals: Double, band: Double, commit: Double, waits: ThreadWaits)] = []

    /// One line: how many, which step took the time, and whether the loop thread slept on
    /// something, was preempted, waited for a CPU or faulted.
    func summary(bound: Double) -> String {
        guard !frames.isEmpty else { return "no frame over \(Int(bound)) µs" }
        let n = frames.count
        let slept = frames.filter { $0.waits.voluntary > 0 }.count
        let preempted = frames.filter { $0.waits.involuntary > 0 }.count
        let queued = frames.map { Double($0.waits.runQueueNanoseconds) / 1e3 }
        let faults = frames.map(\.waits.minorFaults).reduce(0, +), major = frames.map(\.waits.majorFaults).reduce(0, +)
        func step(_ path: KeyPath<(total: Double, arrivals: Double, band: Double, commit: Double, waits: ThreadWaits), Double>) -> String {
            fmt(Stats(samples: frames.map { $0[keyPath: path] }).median, 0)
        }
        return "\(n) frame\(n == 1 ? "" : "s") over \(Int(bound)) µs (median \(step(\.total)) µs: arrivals \(step(\.arrivals)), "
            + "band \(step(\.band)), commit \(step(\.commit))); the loop thread slept in \(slept), was preempted in \(preempted), "
            + "waited for a CPU \(fmt(Stats(samples: queued).median, 0)) µs median (max \(fmt(queued.max() ?? 0, 0))), "
            + "\(faults) minor and \(major) major faults"
    }
}
