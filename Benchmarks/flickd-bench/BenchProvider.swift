import CMemfd
import FlickControl
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A control-socket connection spoken to with raw lines: what a content provider needs that
/// `ControlClient` does not give (a line sent with an fd whose answer is read from the same
/// buffer as the events after it, non-blocking reads, writes that never wait for a reply).
final class RawConnection {
    let fd: Int32
    private var input: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RigError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw RigError("connect \(path): errno \(e)")
        }
    }

    deinit { close(fd) }

    /// Writes every byte (blocking); false when the daemon hung up.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Writes `line` (a newline is added) with `file` passed along with its first byte
    /// (`SCM_RIGHTS`), as `ControlClient.send(_:passing:)` does.
    @discardableResult
    func write(_ line: String, passing file: Int32?) -> Bool {
        let bytes = Array((line + "\n").utf8)
        guard let file else { return write(bytes) }
        let sent = ControlClient.send(bytes.prefix(1), passing: file, on: fd)
        guard sent == 1 else { return false }
        return write(Array(bytes.dropFirst()))
    }

    /// Reads what has arrived (waiting up to `timeoutMs` for something) and returns the
    /// complete lines; `nil` when the daemon hung up.
    func lines(timeoutMs: Int32) -> [ArraySlice<UInt8>]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, timeoutMs) > 0 {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 { return nil }
            if n < 0 {
                if errno != EAGAIN && errno != EINTR { return nil }
            } else {
                input.append(contentsOf: chunk[0..<n])
            }
        }
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        while let newline = input[start...].firstIndex(of: 0x0A) {
            out.append(ArraySlice(Array(input[start..<newline])))
            start = newline + 1
        }
        if start > 0 { input.removeFirst(start) }
        return out
    }

    /// Waits up to `timeout` seconds for one line that `matches`; the lines before it are dropped.
    func waitLine(timeout: Double, _ matches: (String) -> Bool) -> String? {
        let end = monotonicNanoseconds() + Int64(timeout * 1e9)
        while monotonicNanoseconds() < end {
            guard let got = lines(timeoutMs: 20) else { return nil }
            for line in got {
                let text = String(decoding: line, as: UTF8.self)
                if matches(text) { return text }
            }
        }
        return nil
    }
}

/// A content provider's pool as an app makes it: a memfd of `bytes`, optionally sealed, mapped
/// writable on the app's side.
final class ProviderPool {
    let fd: Int32
    let memory: UnsafeMutableRawPointer?
    let bytes: Int

    /// `seals`: what to seal it with (`F_SEAL_SHRINK | F_SEAL_GROW` as an app should; 0: none).
    init(bytes: Int, seals: Int32 = F_SEAL_SHRINK | F_SEAL_GROW, map: Bool = true) throws {
        self.bytes = bytes
        fd = flickd_memfd_create("flickd-bench-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard fd >= 0 else { throw RigError("memfd_create: errno \(errno)") }
        guard ftruncate(fd, off_t(bytes)) == 0 else {
            close(fd)
            throw RigError("ftruncate: errno \(errno)")
        }
        if seals != 0 {
            guard flickd_add_seals(fd, seals) == 0 else {
                close(fd)
                throw RigError("F_ADD_SEALS: errno \(errno)")
            }
        }
        if map && bytes > 0 {
            guard let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
                close(fd)
                throw RigError("mmap: errno \(errno)")
            }
            memory = mapped
        } else {
            memory = nil
        }
    }

    deinit {
        if let memory { munmap(memory, bytes) }
        close(fd)
    }

    /// Fills a tile of `r` with one colour, row by row, at its offset and stride.
    func fill(_ r: ControlTileRequest, colour: UInt32) {
        guard let memory, r.offset >= 0, r.pixelWidth > 0, r.pixelHeight > 0,
              r.offset + (r.pixelHeight - 1) * r.stride + r.pixelWidth * 4 <= bytes else { return }
        for j in 0..<r.pixelHeight {
            (memory + r.offset + j * r.stride).assumingMemoryBound(to: UInt32.self).update(repeating: colour, count: r.pixelWidth)
        }
    }
}

/// The benchmark's content provider (section 11): it draws each requested tile at once, one
/// colour computed from the tile, and answers; on request it also sends `invalidate`s at a
/// steady rate. It runs on a thread of its own, as an app's socket loop would (the connection
/// and the pool are the thread's once `init` returns; the rest is behind the lock).
final class BenchProvider: @unchecked Sendable {
    /// The content it declares.
    struct Declaration {
        var name = "bench"
        var width = 7680, height = 200_000
        var tileSize = 256, slots = 16
    }

