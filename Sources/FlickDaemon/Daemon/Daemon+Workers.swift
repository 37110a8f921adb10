import FlickDisplay
import Logging
import Synchronization

/// The threads' priorities, said once at start: the loop's scheduling, and the workers' as the
/// kernel applied it (`WorkerPriority`; docs/tiles.md, "Threads: the loop first"), or why not.
extension Daemon {
    /// Starts a worker thread at each level as every worker starts, reads back what each runs
    /// at, and says them with the loop's. Costs the loop two threads' start and end, before the
    /// first frame.
    static func sayThreadPriorities(logger: Logger) {
        let loop = ThreadScheduling.callingThread().map { "\($0)" } ?? "unknown"
        var applied: [WorkerPriority.Level: String] = [:]
        for level in WorkerPriority.Level.allCases {
            guard let worker = BackgroundWorker(level: level) else { return }
            defer { worker.stop() }
            let seen = Mutex<ThreadScheduling?>(nil)
            guard worker.submit({ seen.withLock { $0 = ThreadScheduling.callingThread() } }) else { return }
            worker.waitUntilDone()
            if let refusal = worker.priorityRefusal {
                // A unit or sandbox whose system-call filter lacks sched_setscheduler/setpriority.
                logger.report(.warning, "threads: the workers run at the loop's priority (\(loop)) and compete with it for the cores: ",
                              refusal)
                return
            }
            applied[level] = seen.withLock { $0 }.map { "\($0)" } ?? "unknown"
        }
        let band = applied[.band] ?? "unknown", ahead = applied[.ahead] ?? "unknown"
        logger.info("threads: the loop \(loop); the scan-out band's worker \(band); tile decoders and pyramid builds \(ahead)")
    }
}
