import FlickDisplay
import Logging
import Synchronization

/// The threads' priorities, said once at start: the loop's scheduling, and the workers' as the
/// kernel applied it (`WorkerPriority`; docs/tiles.md, "Threads"), or why it could not.
extension Daemon {
    /// Starts one worker thread as every worker starts, reads back what it runs at, and says it
    /// with the loop's. Costs the loop one thread's start and end, before the first frame.
    static func sayThreadPriorities(logger: Logger) {
        let loop = ThreadScheduling.callingThread().map { "\($0)" } ?? "unknown"
        guard let worker = BackgroundWorker() else { return }
        defer { worker.stop() }
        let seen = Mutex<ThreadScheduling?>(nil)
        guard worker.submit({ seen.withLock { $0 = ThreadScheduling.callingThread() } }) else { return }
        worker.waitUntilDone()
        if let refusal = worker.priorityRefusal {
            // A unit or sandbox whose system-call filter lacks sched_setscheduler/setpriority.
            logger.report(.warning, "threads: the workers run at the loop's priority (\(loop)) and compete with it for the cores: ", refusal)
            return
        }
        let workers = seen.withLock { $0 }.map { "\($0)" } ?? "unknown"
        logger.info("threads: the loop \(loop); workers (tile decoders, scan-out band, pyramid builds) \(workers)")
    }
}
