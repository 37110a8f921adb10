import FlickControl
import FlickTestSupport
import Foundation
import Glibc
import Testing

/// The real `flickd` binary run as a child process in a temporary folder of its own: its config,
/// control socket, state file and snapshots live there, and its stderr (the log) is collected
/// for the test to read. Killed at the latest when the test drops it.
final class FlickdProcess: @unchecked Sendable {
    /// The temporary folder.
    let directory: String
    let process = Process()
    /// Guards the log; broadcast when the pipe reaches its end.
    private let lock = NSCondition()
    private var log = ""
    /// Whether the pipe reached its end (the daemon and its children closed it).
    private var logEnded = false

    /// The built `flickd`, beside the test bundle (`swift build --build-tests` builds both).
    static var binary: String {
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return tests.appendingPathComponent("flickd").path
    }

    /// The user running the tests, who owns their temporary folders: the service user a test
    /// names to `flickd check-config --user`. Its default, `flickd`, exists where the package is
    /// installed and cannot enter those 0700 folders; an unknown name (a uid with no entry)
    /// checks as the caller.
    static var user: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? String(geteuid())
    }

    /// A fresh temporary folder for one daemon (and its restarts).
    static func makeDirectory() throws -> String {
        var template = Array("/tmp/flickd-it-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: errno \(errno)") }
        return String(cString: made)
    }

    /// The config file the tests start from: a small headless panel, everything in `directory`.
    /// - Parameter placeholder: `content.placeholder`; the test pattern by default, which the
    ///   daemon tests flick and pinch over (the daemon's own default, black, is one still screen);
    ///   nil leaves the daemon's default.
    static func config(directory: String, scroll: String = "deceleration_rate = \"normal\"", extra: String = "",
                       control: String = "", placeholder: String? = "test-pattern") -> String {
        let line = placeholder.map { "placeholder = \"\($0)\"\n" } ?? ""
        // Into extra's [content] table when it has one: a table is defined once.
        let extra = extra.contains("[content]\n") ? extra.replacingOccurrences(of: "[content]\n", with: "[content]\n" + line)
            : line.isEmpty ? extra : "[content]\n" + line + extra
        return """
        [scroll]
        \(scroll)

        [display]
        headless_size = "800x480"

        [control]
        socket = "\(directory)/control.sock"
        \(control)

        [state]
        path = "\(directory)/state.json"
        save_delay_ms = 50
        \(extra)
        """
    }

    /// Starts `flickd ARGS` with the config at `directory/flickd.toml`.
    init(directory: String, arguments: [String], environment: [String: String] = [:]) throws {
        self.directory = directory
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw TestFailure("\(Self.binary) is missing: build it first (swift build --build-tests)")
        }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--config", directory + "/flickd.toml"]
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM", "LISTEN_FDS"] { env[key] = nil }
        env["FLICKD_LOG"] = "stderr"
        env.merge(environment) { $1 }
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.withLock {
                if data.isEmpty {
                    self.logEnded = true
                    self.lock.broadcast()
                } else {
                    self.log += String(decoding: data, as: UTF8.self)
                }
            }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything logged so far.
    var stderr: String { lock.withLock { log } }

    /// The whole log of a daemon that exited: the handler gets the pipe's last bytes after the
    /// exit is seen, so this waits for the end of the pipe (at most `timeout` seconds).
    func finalLog(timeout: Double = 10) -> String {
        let end = Date().addingTimeInterval(timeout)
        return lock.withLock {
            while !logEnded && lock.wait(until: end) {}
            return log
        }
    }

    /// Waits until the log contains `text`.
    /// - Throws: `TestFailure` with the log when it does not appear within `timeout` seconds.
    func waitForLog(_ text: String, timeout: Double = 15) throws {
        try waitUntil("\"\(text)\" in the log", timeout: timeout) { stderr.contains(text) }
    }

    /// Waits for the daemon to show its first frame.
    func waitUntilReady() throws { try waitForLog("ready: ") }

    /// Waits until `condition` holds (`FlickTestSupport.waitUntil`), failing early if the daemon exits first.
    func waitUntil(_ what: String, timeout: Double, _ condition: () -> Bool) throws {
        do {
            try FlickTestSupport.waitUntil(what, timeout: .seconds(timeout)) {
                if condition() { return true }
                if !process.isRunning, !condition() {
                    throw TestFailure("flickd exited (\(process.terminationStatus)) before \(what); its log:\n\(stderr)")
                }
                return false
            }
        } catch let timedOut as WaitTimedOut {
            throw TestFailure("\(timedOut); flickd's log:\n\(stderr)")
        }
    }

    /// Sends a signal.
    func signal(_ signo: Int32) { kill(process.processIdentifier, signo) }

    /// SIGTERM, then waits for the exit; returns the exit status.
    func terminate(timeout: Double = 10) throws -> Int32 {
        signal(SIGTERM)
        try waitUntil("flickd to exit", timeout: timeout) { !process.isRunning }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A client of the control socket whose reads give up after `timeout` seconds.
    func client(timeout: Double = 10) throws -> ControlClient {
        let client = try ControlClient(path: directory + "/control.sock")
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(client.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return client
    }

    /// Writes a file into the folder.
    func write(_ name: String, _ text: String) throws {
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }
}

/// Runs a binary built beside the test bundle (`flickd`, `flickctl`) to its end, in `folder`
/// if given: its exit status, standard output and standard error.
func runBuilt(_ name: String, _ arguments: [String], in folder: String? = nil,
              environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: FlickdProcess.binary).deletingLastPathComponent().appendingPathComponent(name)
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both before waiting: a full pipe would block the child.
    nonisolated(unsafe) var error = Data()
    let read = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        error = err.fileHandleForReading.readDataToEndOfFile()
        read.signal()
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard read.wait(timeout: .now() + 60) == .success else {
        throw TestFailure("\(name) exited (\(process.terminationStatus)) but its standard error stayed open for 60 s")
    }
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
}

