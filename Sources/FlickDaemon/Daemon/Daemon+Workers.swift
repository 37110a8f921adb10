import FlickDisplay
import Glibc
import Logging

/// The threads' priorities, said once at start: the loop's scheduling, and the workers' as the
/// kernel applied it (`WorkerPriority`; docs/tiles.md, "Threads: the loop first"), or why not.
extension Daemon {
    /// Starts one short-lived thread per worker level, from the loop as every worker starts;
    /// each lowers itself as a worker does, reads back what it runs at and says it. The loop
    /// waits for neither: on a loaded board a thread below it may wait tens of ms for a core.
    static func sayThreadPriorities(logger: Logger) {
        let loop = ThreadScheduling.callingThread().map { "\($0)" } ?? "unknown"
        for level in WorkerPriority.Level.allCases {
            let probe = Probe(level: level, loop: loop, logger: logger)
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            var thread = pthread_t()
            let context = Unmanaged.passRetained(probe).toOpaque()
            if pthread_create(&thread, &attributes, { context in
                guard let context else { return nil }
                Unmanaged<Probe>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context) != 0 {
                Unmanaged<Probe>.fromOpaque(context).release()
            }
        }
    }

    /// One level's probe, run on its own thread.
    private final class Probe: @unchecked Sendable {
        let level: WorkerPriority.Level
        let loop: String
        let logger: Logger

        init(level: WorkerPriority.Level, loop: String, logger: Logger) {
            self.level = level
            self.loop = loop
            self.logger = logger
        }

        func run() {
            let who = level == .band ? "the scan-out band's worker" : "tile decoders and pyramid builds"
            if let refusal = WorkerPriority.lowerCallingThread(to: level) {
                // A unit or sandbox whose system-call filter lacks sched_setscheduler/setpriority.
                logger.report(.warning, "threads: \(who) run at the loop's priority (\(loop)) and compete with it for the cores: ", refusal)
                return
            }
            let applied = ThreadScheduling.callingThread().map { "\($0)" } ?? "unknown"
            logger.info("threads: \(who) \(applied), below the loop's \(loop)")
        }
    }
}
