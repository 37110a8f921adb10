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

    /// The calling thread's counters now. `getrusage(RUSAGE_THREAD)` and one read of
    /// `/proc/thread-self/schedstat` into a stack buffer: no allocation, about 10 µs, so read it
    /// outside the interval being timed.
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
        out.runQueueNanoseconds = runQueueWait()
        return out
    }

    static func - (a: ThreadWaits, b: ThreadWaits) -> ThreadWaits {
        ThreadWaits(voluntary: a.voluntary - b.voluntary, involuntary: a.involuntary - b.involuntary,
                    runQueueNanoseconds: a.runQueueNanoseconds - b.runQueueNanoseconds,
                    minorFaults: a.minorFaults - b.minorFaults, majorFaults: a.majorFaults - b.majorFaults)
    }

    /// `schedstat`'s "time spent waiting on a runqueue", 0 where the kernel has no schedstats.
    private static func runQueueWait() -> Int64 {
        let fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer -> Int64 in
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return 0 }
            // "<on cpu ns> <run queue ns> <slices>\n"
            var field = 0, value: Int64 = 0
            for byte in buffer[0..<count] {
                if byte == UInt8(ascii: " ") {
                    if field == 1 { return value }
                    field += 1
                    value = 0
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
                }
            }
            return field == 1 ? value : 0
        }
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
