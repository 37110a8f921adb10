import FlickDisplay
import FlickSystem
import Glibc
import Synchronization

/// One run of `flickd-render` (docs/documents.md, "Starting the helper"): spawned with its end
/// of a socket pair as fd 3 and the documents, opened here, as fds 4, 5, …; its environment
/// only `LANG=C.UTF-8`; standard output and error flickd's (the journal). A worker thread waits
/// for it, as `PyramidBuild` waits for `flickd pyramid`; the loop hears of its end through
/// `fileDescriptor` and takes how it ended with `takeExit()`.
final class RenderProcess {
    /// The process.
    let pid: Int32
    /// The daemon's end of the socket pair, until the control server adopts it as the helper's
    /// connection (`takeSocket()`).
    private var socket: Descriptor?
    /// Readable once the process has ended.
    var fileDescriptor: Descriptor { worker.fileDescriptor }
    private let worker: BackgroundWorker
    private let status = Shared()

    private final class Shared: Sendable {
        let ended = Mutex<String?>(nil)
    }

    /// Why the helper could not be started.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `executable` with `arguments` (the fds named in them are set up here: `--socket 3`,
    /// `--document N:name` in `documents`' order from 4).
    /// - Parameter documents: the files to pass, in page order.
    /// - Throws: `StartFailure` saying which step failed.
    init(executable: String, documents: [String], arguments: (_ names: [String]) -> [String]) throws(StartFailure) {
        guard let worker = BackgroundWorker(level: .ahead) else { throw StartFailure(description: "no thread to wait for it") }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw StartFailure(description: "socketpair: \(SystemError.current("socketpair", "flickd-render").errnoDescription)")
        }
        let ours = Descriptor(owning: pair[0])
        // Every file the child gets is first moved above the numbers it is given, so that
        // setting one up never overwrites another not yet set up.
        let floor = Int32(4 + documents.count)
        var high: [Int32] = []
        defer { high.forEach { close($0) } }
        func lift(_ fd: Int32) -> Int32? {
            let moved = fcntl(fd, F_DUPFD_CLOEXEC, floor)
            close(fd)
            return moved >= 0 ? moved : nil
        }
        guard let theirs = lift(pair[1]) else { throw StartFailure(description: "fcntl: out of descriptors") }
        high.append(theirs)
        for path in documents {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw StartFailure(description: "\(path): \(SystemError.current("open", path).errnoDescription)")
            }
            guard let moved = lift(fd) else { throw StartFailure(description: "fcntl: out of descriptors") }
            high.append(moved)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, fd) in high.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + target)) }
        let names = documents.map { path in String(path.split(separator: "/").last ?? Substring(path)) }
        let argv = ([executable] + arguments(names)).map { strdup($0) } + [nil]
        let environment = [strdup("LANG=C.UTF-8"), nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = SignalMask.withChildAttributes { posix_spawn(&child, executable, &actions, $0, argv, environment) }
        guard rc == 0 else {
            throw StartFailure(description: "posix_spawn \(executable): \(SystemError(call: "posix_spawn", context: executable, errno: rc).errnoDescription)")
        }
        // Drawing tiles runs below the loop, as the decoders do (the loop's real-time policy is
        // not inherited: SCHED_RESET_ON_FORK).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(child), 10)
        pid = child
        socket = ours
        self.worker = worker
        let status = status, started = child
        _ = worker.submit {
            var raw: Int32 = 0
            while waitpid(started, &raw, 0) < 0 && errno == EINTR {}
            status.ended.withLock { $0 = Self.describe(raw) }
        }
    }

    deinit {
        kill()
        worker.stop()
    }

    /// SIGKILL, if it still runs (its end still comes through `fileDescriptor`).
    func kill() {
        if !hasEnded { _ = Glibc.kill(pid, SIGKILL) }
    }

    /// The daemon's end of the socket pair, handed over once.
    func takeSocket() -> Descriptor? {
        defer { socket = nil }
        return socket
    }

    private var hasEnded: Bool { status.ended.withLock { $0 != nil } }

    /// How it ended (`exit status 65`, `signal 9 (SIGKILL)`), once; nil while it runs.
    func takeExit() -> String? {
        guard worker.takeDone() else { return nil }
        return status.ended.withLock { $0 }
    }

    /// Whether it ended with exit status 65, as after a `documentError`.
    static func isDataError(_ how: String) -> Bool { how == "exit status 65" }

    private static func describe(_ raw: Int32) -> String {
        let signal = raw & 0x7F
        guard signal != 0 else { return "exit status \((raw >> 8) & 0xFF)" }
        let name = [SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGSYS: "SIGSYS", SIGBUS: "SIGBUS",
                    SIGTERM: "SIGTERM", SIGILL: "SIGILL"][signal]
        return "signal \(signal)" + (name.map { " (\($0))" } ?? "")
    }
}
