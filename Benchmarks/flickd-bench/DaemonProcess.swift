import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `flickd run` child on the headless display, with its own config (control socket and state
/// file in a temporary folder) and its own `NOTIFY_SOCKET`, so its `READY=1` (sent once the
/// first frame is presented) can be timed.
final class DaemonProcess {
    let pid: pid_t
    /// `CLOCK_MONOTONIC` just before `posix_spawn`, ns.
    let spawnedAt: Int64
    /// Its stdout and stderr.
    let logPath: String
    /// Its control socket.
    let socketPath: String
    private let notifyFD: Int32
    private var exited = false

    /// Starts `binary run --display DISPLAY --input auto` with `content`, if any; `config` is
    /// appended to its config file (tables of keys beyond the socket and state); `placeholder` is
    /// what shows where no content is (or until a document is drawn).
    init(binary: String, directory: String, tag: String, content: String?, config extra: String = "",
         display: String = "headless:1920x1080", placeholder: String = "test-pattern") throws {
        let config = "\(directory)/\(tag).toml"
        socketPath = "\(directory)/\(tag).sock"
        // The benchmarks scroll over the test pattern where they name no content (a kiosk's
        // default placeholder, black, is one still screen), and measure a provider that goes
        // being cleaned up at once (the grace would keep its last frame, and its pool, on purpose).
        let contentKeys = "placeholder = \"\(placeholder)\"\nprovider_grace_s = 0\n"
        let extra = extra.contains("[content]\n") ? extra.replacingOccurrences(of: "[content]\n", with: "[content]\n" + contentKeys)
            : extra + "\n[content]\n" + contentKeys
        let toml = """
            [control]
            socket = "\(socketPath)"
            [state]
            path = "\(directory)/\(tag).state.json"
            \(extra)
            """
        guard FileManager.default.createFile(atPath: config, contents: Data(toml.utf8)) else {
            throw RigError("cannot write \(config)")
        }
        let notifyPath = "\(directory)/\(tag).notify"
        unlink(notifyPath)
        notifyFD = try Self.datagramSocket(boundTo: notifyPath)
        logPath = "\(directory)/\(tag).log"

        var args = [binary, "run", "--display", display, "--input", "auto", "--config", config]
        if let content { args += ["--content", content] }
        var env = ProcessInfo.processInfo.environment
        // A child of a systemd service must not talk to the journal or the bench's own manager.
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"] { env[key] = nil }
        env["NOTIFY_SOCKET"] = notifyPath

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = args.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        spawnedAt = monotonicNanoseconds()
        let rc = posix_spawn(&child, binary, &actions, nil, argv, envp)
        guard rc == 0 else {
            close(notifyFD)
            throw RigError("posix_spawn \(binary): errno \(rc)")
        }
        pid = child
    }

    deinit {
        stop()
        close(notifyFD)
    }

    /// Waits up to `timeout` seconds for `READY=1`; returns the ms from spawn to it.
    func waitReady(timeout: Double) throws -> Double {
        let end = monotonicNanoseconds() + Int64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = end - monotonicNanoseconds()
            guard left > 0 else { throw RigError("no READY=1 within \(timeout) s (see \(logPath))") }
            var p = pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, left / 1_000_000))) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(notifyFD, $0.baseAddress, $0.count, 0) }
            let at = monotonicNanoseconds()
            guard n > 0 else { continue }
            let message = String(decoding: buffer[0..<n], as: UTF8.self)
            if message.split(separator: "\n").contains("READY=1") { return Double(at - spawnedAt) / 1e6 }
        }
    }

    /// SIGTERM, then SIGKILL if it has not exited within 5 s; reaps it.
    func stop() {
        guard !exited else { return }
        exited = true
        kill(pid, SIGTERM)
        let end = monotonicNanoseconds() + 5_000_000_000
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if monotonicNanoseconds() > end {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(2000)
        }
    }

    /// The process's counters now.
    var counters: ProcCounters { ProcCounters(pid: pid) }

    private static func datagramSocket(boundTo path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RigError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw RigError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw RigError("bind \(path): errno \(errno)")
        }
        return fd
    }
}

/// What `/proc` says about a process, summed over its threads where per-thread.
struct ProcCounters {
    /// Voluntary context switches (each sleep in `epoll_wait` after a wake-up is one).
    var voluntary = 0
    /// Involuntary ones (preemption).
    var involuntary = 0
    /// Times a thread was put on a CPU (`schedstat`'s third field): every wake-up is one.
    var runs = 0
    var threads = 0
    /// Resident memory, KiB.
    var rss = 0, rssAnon = 0, rssFile = 0, rssShmem = 0

    init(pid: pid_t) {
        let base = "/proc/\(pid)"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "\(base)/task")) ?? []
        threads = tasks.count
        for task in tasks {
            let status = Self.fields("\(base)/task/\(task)/status")
            voluntary += status["voluntary_ctxt_switches"] ?? 0
            involuntary += status["nonvoluntary_ctxt_switches"] ?? 0
            let sched = (try? String(contentsOfFile: "\(base)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            runs += sched.split(separator: " ").dropFirst(2).first.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        }
        let status = Self.fields("\(base)/status")
        rss = status["VmRSS"] ?? 0
        rssAnon = status["RssAnon"] ?? 0
        rssFile = status["RssFile"] ?? 0
        rssShmem = status["RssShmem"] ?? 0
    }

    /// `Key: number …` lines of a `/proc` status file.
    private static func fields(_ path: String) -> [String: Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var out: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let number = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            if let number { out[String(parts[0])] = number }
        }
        return out
    }
}
