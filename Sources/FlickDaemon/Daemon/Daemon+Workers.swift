import FlickDisplay
import FlickSystem
import Glibc
import Logging

/// The threads' priorities, set and said once at start: the loop's real-time priority
/// (`LoopPriority`, `display.realtime_priority`), and the workers' as the kernel applied it
/// (`WorkerPriority`; docs/tiles.md, "Threads: the loop first"), or why not.
extension Daemon {
    /// Puts the calling thread (the loop) at `realtime` and says what the kernel applied; then
    /// starts one short-lived thread per worker level, from the loop as every worker starts, each
    /// lowering itself as a worker does, reading back what it runs at and saying it. The loop
    /// waits for neither: on a loaded board a thread below it may wait tens of ms for a core.
    /// - Returns: the loop's scheduling as `status` reports it.
    static func setThreadPriorities(realtime: Int32, logger: Logger) -> String {
        let refusal = realtime > 0 ? LoopPriority.setCallingThread(to: realtime) : nil
        let running = ThreadScheduling.callingThread()
        let loop = LoopPriority.outcome(asked: realtime, refusal: refusal, running: running)
        // A notice, not a warning: a developer's `flickd run` has no RLIMIT_RTPRIO and loses
        // nothing it had; on a kiosk the unit grants it, and a refusal there is worth a look.
        if refusal != nil {
            logger.notice("threads: the event loop \(loop); it may wait behind other busy processes for a core")
        } else {
            logger.info("threads: the event loop \(loop)")
        }
        let scheduling = running.map { "\($0)" } ?? "unknown"
        for level in WorkerPriority.Level.allCases {
            let probe = Probe(level: level, loop: scheduling, logger: logger)
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
        return loop
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
