import FlickDisplay
import Foundation
import Glibc
import Testing

/// The loop reads SIGTERM, SIGINT and SIGHUP through sd-event; no other thread may take them.
/// With tiled content shown at start (a pyramid built before), the tile decoders started before
/// the loop blocked the signals, took SIGHUP or SIGTERM, and their default action ended the
/// daemon: a `systemctl reload` killed it, a stop lost the state.
@Suite struct SignalsDaemonTests {
    /// The blocked-signal mask of `pid`'s thread `tid` (hex, as /proc says it).
    static func blocked(_ pid: Int32, _ tid: String) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.map { $0.dropFirst(7).trimmingCharacters(in: .whitespaces) }
    }

    @Test func withTiledContentAtStartSIGHUPReloadsAndSIGTERMStopsCleanly() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ContentWatchDaemonTests.png(dir + "/map.png", 0x00FF00, width: 1200, height: 900)
        let built = try runBuilt("flickd", ["pyramid", dir + "/map.png", "--cache-directory", dir + "/cache"])
        #expect(built.status == 0, "\(built.err)")
        let extra = "[content]\npath = \"\(dir)/map.png\"\npixel_budget = 65536\ncache_directory = \"\(dir)/cache\"\n"
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil)
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        // As systemd starts a service: nothing blocked (a child inherits the launching thread's mask).
        var loopSignals = sigset_t(), before = sigset_t()
        sigemptyset(&loopSignals)
        for signo in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&loopSignals, signo) }
        pthread_sigmask(SIG_UNBLOCK, &loopSignals, &before)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        pthread_sigmask(SIG_SETMASK, &before, nil)
        try daemon.waitUntilReady()
        let pid = daemon.process.processIdentifier
        #expect(daemon.stderr.contains("content: \(dir)/map.png, 1200x900, 12 levels of 254 px tiles"), "\(daemon.stderr)")
        // Every thread blocks them (SIGHUP 1, SIGINT 2, SIGTERM 15: bits 0, 1 and 14).
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        #expect(threads.count > 1, "the tile decoders run")
        for tid in threads {
            let mask = try #require(Self.blocked(pid, tid).flatMap { UInt64($0, radix: 16) })
            #expect(mask & 0x4003 == 0x4003, "thread \(tid) lets the loop's signals through: \(String(mask, radix: 16))")
        }
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reloaded ")
        #expect(daemon.process.isRunning)
        #expect(try daemon.terminate() == 0)
        #expect(daemon.stderr.contains("stopped"))
    }
}
