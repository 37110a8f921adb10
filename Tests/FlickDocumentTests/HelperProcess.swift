import FlickSystem
import FlickTestSupport
import Foundation
import Glibc
import Testing

/// The built `flickd-render` run as flickd runs it: its end of a socket pair at fd 3, the
/// documents at 4, 5, …, an environment of `LANG=C.UTF-8` only. The test holds the other end and
/// plays flickd. Killed at the latest when the test drops it.
final class HelperProcess {
    let pid: pid_t
    /// The test's end of the socket pair (-1 once `hangUp` closed it).
    private(set) var socket: Int32
    private var status: Int32?
    private var buffer: [UInt8] = []

    /// The built helper, beside the test bundle (`swift build --build-tests` builds both).
    static func binary(_ name: String = "flickd-render") -> String {
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return tests.appendingPathComponent(name).path
    }

    /// Starts the helper on `documents` (paths opened read-only here, as flickd opens them) with
    /// the layout flags `arguments` (`--page-width` and the rest).
    /// `withSocketFlag: false` gives the helper `arguments` alone (the documents still at 4, …);
    /// `stderr`, a file its stderr goes to instead of the test's.
    init(documents: [String], arguments: [String], program: String = HelperProcess.binary(), withSocketFlag: Bool = true,
         stderr: String? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw TestFailure("\(program) is missing: build it first (swift build --build-tests)")
        }
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw TestFailure("socketpair: errno \(errno)")
        }
        socket = pair[0]
        // Above the numbers they are moved to, so each dup2 makes a descriptor without CLOEXEC.
        var sources = [fcntl(pair[1], F_DUPFD_CLOEXEC, 100)]
        close(pair[1])
        for path in documents {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
            sources.append(fcntl(fd, F_DUPFD_CLOEXEC, 100))
            close(fd)
        }
        defer { for fd in sources { close(fd) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (i, fd) in sources.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + i)) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stderr { posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        let names = documents.enumerated().flatMap { ["--document", "\($0.offset + 4):\(URL(fileURLWithPath: $0.element).lastPathComponent)"] }
        let argv = [program] + (withSocketFlag ? ["--socket", "3"] + names : []) + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = [strdup("LANG=C.UTF-8"), nil]
        defer { for p in cArguments + cEnvironment { free(p) } }
        var child: pid_t = 0
        let r = posix_spawn(&child, program, &actions, nil, &cArguments, &cEnvironment)
        guard r == 0 else { throw TestFailure("posix_spawn \(program): \(r)") }
        pid = child
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            waitpid(pid, &s, 0)
        }
        if socket >= 0 { close(socket) }
    }

    /// Closes the test's end, as flickd does when it drops the helper.
    func hangUp() {
        if socket >= 0 { close(socket) }
        socket = -1
    }

    /// The next line the helper writes (without its newline), and a file passed with it.
    func line(timeout: Duration = .seconds(20)) throws -> (text: String, file: Int32?) {
        var file: Int32?
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return (text, file)
            }
            try waitUntilReadable(socket, "a line from flickd-render", timeout: timeout)
            let (bytes, passed) = receive()
            guard !bytes.isEmpty else { throw TestFailure("flickd-render closed the socket; buffered: \(String(decoding: buffer, as: UTF8.self))") }
            buffer += bytes
            file = file ?? passed
        }
    }

    /// Sends `text` and a newline.
    func send(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits for the helper to exit: its status (`WIFEXITED`'s code) or the signal that ended it
    /// (negative).
    @discardableResult
    func exit(timeout: Duration = .seconds(20)) throws -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        try waitUntil("flickd-render to exit", timeout: timeout) { waitpid(pid, &raw, WNOHANG) == pid }
        let signal = raw & 0x7F
        let result = signal == 0 ? (raw >> 8) & 0xFF : -signal
        status = result
        return result
    }

    /// One `recvmsg`: bytes, and a descriptor passed with them.
    private func receive() -> ([UInt8], Int32?) {
        var bytes = [UInt8](repeating: 0, count: 65_536)
        var files: [Int32] = []
        let n = receiveWithFiles(on: socket, into: &bytes, files: &files)
        files.dropFirst().forEach { close($0) }
        return (n > 0 ? Array(bytes[0..<n]) : [], files.first)
    }
}

/// A test's own failure with a sentence.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
