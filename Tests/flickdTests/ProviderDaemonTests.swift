import CMemfd
import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// The real daemon with content drawn by an app: the repository's examples run as providers
/// (Python, and C with cairo), a provider killed mid-run, and pools a hostile client passes.
@Suite(.serialized) struct ProviderDaemonTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let examples = root + "/examples/provider"

    /// The daemon on an 800×480 headless panel waiting for `provider:NAME` content.
    private func daemon(waitingFor name: String, extra: String = "") throws -> FlickdProcess {
        let dir = try FlickdProcess.makeDirectory()
        try FlickdProcess.config(directory: dir, extra: extra, placeholder: nil).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", "provider:\(name)"])
        try daemon.waitUntilReady()
        return daemon
    }

    /// An app run beside the daemon, its output kept.
    private func app(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func status(_ client: ControlClient) throws -> ControlStatus {
        try #require(try client.call(ControlRequest(cmd: "status")).status)
    }

    /// The frame on screen, decoded.
    private func snapshot(_ daemon: FlickdProcess, _ client: ControlClient, name: String) throws -> PixelBuffer {
        #expect(try client.call(ControlRequest(cmd: "snapshot", path: name)).ok == true)
        let path = daemon.directory + "/snapshots/" + name
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return try PNGCodec.decode(bytes, path: path, pixelBudget: 1 << 22)
    }

    /// Waits until the provider has drawn what the view shows (nothing pending) and `more`,
    /// then, when `shows` is given, until a snapshot of the screen satisfies it: the frame with
    /// the last tiles is presented a few refresh periods after the last answer, and nothing the
    /// daemon reports says when, so the screen itself is what is waited on.
    private func waitDrawn(_ daemon: FlickdProcess, _ client: ControlClient, _ what: String,
                           _ more: (ControlProviderStatus) -> Bool = { _ in true },
                           shows: ((PixelBuffer) -> Bool)? = nil) throws {
        try daemon.waitUntil(what, timeout: 20) {
            guard let p = try? status(client).provider else { return false }
            return (p.drawn ?? 0) > 0 && p.pending == 0 && more(p)
        }
        guard let shows else { return }
        var shot = 0
        try daemon.waitUntil(what + ", on screen", timeout: 10) {
            shot += 1
            guard let frame = try? snapshot(daemon, client, name: "wait-\(shot).png") else { return false }
            return shows(frame)
        }
    }

    /// How many colours a frame has (every other pixel): text is antialiased, a fill is flat.
    private func shades(_ frame: PixelBuffer) -> Int {
        var seen = Set<UInt32>()
        for y in stride(from: 0, to: frame.height, by: 2) { for x in stride(from: 0, to: frame.width, by: 2) { seen.insert(frame[x, y] & 0xFF_FFFF) } }
        return seen.count
    }

    @Test func thePythonExampleDrawsItsBoardRedrawsItsClockInPlaceAndItsLastFrameStaysWhenItDies() throws {
        // A grace long enough to look at the frame it leaves, short enough to wait out.
        let daemon = try daemon(waitingFor: "timetable", extra: "[content]\nprovider_grace_s = 3\n")
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        let client = try daemon.client()
        #expect(try status(client).content == "placeholder (black)")
        let python = try app("/usr/bin/python3", [Self.examples + "/timetable.py", "--socket", daemon.directory + "/control.sock",
                                                  "--exit-after", "60"])
        defer { if python.isRunning { kill(python.processIdentifier, SIGKILL) } }
        // The board, not the test pattern: the first departures' row colours at the left margin
        // (timetable.py's C_ROW_BG), the header above them.
        try waitDrawn(daemon, client, "the board drawn", shows: { frame in
            frame[20, 176 + 48] & 0xFF_FFFF == 0x18_222E && frame[20, 176 + 96 + 48] & 0xFF_FFFF == 0x1E_2A38
        })
        let shown = try status(client)
        #expect(shown.content == "provider timetable" && shown.contentSize == [1920, Double(176 + 200 * 96)])
        // Its clock row is invalidated every second: redrawn, the view where it was.
        let before = try #require(shown.provider)
        try daemon.waitUntil("two invalidations and their tiles drawn again", timeout: 10) {
            guard let p = try? status(client).provider else { return false }
            return (p.invalidations ?? 0) >= (before.invalidations ?? 0) + 2 && (p.drawn ?? 0) > (before.drawn ?? 0)
        }
        #expect(try status(client).offset == shown.offset)
        // flickctl says how it goes.
        let said = try runBuilt("flickctl", ["provider", "--socket", daemon.directory + "/control.sock"])
        #expect(said.status == 0 && said.out.hasPrefix("content provider timetable: connected, "))
        #expect(said.out.contains(" drawn, mean latency ") && said.out.contains(" invalidations"))
        // Killed mid-run, with nothing asked of it: its last frame stays for the grace, then the
        // configured content (the placeholder) returns, each said once.
        try daemon.waitUntil("no tile asked of the provider", timeout: 10) {
            (try? status(client).provider?.pending) == 0
        }
        kill(python.processIdentifier, SIGKILL)
        // Heard by the daemon alone: nothing is asked of it meanwhile (a request would wake it).
        try daemon.waitUntil("the provider's disconnection in the log", timeout: 10) {
            daemon.stderr.contains("content provider timetable disconnected")
        }
        let kept = try snapshot(daemon, client, name: "kept.png")
        #expect(kept[20, 176 + 48] & 0xFF_FFFF == 0x18_222E && kept[20, 176 + 96 + 48] & 0xFF_FFFF == 0x1E_2A38,
                "the board's last frame stays")
        #expect(try status(client).content == "provider timetable")
        try daemon.waitUntil("the placeholder back after the grace", timeout: 10) {
            (try? status(client))?.content == "placeholder (black)"
        }
        // Said on the daemon's stderr, read on a thread of the test's own: waited for, not
        // taken to be there because status shows the placeholder.
        try daemon.waitForLog("did not come back within content.provider_grace_s")
        try daemon.waitUntil("a black panel", timeout: 10) {
            guard let frame = try? snapshot(daemon, client, name: "black.png") else { return false }
            return frame[20, 176 + 48] & 0xFF_FFFF == 0 && frame[400, 240] & 0xFF_FFFF == 0
        }
        #expect(try status(client).provider == nil)
        let gone = try runBuilt("flickctl", ["provider", "--socket", daemon.directory + "/control.sock"])
        #expect(gone.status == 0 && gone.out.hasPrefix("no content provider connected"))
        #expect(daemon.stderr.components(separatedBy: "content provider timetable disconnected").count == 2)
        #expect(try daemon.terminate() == 0)
    }

    @Test func afterARestartTheProvidersViewIsWhereItWasWhenTheAppReconnects() throws {
        // Each rest saved (no interval): the test waits for the offset on disk before the stop.
        let first = try daemon(waitingFor: "timetable", extra: "restore = \"view\"\nsave_interval_s = 0\n")
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        let socket = first.directory + "/control.sock"
        var python = try app("/usr/bin/python3", [Self.examples + "/timetable.py", "--socket", socket, "--exit-after", "60"])
        var client = try first.client()
        try waitDrawn(first, client, "the board drawn")
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: 300, y: 2400, animated: false)).ok == true)
        try first.waitUntil("the offset saved", timeout: 10) {
            (try? String(contentsOfFile: first.directory + "/state.json", encoding: .utf8))?.contains("2400") == true
        }
        #expect(try first.terminate() == 0)
        python.waitUntilExit()
        let second = try FlickdProcess(directory: first.directory, arguments: ["run", "--display", "headless", "--content", "provider:timetable"])
        try second.waitUntilReady()
        client = try second.client()
        python = try app("/usr/bin/python3", [Self.examples + "/timetable.py", "--socket", socket, "--exit-after", "60"])
        defer { if python.isRunning { kill(python.processIdentifier, SIGKILL) } }
        try waitDrawn(second, client, "the board drawn again")
        #expect(try status(client).offset == [300, 2400])
        #expect(try second.terminate() == 0)
    }

    @Test func anAppRedrawingItsWholeBoardIsAskedForItsTilesInTurnAndAReloadLiftsTheBudget() throws {
        // One view's worth of tiles a second (15 on the 800×480 panel), against an app that
        // changes its whole board 20 times a second.
        let daemon = try daemon(waitingFor: "timetable", extra: "[content]\nprovider_redraw_hz = 1\n")
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        let client = try daemon.client()
        let python = try app("/usr/bin/python3", [Self.examples + "/timetable.py", "--socket", daemon.directory + "/control.sock",
                                                  "--redraw-all", "20", "--exit-after", "60"])
        defer { if python.isRunning { kill(python.processIdentifier, SIGKILL) } }
        try daemon.waitUntil("changed tiles waiting their turn", timeout: 30) {
            (try? status(client).provider?.redrawsDeferred ?? 0) ?? 0 > 20
        }
        // Said once in the journal, counted by flickctl; the frames go on at the display's rate.
        try daemon.waitForLog("faster than content.provider_redraw_hz")
        let said = try runBuilt("flickctl", ["provider", "--socket", daemon.directory + "/control.sock"])
        #expect(said.status == 0 && said.out.contains("changed tiles that waited their turn (content.provider_redraw_hz) "))
        // A reload lifts the budget for the app already connected: nothing waits any more.
        try FlickdProcess.config(directory: daemon.directory, extra: "[content]\nprovider_redraw_hz = 0\n", placeholder: nil)
            .write(toFile: daemon.directory + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("content.provider_redraw_hz: 1 → 0")
        try daemon.waitUntil("no tile waiting", timeout: 10) { (try? status(client).provider?.redrawsWaiting) == 0 }
        let lifted = try #require(try status(client).provider)
        try daemon.waitUntil("40 more tiles drawn", timeout: 30) {
            (try? status(client).provider?.drawn ?? 0) ?? 0 >= (lifted.drawn ?? 0) + 40
        }
        #expect(try status(client).provider?.redrawsDeferred == lifted.redrawsDeferred)
        #expect(daemon.stderr.components(separatedBy: "faster than content.provider_redraw_hz").count == 2)
        #expect(try daemon.terminate() == 0)
    }

    @Test func theCairoExampleDrawsTextAtTheScaleAskedFor() throws {
        let daemon = try daemon(waitingFor: "catalogue", extra: "[zoom]\nminimum_scale = 0.25\n")
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        // Built as its Makefile builds it, into the test's folder.
        let binary = daemon.directory + "/cairo-text"
        let cc = try app("/bin/sh", ["-c", "cc -std=c11 -O2 -Wall -Wextra -o '\(binary)' '\(Self.examples)/cairo-text.c' "
                                          + "$(pkg-config --cflags --libs cairo) -lm"])
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cairo-text.c does not build (libcairo2-dev: scripts/deps.sh installs it)")
        let client = try daemon.client()
        let app = try app(binary, ["--socket", daemon.directory + "/control.sock", "--name", "catalogue", "--exit-after", "60"])
        defer { if app.isRunning { kill(app.processIdentifier, SIGKILL) } }
        // Text: many shades (antialiased glyphs), not a flat fill.
        try waitDrawn(daemon, client, "the catalogue drawn", shows: { self.shades($0) > 16 })
        // Zoomed out to a quarter, the app is asked for a coarser level and draws its text at
        // that scale: still text, four times as much of it on screen.
        let drawn = try #require(try status(client).provider?.drawn)
        #expect(try client.call(ControlRequest(cmd: "set-zoom", scale: 0.25, animated: false)).ok == true)
        try waitDrawn(daemon, client, "the quarter-scale level drawn", { ($0.drawn ?? 0) > drawn }, shows: { self.shades($0) > 16 })
        // Zoomed in to 2 (it declares one level of detail above zoom 1): asked for tiles at scale
        // 2, drawn again by the app, not stretched.
        let quarter = try #require(try status(client).provider?.drawn)
        #expect(try client.call(ControlRequest(cmd: "set-zoom", scale: 2, animated: false)).ok == true)
        try waitDrawn(daemon, client, "the scale-2 level drawn", { ($0.drawn ?? 0) > quarter }, shows: { self.shades($0) > 16 })
    }

    @Test func badPoolsAndStrangersAreRefusedWithTheReasonAndTheDaemonCarriesOn() throws {
        let daemon = try daemon(waitingFor: "timetable")
        defer { try? FileManager.default.removeItem(atPath: daemon.directory) }
        let client = try daemon.client()
        let provide = ControlRequest(id: 1, cmd: "provide", width: 1920, height: 4000, tileSize: 64, slots: 2, name: "timetable")
        func refusal(_ fd: Int32?) throws -> String {
            let reply = try fd.map { try client.call(provide, passing: $0) } ?? client.call(provide)
            #expect(reply.ok == false)
            return reply.error ?? ""
        }
        func memfd(bytes: Int, seal: Bool) throws -> Int32 {
            let fd = flickd_memfd_create("hostile", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
            try #require(fd >= 0 && ftruncate(fd, off_t(bytes)) == 0)
            if seal { try #require(flickd_add_seals(fd, F_SEAL_SHRINK) == 0) }
            return fd
        }
        #expect(try refusal(nil).contains("missing"))
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        #expect(try refusal(ends[0]).contains("not a memfd"))
        close(ends[0]); close(ends[1])
        let unsealed = try memfd(bytes: 2 * 64 * 64 * 4, seal: false)
        #expect(try refusal(unsealed).contains("not sealed"))
        let small = try memfd(bytes: 64 * 64 * 4, seal: true)
        #expect(try refusal(small).contains("expected 32768"))
        var named = provide
        named.name = "other"
        let good = try memfd(bytes: 2 * 64 * 64 * 4, seal: true)
        #expect(try client.call(named, passing: good).error?.contains("provider:timetable") == true)
        // A stranger's answers and invalidations are refused.
        #expect(try client.call(ControlRequest(cmd: "tile", request: 1)).error?.contains("not the content provider") == true)
        #expect(try client.call(ControlRequest(cmd: "invalidate", x: 0, y: 0, width: 10, height: 10)).ok == false)
        // The right pool is taken; a second provider is refused while it serves.
        #expect(try client.call(provide, passing: good).provider?.slotBytes == 64 * 64 * 4)
        let second = try daemon.client()
        let again = try memfd(bytes: 2 * 64 * 64 * 4, seal: true)
        #expect(try second.call(provide, passing: again).error?.contains("another provider") == true)
        for fd in [unsealed, small, good, again] { close(fd) }
        #expect(try status(second).provider?.name == "timetable")
        // The provider's connection is open to the end (and with it the session).
        withExtendedLifetime(client) {}
        #expect(try daemon.terminate() == 0)
    }
}
