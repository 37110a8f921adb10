import FlickTestSupport
import Foundation
import Glibc

/// A real Weston 10 from Debian, headless, for flickd to be a client of: pixman rendering, the
/// screenshooter allowed (`--debug`), run as an ordinary user — `nobody` when the tests run as
/// root (CI), since Weston refuses root — with an XDG_RUNTIME_DIR of its own (mode 0700, owned
/// by that user). Killed at the latest when the test drops it.
///
/// Weston's desktop shell by default, not its kiosk shell: headless Weston has no seat, and the
/// kiosk shell of Weston 10 puts a window on screen only when it activates it for a seat, so a
/// window there is never shown and never gets a frame callback (the trap a test asks for with
/// `shell: "kiosk-shell.so"`). The desktop shell's panel, animations and idle blanking are
/// turned off (weston.ini), so a fullscreen window is all the screen shows.
final class WestonProcess: @unchecked Sendable {
    /// The runtime folder (XDG_RUNTIME_DIR) and the socket's name in it.
    let runtime: String
    let socket = "wayland-flickd-test"
    let size: (width: Int, height: Int)
    let process = Process()
    private let logPath: String

    /// What a client needs to reach it.
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": socket] }

    /// Starts Weston in `directory` (a folder of the test's own) and waits for its socket.
    /// - Throws: `TestFailure` saying why when Weston is missing or does not start.
    /// - Parameters:
    ///   - width: the monitor's width in surface units (its pixels are `scale` times more).
    ///   - scale: the monitor's scale (`wl_output.scale`).
    ///   - shell: Weston's shell module.
    init(directory: String, width: Int, height: Int, scale: Int = 1, shell: String = "desktop-shell.so") throws {
        size = (width, height)
        runtime = directory + "/runtime"
        logPath = directory + "/weston.log"
        guard let weston = Self.find("weston") else {
            throw TestFailure("weston is not installed (scripts/deps.sh installs Debian's weston): the Wayland test needs a real compositor")
        }
        guard Self.find("weston-screenshooter") != nil else {
            throw TestFailure("weston-screenshooter is not installed (Debian's weston package has it)")
        }
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        chmod(runtime, 0o700)
        try """
        [core]
        idle-time=0
        [shell]
        startup-animation=none
        animation=none
        close-animation=none
        focus-animation=none
        panel-position=none
        background-color=0xff000000
        """.write(toFile: directory + "/weston.ini", atomically: true, encoding: .utf8)
        var arguments = ["--backend=headless-backend.so", "--use-pixman", "--shell=\(shell)", "--debug",
                         "--config=\(directory)/weston.ini", "--width=\(width)", "--height=\(height)", "--scale=\(scale)", "--socket=\(socket)",
                         "--log=\(logPath)"]
        if getuid() == 0 {
            // Weston will not run as root: as nobody, which must own the runtime folder and be
            // able to reach the config (the test's folder is world-readable).
            guard let nobody = getpwnam("nobody") else { throw TestFailure("no user nobody to run weston as") }
            chown(runtime, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
            chmod(directory, 0o755)
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            chown(logPath, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
            guard let setpriv = Self.find("setpriv") else { throw TestFailure("setpriv (util-linux) is missing: weston cannot be run as nobody") }
            process.executableURL = URL(fileURLWithPath: setpriv)
            arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", weston] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: weston)
        }
        process.arguments = arguments
        process.environment = ["XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            try waitUntil("weston's socket \(runtime)/\(socket)", timeout: .seconds(30)) {
                guard process.isRunning else {
                    throw TestFailure("weston exited (\(process.terminationStatus)) at start: this machine cannot run it; its log:\n\(log)")
                }
                return access(runtime + "/" + socket, F_OK) == 0
            }
        } catch let timedOut as WaitTimedOut {
            throw TestFailure("\(timedOut); weston's log:\n\(log)")
        }
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Weston's log so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no log)" }

    /// Kills Weston (SIGKILL: the compositor going away, not shutting down politely) and waits.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The screen as the compositor composes it, read back through `weston-screenshooter` (it
    /// writes a PNG into its working folder); nil when the shot failed.
    func screenshot(into folder: String) throws -> [UInt8]? {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let shooter = Process()
        shooter.executableURL = URL(fileURLWithPath: Self.find("weston-screenshooter") ?? "/usr/bin/weston-screenshooter")
        shooter.currentDirectoryURL = URL(fileURLWithPath: folder)
        shooter.environment = environment
        shooter.standardOutput = FileHandle.nullDevice
        shooter.standardError = FileHandle.nullDevice
        try shooter.run()
        shooter.waitUntilExit()
        guard shooter.terminationStatus == 0,
              let name = try FileManager.default.contentsOfDirectory(atPath: folder).first(where: { $0.hasSuffix(".png") }) else { return nil }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
    }

    /// A program on the PATH (or in /usr/bin), if installed.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin"] {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
