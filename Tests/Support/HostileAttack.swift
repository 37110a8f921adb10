#if canImport(Glibc)
import Glibc
#endif

/// Issue 9's hostile control clients, the one definition of the attack both
/// `HostileClientTests` (answers and memory) and `flickd-bench` item 7 (the frame rate under it)
/// play against a daemon's control socket at `path`.
public enum HostileAttack {
    /// A non-blocking connection, or -1 when the daemon's backlog is full (a refusal).
    public static func rawConnect(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { raw -> Bool in
            guard bytes.count < raw.count else { return false }
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
            return true
        }
        let ok = fits ? withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } : -1
        if ok != 0 { close(fd); return -1 }
        return fd
    }

    /// One wave: `count` connections at once, each doing one bad thing (random bytes,
    /// half-written JSON never finished, a `subscribe` from a socket with a 1-byte receive buffer
    /// that never reads, or nothing); returns their fds.
    public static func wave(_ path: String, count: Int) -> [Int32] {
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

    /// A 10 MB line, written until the daemon hangs up (it does after 64 KiB) or 5 s pass; the
    /// bytes written.
    public static func hugeLine(_ path: String) -> Int {
        let fd = rawConnect(path)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var sent = 0
        let end = ContinuousClock.now + .seconds(5)
        while sent < 10_000_000, ContinuousClock.now < end {
            let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
            } else if errno == EAGAIN {
                // Full: on until the daemon reads (or hangs up, which the next send reports).
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, milliseconds(end - ContinuousClock.now))
            } else {
                break
            }
        }
        return sent
    }
}
