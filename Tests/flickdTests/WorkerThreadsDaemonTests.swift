import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon's threads (issue 36 part 7): its loop keeps the scheduling it was started
/// with, the band's worker and the tile decoders run below it at their levels, and the journal
/// says so at start. Read from the kernel (`/proc/PID/task/*/stat`), not from what the code
/// meant to ask.
@Suite struct WorkerThreadsDaemonTests {
    @Test func theLoopRunsAboveItsWorkersAndSaysSo() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The test pattern is tiled content: its decoders start with it.
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let pid = daemon.process.processIdentifier
        // The child inherits the test's scheduling: its loop should still have it.
        let started = try #require(ThreadScheduling.callingThread())
        func threads() -> [(tid: Int32, scheduling: ThreadScheduling)] {
            let tids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { Int32($0) }
            return tids.compactMap { tid in ThreadScheduling.thread(tid, of: pid).map { (tid, $0) } }
        }
        func worker(_ level: WorkerPriority.Level) -> ThreadScheduling {
            ThreadScheduling(policy: ThreadScheduling.batch, nice: min(19, started.nice + level.rawValue))
        }
        // The decoders start with the content, the band's worker with the first frame at zoom 1.
        try daemon.waitUntil("the tile decoders and the band's worker, each at its level", timeout: 10) {
            let now = threads()
            return now.filter { $0.scheduling == worker(.ahead) }.count >= TileLoader.defaultWorkers
                && now.filter { $0.scheduling == worker(.band) }.count == 1
        }
        #expect(threads().first { $0.tid == pid }?.scheduling == started)
        // Said from threads of their own: the loop waits for neither.
        try daemon.waitForLog("threads: the scan-out band's worker \(worker(.band)), below the loop's \(started)")
        try daemon.waitForLog("threads: tile decoders and pyramid builds \(worker(.ahead)), below the loop's \(started)")
        #expect(try daemon.terminate() == 0)
    }
}
