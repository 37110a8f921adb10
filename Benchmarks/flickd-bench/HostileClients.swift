import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Issue 9's hostile control clients, the attack `HostileClientTests` plays (the benchmark cannot
/// import test code): a 10 MB line, then a wave of 1000 non-blocking connections at once every
/// 0.3 s, each sending random bytes, half-written JSON never finished, a `subscribe` from a socket
/// with a 1-byte receive buffer that never reads, or nothing. It runs on a thread of its own and
/// is switched on and off by the measuring thread, so attack windows can alternate with calm ones.
final class HostileClients: Sendable {
    private struct State {
        /// Whether the measuring thread wants an attack now.
        var wanted = false
        /// Whether the attacker holds connections open (a wave, the long line).
        var attacking = false
        var finished = false
        /// Connections opened (the backlog's refusals not counted) and waves played.
        var opened = 0, waves = 0
        /// How far each attack's 10 MB line got before the daemon hung up, bytes.
        var lineCut: [Int] = []
    }

    let path: String
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
        Thread { [self] in self.run() }.start()
    }

    /// Connections opened so far.
    var opened: Int { state.withLock { $0.opened } }
    var waves: Int { state.withLock { $0.waves } }
    /// Bytes of the 10 MB line written before the daemon hung up, one per attack.
    var lineCut: [Int] { state.withLock { $0.lineCut } }

    /// Starts an attack: the long line at once, then the waves.
    func begin() {
        state.withLock { $0.wanted = true }
    }

    /// Stops the attack and returns once every connection of it is closed, so the calm window
    /// after it starts with nothing of the attack left but what the daemon still has to read.
    func end() {
        state.withLock { $0.wanted = false }
        while state.withLock({ $0.attacking }) { usleep(1000) }
    }

    /// Ends the thread (after `end`).
    func finish() {
        end()
        state.withLock { $0.finished = true }
    }

    private func run() {
        while true {
            // Seeing the wish and marking the attack happen under one lock, so `end` cannot
            // return between them.
            let (go, finished) = state.withLock { s in
                if s.wanted { s.attacking = true }
                return (s.wanted, s.finished)
            }
            if finished { return }
            guard go else {
                usleep(2000)
                continue
            }
            let cut = Self.hugeLine(path)
            state.withLock { $0.lineCut.append(cut) }
            while state.withLock({ $0.wanted }) {
                let fds = Self.wave(path, count: 1000)
                state.withLock { $0.opened += fds.count; $0.waves += 1 }
                // Held 0.3 s as in the test, in slices so the attack stops when it is told to.
                var held = 0
                while held < 30, state.withLock({ $0.wanted }) { usleep(10_000); held += 1 }
                fds.forEach { close($0) }
            }
            state.withLock { $0.attacking = false }
        }
    }

    /// A non-blocking connection, or -1 when the daemon's backlog is full (a refusal).
    static func rawConnect(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if ok != 0 { close(fd); return -1 }
        return fd
    }

    /// One wave: `count` connections at once, each doing one bad thing; returns their fds.
    static func wave(_ path: String, count: Int) -> [Int32] {
        var rng = SystemRandomNumberGenerator()
        var fds: [Int32] = []
        for i in 0..<count {
            let fd = rawConnect(path)
            guard fd >= 0 else { continue }
            fds.append(fd)
            var bytes: [UInt8]
            switch i % 4 {
            case 0: bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1: bytes = Array("{\"cmd\": \"set-offset\", \"x\": 1, \"y\"".utf8)          // never finished
            case 2:                                                                          // a subscriber that never reads
                var small: Int32 = 1
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
                bytes = Array("{\"cmd\": \"subscribe\"}\n".utf8)
            default: bytes = []                                                              // silent
            }
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return fds
    }

    /// A 10 MB line, written until the daemon hangs up (it does after 64 KiB); the bytes written.
    static func hugeLine(_ path: String) -> Int {
        let fd = rawConnect(path)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var sent = 0
        let end = monotonicNanoseconds() + 5_000_000_000
        while sent < 10_000_000, monotonicNanoseconds() < end {
            let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n } else if errno == EAGAIN { usleep(1000) } else { break }
        }
        return sent
    }
}
