import FlickControl
import FlickDisplay
import Foundation
import Glibc
import Testing

/// flickd as the client of a real compositor (issue 37's acceptance): Weston 10 headless, the
/// content scrolled by control commands to known offsets, each frame read back through the
/// compositor (`weston-screenshooter`) and compared pixel for pixel with the content there;
/// then the compositor killed under it.
@Suite struct WaylandWestonTests {
    static let screen = (width: 640, height: 480)

    /// How the screenshot differs from the content at `offset`: nil when every pixel is the
    /// content's, else the count and the first that is not.
    static func difference(_ shot: PixelBuffer, offset: (x: Int, y: Int)) -> String? {
        guard shot.width == screen.width, shot.height == screen.height else { return "a \(shot.width)x\(shot.height) screenshot" }
        var wrong = 0
        var first: String?
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let expected = ControlTests.pixel(x + offset.x, y + offset.y) & 0xFF_FFFF, got = shot[x, y] & 0xFF_FFFF
                if expected != got {
                    wrong += 1
                    if first == nil { first = "(\(x), \(y)) is \(String(got, radix: 16)), not \(String(expected, radix: 16))" }
                }
            }
        }
        return first.map { "\(wrong) pixels differ, first \($0)" }
    }

    @Test func framesReadBackThroughWestonAreTheContentAtEachOffset() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let weston = try WestonProcess(directory: dir, width: Self.screen.width, height: Self.screen.height)
        let daemon = try Self.showContentAtOffsets(weston: weston, directory: dir, scale: 1)
        // The compositor goes away: flickd ends with a clear error and EX_UNAVAILABLE (the unit restarts it).
        weston.kill()
        try daemon.waitUntil("flickd to exit after the compositor went away", timeout: 20) { !daemon.process.isRunning }
        daemon.process.waitUntilExit()
        let log = daemon.finalLog()
        #expect(daemon.process.terminationStatus == 69, "\(log)")
        #expect(log.contains("display: wayland: the connection to the compositor at \(weston.runtime)/\(weston.socket) was lost"), "\(log)")
    }

    /// Weston's kiosk shell on the headless backend (no seat) configures the window and never
    /// shows it: flickd says what it waits for and the likely cause, in the journal and
    /// `STATUS=`, a few seconds after start, and is not ready.
    @Test func aCompositorThatNeverShowsTheWindowIsSaid() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let weston = try WestonProcess(directory: dir, width: Self.screen.width, height: Self.screen.height, shell: "kiosk-shell.so")
        try ControlTests.writePattern(to: dir + "/pattern.png")
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let notify = try ServiceTests.NotifySocket(path: dir + "/notify.sock")
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "wayland", "--content", dir + "/pattern.png"],
                                       environment: weston.environment.merging(["NOTIFY_SOCKET": notify.path]) { $1 })
        let said = "display: waiting for the compositor at \(weston.runtime)/\(weston.socket) to show the window: no frame of it "
            + "shown 5 s after it was configured; likely the compositor offers no seat (no input device), and a kiosk shell"
        try daemon.waitForLog(said, timeout: 30)
        let line = try #require(daemon.stderr.split(separator: "\n").first { $0.contains(said) })
        #expect(line.hasPrefix("flickd warning: ") && line.contains("Weston's kiosk-shell never does then"), "\(line)")
        try daemon.waitUntil("STATUS= saying the same", timeout: 10) {
            notify.messages.contains { $0.contains("STATUS=" + said) }
        }
        #expect(notify.count("READY=1") == 0 && !daemon.stderr.contains("ready: "), "\(daemon.stderr)")
        #expect(try daemon.terminate() == 0)
    }

    /// A monitor of scale 2: the window is half the pixels in surface units, its buffer the
    /// monitor's pixels (`set_buffer_scale`), so the content is shown one pixel for one.
    @Test func onAMonitorOfScaleTwoTheBufferHasTheMonitorsPixels() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let weston = try WestonProcess(directory: dir, width: Self.screen.width / 2, height: Self.screen.height / 2, scale: 2)
        let daemon = try Self.showContentAtOffsets(weston: weston, directory: dir, scale: 2)
        #expect(try daemon.terminate() == 0)
    }

    /// flickd on `weston` with the pattern, moved to four offsets, each frame read back and
    /// compared; the daemon is returned running.
    static func showContentAtOffsets(weston: WestonProcess, directory dir: String, scale: Int) throws -> FlickdProcess {
        try ControlTests.writePattern(to: dir + "/pattern.png")
        // No indicators: the frame is the content alone, so it can be compared pixel for pixel.
        try FlickdProcess.config(directory: dir, extra: "[indicators]\nenabled = false\n")
            .write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "wayland", "--content", dir + "/pattern.png"],
                                       environment: weston.environment)
        try daemon.waitUntilReady()
        // Headless Weston with pixman imports no dma-buf: shared memory, and the line says why.
        #expect(daemon.stderr.contains("display: wayland \(weston.runtime)/\(weston.socket) 640x480 fullscreen (scale \(scale), presentation times, "
                                       + "shm buffers: the compositor offers no linux-dmabuf (zwp_linux_dmabuf_v1))"),
                "\(daemon.stderr)")
        let client = try daemon.client()
        // The corners and a point between, each a jump (one frame) to a whole-pixel offset.
        for (index, offset) in [(x: 0, y: 0), (x: 120, y: 340), (x: 960, y: 720), (x: 333, y: 17)].enumerated() {
            if index > 0 {
                let reply = try client.call(ControlRequest(cmd: "set-offset", x: Double(offset.x), y: Double(offset.y), animated: false))
                #expect(reply.ok == true, "\(reply.error ?? "")")
            }
            var last = "no screenshot"
            do {
                try daemon.waitUntil("Weston's screen to show the content at \(offset)", timeout: 20) {
                    guard let bytes = try? weston.screenshot(into: dir + "/shots"),
                          let shot = try? PNGCodec.decode(bytes, path: "screenshot", pixelBudget: 1 << 24) else { return false }
                    guard let difference = Self.difference(shot, offset: offset) else { return true }
                    last = difference
                    return false
                }
            } catch {
                throw TestFailure("\(error); the last screenshot: \(last); weston's log:\n\(weston.log)")
            }
        }
        return daemon
    }

    @Test func noCompositorIsAClearErrorAndExit69() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FlickdProcess.config(directory: dir).write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "wayland"],
                                       environment: ["XDG_RUNTIME_DIR": dir, "WAYLAND_DISPLAY": "wayland-nothing-here"])
        try daemon.waitUntil("flickd to exit without a compositor", timeout: 20) { !daemon.process.isRunning }
        daemon.process.waitUntilExit()
        let log = daemon.finalLog()
        #expect(daemon.process.terminationStatus == 69, "\(log)")
        #expect(log.contains("no display: wayland: wayland: no compositor at \(dir)/wayland-nothing-here: No such file or directory"), "\(log)")
    }
}