    private struct State {
        var stopping = false, stopped = false
        /// `invalidate`s per second wanted now (0: none), and those sent.
        var invalidationRate = 0.0
        var invalidationsSent = 0
        /// Requests received, answered drawn, cancels received; error replies, by text.
        var requests = 0, drawn = 0, cancels = 0
        /// Tiles drawn per level.
        var levels: [Int: Int] = [:]
        /// Tiles drawn so far (level, column, row), and requests for one of them again.
        var seen: Set<[Int]> = []
        var repeats = 0
        var errors: [String: Int] = [:]
        /// Request line read → answer written, ns (the app's own time per tile: parse, draw, write).
        var service: [Double] = []
        /// Whether the daemon hung up.
        var hungUp = false
    }

    let declaration: Declaration
    /// The `provide` reply's `provider`: levels, slot bytes, stride.
    let levels: Int
    private let connection: RawConnection
    private let pool: ProviderPool
    private let state = Mutex(State())
    /// The rectangle (content pixels) its invalidations fall in, at random.
    let invalidationArea: (x: Double, y: Double, width: Double, height: Double)

    /// Connects, makes and seals the pool, sends `provide` with it and waits for the reply.
    /// - Throws: `RigError` with the daemon's answer when it is refused.
    init(path: String, declaration: Declaration = Declaration(),
         invalidationArea: (x: Double, y: Double, width: Double, height: Double) = (0, 0, 1920, 4200)) throws {
        self.declaration = declaration
        self.invalidationArea = invalidationArea
        connection = try RawConnection(path: path)
        pool = try ProviderPool(bytes: declaration.slots * declaration.tileSize * declaration.tileSize * 4)
        let d = declaration
        let line = "{\"id\":1,\"cmd\":\"provide\",\"width\":\(d.width),\"height\":\(d.height),\"tileSize\":\(d.tileSize),"
            + "\"slots\":\(d.slots),\"opaque\":true,\"background\":\"#202020\",\"name\":\"\(d.name)\"}"
        guard connection.write(line, passing: pool.fd) else { throw RigError("provide: the daemon hung up") }
        guard let reply = connection.waitLine(timeout: 5, { $0.contains("\"id\":1,") }),
              let message = try? JSONDecoder().decode(ControlMessage.self, from: Data(reply.utf8)) else {
            throw RigError("provide: no reply")
        }
        guard message.ok == true, let levels = message.provider?.levels else {
            throw RigError("provide refused: \(message.error ?? reply)")
        }
        self.levels = levels
        Thread { [self] in self.serve() }.start()
    }

    deinit { stop() }

    /// Sends `rate` invalidations a second from now on (0: stops them).
    func invalidate(perSecond rate: Double) { state.withLock { $0.invalidationRate = rate } }

    var requests: Int { state.withLock { $0.requests } }
    var drawn: Int { state.withLock { $0.drawn } }
    /// Requests for a tile drawn before (asked again: evicted, invalidated or given up).
    var repeats: Int { state.withLock { $0.repeats } }
    /// Tiles drawn so far, per level.
    var drawnPerLevel: [Int: Int] { state.withLock { $0.levels } }
    var invalidationsSent: Int { state.withLock { $0.invalidationsSent } }
    var errors: [String: Int] { state.withLock { $0.errors } }
    var hungUp: Bool { state.withLock { $0.hungUp } }
    /// The app's own time per tile so far, µs.
    var serviceMicroseconds: Stats { Stats(samples: state.withLock { $0.service }.map { $0 / 1000 }) }

    /// The app's `ftruncate` of its pool after passing it (the shrink-after-pass attack): the
    /// result and errno.
    func truncatePool(to bytes: Int) -> (rc: Int32, errno: Int32) {
        let rc = ftruncate(pool.fd, off_t(bytes))
        return (rc, rc == 0 ? 0 : errno)
    }

    /// Stops the thread and hangs up (the daemon shows its configured content again).
    func stop() {
        state.withLock { $0.stopping = true }
        while !state.withLock({ $0.stopped }) { usleep(1000) }
        shutdown(connection.fd, Int32(SHUT_RDWR))
    }

    /// The colour a tile is drawn in: from its level, column and row (neighbours differ).
    static func colour(_ t: ControlTileRequest) -> UInt32 {
        let h = UInt32(truncatingIfNeeded: (t.level &* 73_856_093) ^ (t.column &* 19_349_663) ^ (t.row &* 83_492_791))
        return 0xFF00_0000 | (h & 0x00FF_FFFF) | 0x0040_4040
    }

