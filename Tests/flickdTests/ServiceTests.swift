import FlickControl
import FlickInput
import FlickTestSupport
import Foundation
import Glibc
import Testing

/// The daemon as systemd runs it: sd_notify, the watchdog, SIGHUP reloads, SIGTERM, and the
/// state that survives a restart.
@Suite struct ServiceTests {
    /// A datagram socket standing in for systemd's `NOTIFY_SOCKET`, collecting what arrives.
    final class NotifySocket: @unchecked Sendable {
        let path: String
        private let fd: Int32
        private let lock = NSLock()
        private var received: [String] = []

        init(path: String) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let bound = withUnixAddress(path) { bind(fd, $0, $1) }
            guard bound == 0 else { throw TestFailure("bind \(path): errno \(errno)") }
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    guard n > 0 else { return }
                    let text = String(decoding: buffer[0..<n], as: UTF8.self)
                    lock.withLock { received.append(text) }
                }
            }
        }

        deinit { close(fd) }

        /// Every message so far (one datagram may hold several `KEY=value` lines).
        var messages: [String] { lock.withLock { received } }

        func count(_ line: String) -> Int {
            messages.reduce(0) { $0 + $1.split(separator: "\n").filter { $0 == line }.count }
        }
    }

    @Test func readyAfterTheFirstFrameThenWatchdogPings() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let notify = try NotifySocket(path: dir + "/notify.sock")
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"],
                                       environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        try daemon.waitUntil("READY=1", timeout: 15) { notify.count("READY=1") == 1 }
        let status = notify.messages.joined(separator: "\n").split(separator: "\n").first { $0.hasPrefix("STATUS=") }
        #expect(status?.contains("placeholder (test-pattern) on headless") == true)
        // sd-event pings at a quarter to a half of WATCHDOG_USEC: several within a second.
        try daemon.waitUntil("three WATCHDOG=1", timeout: 5) { notify.count("WATCHDOG=1") >= 3 }
        // A reload is announced, then READY=1 again.
        daemon.signal(SIGHUP)
        try daemon.waitUntil("READY=1 after RELOADING=1", timeout: 10) { notify.count("READY=1") == 2 }
        let lines = notify.messages.joined(separator: "\n").split(separator: "\n").filter { !$0.hasPrefix("WATCHDOG") }
        let reloading = try #require(lines.firstIndex { $0 == "RELOADING=1" })
        #expect(lines[reloading...].contains { $0.hasPrefix("MONOTONIC_USEC=") })
        #expect(lines.lastIndex(of: "READY=1")! > reloading)
        #expect(try daemon.terminate() == 0)
        // Sent before the exit, read on the socket's own thread: waited for, then counted.
        try waitUntil("STOPPING=1", timeout: .seconds(10)) { notify.count("STOPPING=1") >= 1 }
        #expect(notify.count("STOPPING=1") == 1)
    }

    @Test func noWatchdogPingsWithoutWatchdogUsec() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let notify = try NotifySocket(path: dir + "/notify.sock")
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"],
                                       environment: ["NOTIFY_SOCKET": notify.path])
        try daemon.waitUntil("READY=1", timeout: 15) { notify.count("READY=1") == 1 }
        // An absence has no moment to wait for: time passes on purpose, several watchdog periods
        // at the first test's WATCHDOG_USEC (200 ms), in which no ping may come.
        usleep(500_000)
        #expect(notify.count("WATCHDOG=1") == 0)
        #expect(try daemon.terminate() == 0)
    }

    /// Distance travelled from release to rest, and the release velocity, of the `n`-th flick.
    static func flick(_ n: Int, in events: [ControlMessage]) throws -> (travel: Double, vy: Double) {
        let ends = events.indices.filter { events[$0].type == "didEndDragging" }
        let rests = events.indices.filter { events[$0].type == "didEndDecelerating" }
        let release = try #require(events[ends[n]].offset?[1])
        let rest = try #require(events[rests[n]].offset?[1])
        let gesture = try #require(events[ends[n]...].first { $0.gesture == "flick" })
        return (rest - release, try #require(gesture.vy))
    }

    @Test func reloadRefusesABadFileAndAppliesANewDecelerationRate() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        try FlickdProcess.config(directory: dir).write(toFile: config, atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [2.5, 9]).write(toFile: dir + "/flicks.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flicks.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)

        // A bad file: refused with its line and key; the config in force stays.
        try FlickdProcess.config(directory: dir, scroll: "deceleration_rate = \"slow\"").write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reload refused")
        #expect(daemon.stderr.contains("\(config):2: scroll.deceleration_rate: expected \"normal\", \"fast\""))

        var events = try subscriber.waitFor("didEndDecelerating", daemon: daemon)
        let first = try Self.flick(0, in: events)
        // vy is the offset's velocity (protocol 2): the travel is vy / (1000 × −ln rate).
        let normal = first.vy / (-1000 * log(0.998))
        #expect(abs(first.travel - normal) < 1.5, "normal: travelled \(first.travel), formula \(normal)")

        // A good file applies to the next flick.
        try FlickdProcess.config(directory: dir, scroll: "deceleration_rate = \"fast\"").write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reloaded \(config): deceleration")
        events = try subscriber.waitFor("didEndDecelerating", count: 2, daemon: daemon)
        let second = try Self.flick(1, in: events)
        let fast = second.vy / (-1000 * log(0.99))
        #expect(abs(second.travel - fast) < 1.5, "fast: travelled \(second.travel), formula \(fast)")
        #expect(second.travel < first.travel / 3)
        #expect(try daemon.terminate() == 0)
    }

    /// Issue 34: a reload changing two keys, one read only at start, logs both, old → new, and
    /// says which waits for a restart.
    @Test func aReloadLogsEveryKeyItChangedAndWhichWaitForARestart() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        try FlickdProcess.config(directory: dir).write(toFile: config, atomically: true, encoding: .utf8)
        try Recordings.flicks(at: [30]).write(toFile: dir + "/flicks.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/flicks.event"])
        try daemon.waitUntilReady()
        try FlickdProcess.config(directory: dir, scroll: "deceleration_rate = \"fast\"", extra: "[input]\ngrab = false")
            .write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reloaded \(config)")
        let log = daemon.stderr
        #expect(log.contains("reload: scroll.deceleration_rate: \"normal\" → \"fast\"\n"), "\(log)")
        #expect(log.contains("reload: input.grab: (default) → false (applies only at the next start)\n"), "\(log)")
        #expect(log.contains("reloaded \(config): deceleration fast (0.99); 2 keys changed; restart flickd to apply input.grab"), "\(log)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aReloadDuringADragLetsTheDragFinish() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        try FlickdProcess.config(directory: dir).write(toFile: config, atomically: true, encoding: .utf8)
        var script = TouchScript(description: Recordings.panel)
        script.idle(0)
        script.drag(from: (400, 400), to: (400, 200), seconds: 3, t: 2)     // slow: no momentum
        try script.text.write(toFile: dir + "/drag.event", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--input", "evemu:\(dir)/drag.event"])
        try daemon.waitUntilReady()
        let subscriber = try EventCollector(daemon)
        _ = try subscriber.waitFor("willBeginDragging", daemon: daemon)
        try FlickdProcess.config(directory: dir, scroll: "deceleration_rate = \"fast\"\nbounces = false")
            .write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("reloaded \(config)")
        let events = try subscriber.waitFor("didEndDragging", daemon: daemon)
        // Slow enough that the content had the touch (after 150 ms) before it became a drag; it
        // heard the finger move until then, a line per whole pixel from 389 to 370 (the panel
        // reports whole units, and a report that leaves the finger where it was is no move).
        #expect(FlickTests.skeleton(events) == ["contentTouchDown"] + Array(repeating: "contentTouchMove", count: 20)
                + ["contentTouchCancel", "willBeginDragging", "willEndDragging", "didEndDragging"])
        #expect(events.filter { $0.type == "contentTouchMove" }.map { $0.y ?? 0 } == (370...389).reversed().map(Double.init))
        let reloadedAt = try #require(daemon.stderr.range(of: "reloaded ")?.lowerBound)
        #expect(daemon.stderr[..<reloadedAt].contains("drag by") == false) // the reload came mid-drag
        try daemon.waitForLog("drag by (0, -200) px, no momentum")
        // The content follows the finger beyond the 3 mm slop (30 px on this 10 px/mm panel).
        #expect(events.last?.offset == [0, 170])
        #expect(try daemon.terminate() == 0)
    }

    @Test func offsetAndZoomComeBackAfterARestart() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = FlickdProcess.config(directory: dir)
        try config.replacingOccurrences(of: "save_delay_ms = 50", with: "save_delay_ms = 50\nrestore = \"view\"")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        #expect(try client.call(ControlRequest(cmd: "set-zoom", scale: 2, animated: false)).ok == true)
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 150, y: 420, animated: false)).ok == true)
        // Within state.save_interval_s of the start, nothing was saved: the stop writes the view.
        #expect(try daemon.terminate() == 0)
        #expect((try? String(contentsOfFile: dir + "/state.json", encoding: .utf8))?.contains("420") == true)

        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        #expect(daemon.stderr.contains("state: restored offset (150, 420) zoom 2"))
        let status = try #require(try daemon.client().call(ControlRequest(cmd: "status")).status)
        #expect(status.offset == [150, 420] && status.zoomScale == 2)
        #expect(try daemon.terminate() == 0)

        // state.restore's default, "home": the saved view stays saved, the start is at home.
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        #expect(daemon.stderr.contains("state: starting at the home view, not the view saved (state.restore = \"home\")"))
        let home = try #require(try daemon.client().call(ControlRequest(cmd: "status")).status)
        #expect(home.offset == [0, 0] && home.zoomScale == 1)
        #expect(try daemon.terminate() == 0)

        // A truncated state file: a warning, and the view starts at home.
        let saved = try String(contentsOfFile: dir + "/state.json", encoding: .utf8)
        try String(saved.prefix(saved.count / 2)).write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        #expect(daemon.stderr.contains("ignoring"))
        #expect(try daemon.client().call(ControlRequest(cmd: "status")).status?.offset == [0, 0])
        #expect(try daemon.terminate() == 0)
    }

    @Test func withNoStatePathNothingIsSavedAndAStartIsAtHome() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = FlickdProcess.config(directory: dir).replacingOccurrences(of: "path = \"\(dir)/state.json\"", with: "path = \"\"")
        #expect(config.contains("path = \"\"\n"))
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let said = "state: state.path is empty: nothing is saved, so a restart starts at the home view"
        for _ in 0..<2 {
            let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
            try daemon.waitUntilReady()
            #expect(daemon.stderr.components(separatedBy: said).count == 2)
            let client = try daemon.client()
            #expect(try client.call(ControlRequest(cmd: "status")).status?.offset == [0, 0])
            #expect(try client.call(ControlRequest(cmd: "set-offset", x: 0, y: 300, animated: false)).ok == true)
            // The stop saves what is pending: with no path there is nothing to save, and no
            // warning of a save that failed.
            #expect(try daemon.terminate() == 0)
            #expect(!daemon.finalLog().contains("state (said once"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") } == [])
    }

    @Test func aBadConfigAtStartExitsNonZeroWithLineAndKey() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "[scroll]\nbounces = true\nspring_stiffness = -3\n".write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntil("flickd to exit", timeout: 15) { !daemon.process.isRunning }
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus != 0)
        #expect(daemon.finalLog().contains("flickd.toml:3: scroll.spring_stiffness: expected a number greater than 0"))
    }
}

