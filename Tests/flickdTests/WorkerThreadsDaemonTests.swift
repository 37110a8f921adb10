import FlickControl
import FlickDisplay
import FlickSystem
import FlickTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// The real daemon's threads (issue 36 part 7): its loop takes `display.realtime_priority`
/// (SCHED_RR 1 by default) where the kernel allows it and says so where not, the band's worker
/// and the tile decoders run below it at their levels, and the journal and `status` say so.
/// Read from the kernel (`/proc/PID/task/*/stat`), not from what the code meant to ask.
@Suite struct WorkerThreadsDaemonTests {
    /// Whether this process may take SCHED_RR `priority` (root, or an RLIMIT_RTPRIO that high):
    /// the daemon it starts may then too. Asked of the kernel on a thread of its own, which
    /// ends straight after.
    static func realtimeAllowed(_ priority: Int32) -> Bool {
        let allowed = Mutex(false)
        runOnOwnThread { allowed.withLock { $0 = LoopPriority.setCallingThread(to: priority) == nil } }
        return allowed.withLock { $0 }
    }

    @Test(arguments: [1, 0] as [Int32])
    func theLoopRunsAboveItsWorkersAndSaysSo(realtime: Int32) throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The test pattern is tiled content: its decoders start with it.
        let config = FlickdProcess.config(directory: dir)
            .replacingOccurrences(of: "[display]\n", with: "[display]\nrealtime_priority = \(realtime)\n")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let pid = daemon.process.processIdentifier
        // The child starts with the test's scheduling; its loop then asks for real time.
        let started = try #require(ThreadScheduling.callingThread())
        let raised = realtime > 0 && Self.realtimeAllowed(realtime)
        let loop = raised ? ThreadScheduling(policy: SCHED_RR, nice: started.nice, realtimePriority: realtime) : started
        func threads() -> [(tid: Int32, scheduling: ThreadScheduling)] {
            let tids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { Int32($0) }
            return tids.compactMap { tid in ThreadScheduling.thread(tid, of: pid).map { (tid, $0) } }
        }
        // Workers made before the loop rose inherit the started scheduling; those made after are
        // reset to it on creation (SCHED_RESET_ON_FORK): the same levels either way.
        func worker(_ level: WorkerPriority.Level) -> ThreadScheduling {
            ThreadScheduling(policy: ThreadScheduling.batch, nice: min(19, started.nice + level.rawValue))
        }
        // The decoders start with the content, the band's worker with the first frame at zoom 1.
        try daemon.waitUntil("the tile decoders and the band's worker, each at its level", timeout: 10) {
            let now = threads()
            return now.filter { $0.scheduling == worker(.ahead) }.count >= TileLoader.defaultWorkers
                && now.filter { $0.scheduling == worker(.band) }.count == 1
        }
        #expect(threads().first { $0.tid == pid }?.scheduling == loop)
        // No other thread of the daemon is real time: what the loop makes stays ordinary.
        #expect(threads().filter { $0.tid != pid && $0.scheduling.realtimePriority > 0 }.isEmpty, "\(threads())")
        switch (realtime, raised) {
        case (0, _): try daemon.waitForLog("threads: the event loop \(started) (display.realtime_priority = 0)")
        case (_, true): try daemon.waitForLog("threads: the event loop \(loop)")
        case (_, false): try daemon.waitForLog("threads: the event loop \(started): SCHED_RR \(realtime) refused, sched_setscheduler failed:")
        }
        // Said from threads of their own: the loop waits for neither.
        try daemon.waitForLog("threads: the scan-out band's worker \(worker(.band)), below the loop's \(loop)")
        try daemon.waitForLog("threads: tile decoders and pyramid builds \(worker(.ahead)), below the loop's \(loop)")
        let status = try daemon.client().call(ControlRequest(cmd: "status")).status
        #expect(status?.loop?.hasPrefix("\(loop)") == true, "\(String(describing: status?.loop))")
        #expect(try daemon.terminate() == 0)
    }
}