    private func serve() {
        var random = SystemRandomNumberGenerator()
        var lastInvalidation = monotonicNanoseconds()
        var owed = 0.0
        let decoder = JSONDecoder()
        let tileRequest = Array("tileRequest".utf8), tileCancel = Array("tileCancel".utf8), failed = Array("\"ok\":false".utf8)
        while !state.withLock({ $0.stopping }) {
            let rate = state.withLock { $0.invalidationRate }
            guard let lines = connection.lines(timeoutMs: rate > 0 ? 1 : 5) else {
                state.withLock { $0.hungUp = true }
                break
            }
            var out: [UInt8] = []
            var answered: [Int64] = []
            for line in lines {
                let start = monotonicNanoseconds()
                if line.firstRange(of: tileRequest) != nil {
                    guard let message = try? decoder.decode(ControlMessage.self, from: Data(line)), let id = message.request,
                          let tile = message.tile else { continue }
                    pool.fill(tile, colour: Self.colour(tile))
                    state.withLock { s in
                        s.levels[tile.level, default: 0] += 1
                        if !s.seen.insert([tile.level, tile.column, tile.row]).inserted { s.repeats += 1 }
                    }
                    out += Array("{\"cmd\":\"tile\",\"request\":\(id)}\n".utf8)
                    answered.append(start)
                } else if line.firstRange(of: tileCancel) != nil {
                    // Every request is answered the moment it is read: a cancel is for one answered.
                    state.withLock { $0.cancels += 1 }
                } else if line.firstRange(of: failed) != nil {
                    let text = (try? decoder.decode(ControlMessage.self, from: Data(line)))?.error ?? String(decoding: line, as: UTF8.self)
                    state.withLock { $0.errors[text, default: 0] += 1 }
                }
            }
            // Invalidations owed at the rate asked, sent in the same write as the answers.
            let now = monotonicNanoseconds()
            if rate > 0 {
                owed += rate * Double(now - lastInvalidation) / 1e9
                let a = invalidationArea
                while owed >= 1 {
                    let x = Double.random(in: a.x..<(a.x + a.width - 512), using: &random).rounded()
                    let y = Double.random(in: a.y..<(a.y + a.height - 64), using: &random).rounded()
                    out += Array("{\"cmd\":\"invalidate\",\"x\":\(Int(x)),\"y\":\(Int(y)),\"width\":512,\"height\":64}\n".utf8)
                    owed -= 1
                    state.withLock { $0.invalidationsSent += 1 }
                }
            } else {
                owed = 0
            }
            lastInvalidation = now
            if !out.isEmpty {
                guard connection.write(out) else {
                    state.withLock { $0.hungUp = true }
                    break
                }
                let written = monotonicNanoseconds()
                if !answered.isEmpty {
                    state.withLock { s in
                        s.requests += answered.count
                        s.drawn += answered.count
                        for t in answered where s.service.count < 100_000 { s.service.append(Double(written - t)) }
                    }
                }
            }
        }
        state.withLock { $0.stopped = true }
    }
}

/// `flickd-bench --provider-child SOCKET NAME`: a provider in a process of its own that provides,
/// reads every request and never answers one, until it is killed (section 11's provider killed
/// mid-request). Writes `provided` on standard output once the daemon accepted it.
func providerChildMain(_ arguments: [String]) -> Never {
    guard let i = arguments.firstIndex(of: "--provider-child"), i + 2 < arguments.count else { exit(2) }
    let path = arguments[i + 1], name = arguments[i + 2]
    do {
        let connection = try RawConnection(path: path)
        let slots = 16, tileSize = 256
        let pool = try ProviderPool(bytes: slots * tileSize * tileSize * 4)
        let line = "{\"id\":1,\"cmd\":\"provide\",\"width\":7680,\"height\":200000,\"tileSize\":\(tileSize),\"slots\":\(slots),"
            + "\"name\":\"\(name)\"}"
        guard connection.write(line, passing: pool.fd),
              let reply = connection.waitLine(timeout: 5, { $0.contains("\"id\":1,") }), reply.contains("\"ok\":true") else {
            exit(1)
        }
        _ = "provided\n".withCString { Glibc.write(1, $0, 9) }
        while connection.lines(timeoutMs: 1000) != nil {}
        withExtendedLifetime(pool) {}
        exit(0)
    } catch {
        exit(1)
    }
}