/// The control socket's path (issue 22): only a stale socket is replaced.
@Suite struct ControlSocketPathTests {
    @Test func onlyAStaleSocketIsReplaced() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"

        // A regular file there is someone's data: kept, and the daemon says why it has no socket.
        try "precious".write(toFile: socket, atomically: true, encoding: .utf8)
        var daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitForLog("a file that is not a socket is there")
        #expect(try daemon.terminate() == 0)
        #expect(try String(contentsOfFile: socket, encoding: .utf8) == "precious")
        try FileManager.default.removeItem(atPath: socket)

        // A stale socket (bound, then its owner gone without removing it) is replaced.
        let stale = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = withUnixAddress(socket) { bind(stale, $0, $1) }
        close(stale)
        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        #expect(try daemon.client().call(ControlRequest(cmd: "status")).ok == true)

        // A second daemon on the same path leaves the first one's socket alone.
        let second = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try second.waitForLog("another flickd is listening")
        #expect(try second.terminate() == 0)
        #expect(try daemon.client().call(ControlRequest(cmd: "status")).ok == true)
        #expect(try daemon.terminate() == 0)
    }
}

/// The state folder (issue 22): made when missing, and a folder that cannot be written to is
/// said once, not at every save. The view is saved (restore = "view"), at each rest.
@Suite struct StateFolderTests {
    static func config(_ dir: String, path: String) -> String {
        FlickdProcess.config(directory: dir).replacingOccurrences(of: "path = \"\(dir)/state.json\"", with: "path = \"\(path)\"")
            .replacingOccurrences(of: "save_delay_ms = 50", with: "save_delay_ms = 50\nrestore = \"view\"\nsave_interval_s = 0")
    }

