import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon's threads (issue 36 part 7): its loop keeps the scheduling it was started
/// with, its tile decoders run below it, and the journal says both at start. Read from the
/// kernel (`/proc/PID/task/*/stat`), not from what the code meant to ask.
@Suite struct WorkerThreadsDaemonTests {
    @Test func theLoopRunsAboveItsTileDecodersAndSaysSo() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The test pattern is tiled content: its decoders start with it.
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let pid = daemon.process.processIdentifier
        // The child inherits the test's scheduling: its loop should still have it.
        let started = try #require(ThreadScheduling.callingThread())
        let tids = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap { Int32($0) }
        let threads = tids.compactMap { tid in ThreadScheduling.thread(tid, of: pid).map { (tid, $0) } }
        let loop = try #require(threads.first { $0.0 == pid }?.1)
        #expect(loop == started)
        let worker = ThreadScheduling(policy: ThreadScheduling.batch, nice: min(19, started.nice + WorkerPriority.niceAboveLoop))
        #expect(threads.filter { $0.1 == worker }.count >= TileLoader.defaultWorkers, "\(threads)")
        #expect(daemon.stderr.contains("threads: the loop \(started); workers (tile decoders, scan-out band, pyramid builds) \(worker)"),
                "\(daemon.stderr)")
        #expect(try daemon.terminate() == 0)
    }
}