/// A subscriber collecting events on its own thread, so the test can wait for one.
final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [ControlMessage] = []
    private let client: ControlClient
    /// Why reading stopped, if it did.
    private var ended: String?

    /// Subscribes (all events) and starts reading.
    init(_ daemon: FlickdProcess) throws {
        client = try daemon.client(timeout: 60)
        let reply = try client.call(ControlRequest(cmd: "subscribe"))
        guard reply.ok == true else { throw TestFailure("subscribe refused: \(reply.error ?? "?")") }
        Thread.detachNewThread { [self] in
            do {
                while let message = try client.receive() {
                    lock.withLock { collected.append(message) }
                }
                lock.withLock { ended = "the daemon closed the subscription" }
            } catch {
                lock.withLock { ended = "\(error)" }
            }
        }
    }

    /// The events so far.
    var events: [ControlMessage] { lock.withLock { collected } }

    /// Waits for the `count`-th event of a type; returns all events up to and including it.
    func waitFor(_ type: String, count: Int = 1, daemon: FlickdProcess, timeout: Double = 20) throws -> [ControlMessage] {
        var upTo: [ControlMessage] = []
        defer {
            if upTo.isEmpty {
                let tail = events.suffix(5).map { $0.type ?? "?" }.joined(separator: ", ")
                Issue.record("the subscriber has \(events.count) events, the last \(tail); \(lock.withLock { ended } ?? "still reading")")
            }
        }
        try daemon.waitUntil("\(type) #\(count) from a subscriber", timeout: timeout) {
            let all = events
            var seen = 0
            for (i, e) in all.enumerated() where e.type == type {
                seen += 1
                if seen == count { upTo = Array(all[...i]); return true }
            }
            return false
        }
        return upTo
    }
}

/// Calls `body` with the address of the Unix socket at `path` (bind or connect).
func withUnixAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

/// A test's own failure, with what it saw.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