    /// `n` offsets set, each saved on its own: `saved(i)` returns once the `i`-th save is done.
    static func saves(_ daemon: FlickdProcess, _ n: Int, saved: (Int) throws -> Void) throws {
        let client = try daemon.client()
        for i in 0..<n {
            #expect(try client.call(ControlRequest(cmd: "set-offset", x: 0, y: Double(10 * (i + 1)), animated: false)).ok == true)
            try saved(i)
        }
    }

    @Test func aMissingFolderIsMadeAndAnUnwritableOneIsSaidOnce() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = dir + "/not/yet/state.json"
        try Self.config(dir, path: missing).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        var daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        try Self.saves(daemon, 1) { _ in }
        try daemon.waitUntil("the state file in the folder made for it", timeout: 5) { FileManager.default.fileExists(atPath: missing) }
        #expect(try daemon.terminate() == 0)

        // /proc refuses every file: five saves, one warning.
        try Self.config(dir, path: "/proc/flickd-test/state.json").write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let warning = "state (said once until a save succeeds)"
        try Self.saves(daemon, 5) { i in
            // The first failed save says so. The next ones leave no trace (that is what is
            // tested), so time passes on purpose for each: past the 50 ms save delay.
            if i == 0 { try daemon.waitForLog(warning) } else { usleep(120_000) }
        }
        #expect(try daemon.terminate() == 0)
        let log = daemon.finalLog()
        #expect(log.components(separatedBy: warning).count - 1 == 1, "\(log)")
    }
}

/// A live run without a panel (issue 22): by default it fails and says why; with
/// `display.fallback = "headless"` it runs, and STATUS= and the journal say there is no panel.
@Suite struct DisplayFallbackTests {
    @Test func noPanelFailsUnlessTheFallbackIsAllowedThenSaysSo() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func config(fallback: String) -> String {
            """
            [display]
            card = "\(dir)/no-card"
            fbdev = "\(dir)/no-fb"
            headless_size = "800x480"
            fallback = "\(fallback)"
            [control]
            socket = "\(dir)/control.sock"
            [state]
            path = "\(dir)/state.json"
            """
        }
        try config(fallback: "fail").write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let failed = try runBuilt("flickd", ["run", "--display", "auto", "--config", dir + "/flickd.toml"])
        #expect(failed.status == 69, "\(failed.err)")
        #expect(failed.err.hasPrefix("flickd: no display: drm: ") && failed.err.contains("display.fallback"), "\(failed.err)")

        try config(fallback: "headless").write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let notify = try ServiceTests.NotifySocket(path: dir + "/notify.sock")
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "auto"], environment: ["NOTIFY_SOCKET": notify.path])
        try daemon.waitUntil("READY=1", timeout: 15) { notify.count("READY=1") == 1 }
        let status = notify.messages.joined(separator: "\n").split(separator: "\n").first { $0.hasPrefix("STATUS=") }
        #expect(status?.contains("no panel: neither DRM nor fbdev opened") == true, "\(String(describing: status))")
        // The journal line is read on a thread of the test's own, apart from the notify socket.
        try daemon.waitForLog("warning: display: headless")
        #expect(try daemon.terminate() == 0)
    }
}
