import FlickControl
import FlickCore
import FlickSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The local control socket: JSON lines, one request → one reply, and `subscribe` to stream
/// events. A slow or hostile client never blocks the loop: reads and writes are non-blocking
/// and bounded, and a client that overflows a bound is dropped.
public final class ControlServer {
    /// Bounds that keep hostile clients cheap.
    public struct Limits: Sendable {
        /// Connections beyond this make room by closing the oldest client that has not yet
        /// sent a complete request; when every client has, the newcomer is closed.
        public var maxClients = 64
        /// At most this many connections are taken per wake-up, so a flood of connects cannot
        /// hold the loop away from input and frames.
        public var maxAcceptsPerWakeup = 32
        /// A request line longer than this drops the client.
        public var maxLineBytes = 64 * 1024
        /// Unsent output beyond this (a subscriber that never reads) drops the client.
        public var maxPendingBytes = 1024 * 1024
        /// At most this much is read from one client per wake-up, so one client cannot starve
        /// the others or the display.
        public var maxReadPerWakeup = 256 * 1024
        /// Answering one client's lines stops once this much time has passed in a wake-up; the
        /// lines left are answered in the loop's next iterations (nothing more is read from the
        /// client meanwhile). Bytes alone do not bound the work: 256 KiB of well-formed requests
        /// is thousands of them, tens of milliseconds of decoding, handling and replying, frames
        /// missed while one client floods.
        public var maxWorkPerWakeup: Duration = .milliseconds(2)

        /// The defaults above.
        public init() {}
    }

    /// Answers one command for one client, with the file the client passed along with it (an
    /// fd, `SCM_RIGHTS`), if any: the server closes it after the reply. `subscribe` is handled
    /// by the server itself after the handler's reply.
    public typealias Handler = (ControlCommand, Int?, Int32?, Caller) -> ControlMessage

    /// Which connection a command came on: the id it keeps while connected (never reused).
    public struct Caller: Hashable, Sendable {
        public var id: Int

        /// A caller by its id (0: none of the socket's, e.g. a replay's or a test's commands).
        public init(id: Int) { self.id = id }
    }

    /// Called when a connection goes (closed by the client, or dropped for breaking a bound).
    public var onDisconnect: ((Caller) -> Void)?
    /// Called once after the lines a connection sent in one wake-up were handled (at least
    /// one): what follows any command (timers armed again) is done once for all of them, not
    /// for each of an app's thousands of lines a second.
    public var onLinesHandled: (() -> Void)?

    private let loop: EventLoop
    private let path: String
    private let limits: Limits
    private let handler: Handler
    private let listening: Descriptor
    private var listenSource: IOSource?
    /// Answers the lines left over by clients that used up a wake-up's work (`Client.backlog`).
    private var backlogTimer: TimerSource?
    private var clients: [Int32: Client] = [:]

    /// Clients connected now.
    public var clientCount: Int { clients.count }
    /// Clients dropped for breaking a limit since start.
    public private(set) var droppedClients = 0

    /// Connections accepted so far: the clients' ages.
    private var accepted = 0

    private final class Client {
        /// Its socket, held also by its watch: the number is not handed out again while either lives.
        let socket: Descriptor
        /// The socket's number, its key among the clients while it is connected.
        var fd: Int32 { socket.rawValue }
        /// When it came, in accepts: the oldest unproven client makes room first.
        let serial: Int
        var source: IOSource?
        var input: [UInt8] = []
        /// Lines queued for the client; the first `sent` bytes of it are already sent.
        var output: [UInt8] = []
        /// How much of `output` went out. The buffer is compacted only once that passes half of
        /// it: a subscriber that reads a little at a time behind a backlog of per-report events
        /// (`didScroll`, `contentTouchMove`) costs no copying of the whole backlog per send.
        var sent = 0
        /// The bytes still to send.
        var pending: Int { output.count - sent }
        var subscription: Set<String>?? = .none
        /// Whether it has sent a well-formed request: such clients are never evicted for room.
        var proven = false
        /// Whether `input` holds complete lines not answered yet (a wake-up's work was used up).
        var backlog = false
        /// Files passed with the bytes read (`SCM_RIGHTS`), each with the index in `input` of the
        /// last byte that came with it: it goes with the line holding that byte. (A `recvmsg`
        /// returns the bytes sent before a file's together with the file's own and stops after
        /// them, so with pipelined requests the lines before it come in the same read.) A line
        /// takes the first of its files; more than `maxWaitingFiles` waiting are closed as they
        /// come, so a client cannot pile up the daemon's fds.
        var attached: [(fd: Int32, at: Int)] = []
        static let maxWaitingFiles = 2

        init(socket: Descriptor, serial: Int) {
            self.socket = socket
            self.serial = serial
        }

        var isSubscribed: Bool { subscription != .none }

        func wants(_ type: String?) -> Bool {
            guard case let .some(filter) = subscription else { return false }
            guard let filter, let type else { return true }
            return filter.contains(type)
        }
    }

    /// Listens on `path`, creating its directory, replacing a stale socket, refusing to start
    /// when another daemon answers on it.
    /// - Parameters:
    ///   - path: the socket's path.
    ///   - mode: its permissions (e.g. `0o660`).
    ///   - loop: the loop that watches it.
    ///   - limits: bounds per client.
    ///   - handler: answers commands.
    /// - Throws: `SystemError` naming the call and the path.
    public init(path: String, mode: mode_t = 0o660, loop: EventLoop, limits: Limits = Limits(),
                handler: @escaping Handler) throws(SystemError) {
        self.loop = loop
        self.path = path
        self.limits = limits
        self.handler = handler
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw SystemError(call: "bind", context: "control socket \(path) (path longer than \(capacity - 1) bytes)", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let directory = parentDirectory(of: path)
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let fd = try retrying("socket", "control socket \(path)") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        func fail(_ call: String) -> SystemError {
            let e = errno
            close(fd)
            return SystemError(call: call, context: "control socket \(path)", errno: e)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        if bound != 0 {
            guard errno == EADDRINUSE else { throw fail("bind") }
            // Only a stale socket is replaced: a file that is not a socket is someone's data,
            // and a socket that answers is another flickd.
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
                close(fd)
                throw SystemError(call: "bind", context: "control socket \(path) (a file that is not a socket is there: "
                                  + "remove it or set control.socket)", errno: EEXIST)
            }
            if Self.answers(at: &address) {
                close(fd)
                throw SystemError(call: "bind", context: "control socket \(path) (another flickd is listening)", errno: EADDRINUSE)
            }
            unlink(path)
            let again = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            if again != 0 { throw fail("bind") }
        }
        if chmod(path, mode) != 0 { throw fail("chmod") }
        if listen(fd, 128) != 0 { throw fail("listen") }
        listening = Descriptor(owning: fd)
        listenSource = try loop.addIO(listening, events: .readable, context: "control socket \(path)") { [unowned self] _ in
            self.acceptClients()
        }
        backlogTimer = try loop.addTimer(context: "control socket backlog") { [unowned self] _ in
            for client in self.clients.values where client.backlog && self.clients[client.fd] === client { self.read(client) }
        }
    }

    deinit {
        listenSource = nil
        backlogTimer = nil
        for client in clients.values {
            for file in client.attached { close(file.fd) }
        }
        // The descriptors close as their owners go (the clients, the sources released above).
        unlink(path)
    }

    private static func answers(at address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, length) } } == 0
    }

    // MARK: Events out

    /// Sends `message` to every subscriber that wants its type.
    public func broadcast(_ message: ControlMessage) {
        let subscribers = clients.values.filter { $0.wants(message.type) }
        guard !subscribers.isEmpty else { return }
        let line = [UInt8](message.line())
        for client in subscribers { send(line, to: client) }
    }

    /// Whether anybody listens for events (so the daemon can skip building them).
    public var hasSubscribers: Bool { clients.values.contains { $0.isSubscribed } }

    /// Sends `message` to one connection, within its bounds (one that lets too much pile up is
    /// dropped); `false` when it is gone.
    @discardableResult
    public func send(_ message: ControlMessage, to caller: Caller) -> Bool {
        guard let client = clients.values.first(where: { $0.serial == caller.id }) else { return false }
        send([UInt8](message.line()), to: client)
        return clients[client.fd] === client
    }

    /// Adds event `types` to what a connection receives, as if it had subscribed to them too.
    public func subscribe(_ caller: Caller, to types: Set<String>) {
        guard let client = clients.values.first(where: { $0.serial == caller.id }) else { return }
        switch client.subscription {
        case .none: client.subscription = .some(types)
        case .some(.none): break   // every event already
        case .some(.some(let wanted)): client.subscription = .some(wanted.union(types))
        }
    }

    // MARK: Connections

    private func acceptClients() {
        // The rest of a flood waits in the backlog for the next wake-up (level-triggered).
        for _ in 0..<limits.maxAcceptsPerWakeup {
            let fd = accept(listening.rawValue, nil, nil)
            if fd < 0 { return } // EAGAIN, or a transient error: the next wake-up retries.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard clients.count < limits.maxClients || makeRoom() else {
                close(fd)
                droppedClients += 1
                continue
            }
            accepted += 1
            // Closed when the client goes, or at once if it cannot be watched.
            let client = Client(socket: Descriptor(owning: fd), serial: accepted)
            do {
                client.source = try loop.addIO(client.socket, events: .readable, context: "control client") { [unowned self, unowned client] events in
                    self.handle(client, events: events)
                }
                clients[fd] = client
            } catch {
                continue
            }
        }
    }

    /// Takes `socket` (a connected stream socket the daemon made: flickd-render's end of its
    /// socket pair) as a client, answered as any other; it is never evicted to make room.
    /// - Returns: its caller, whose commands the handler may trust as the daemon's own.
    /// - Throws: `SystemError` when it cannot be watched.
    public func adopt(_ socket: Descriptor) throws(SystemError) -> Caller {
        let fd = socket.rawValue
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        accepted += 1
        let client = Client(socket: socket, serial: accepted)
        client.proven = true
        client.source = try loop.addIO(client.socket, events: .readable, context: "flickd-render") { [unowned self, unowned client] events in
            self.handle(client, events: events)
        }
        clients[fd] = client
        return Caller(id: client.serial)
    }

    /// Closes an adopted connection (its helper was killed): its end comes through `onDisconnect`.
    public func disconnect(_ caller: Caller) {
        guard let client = clients.values.first(where: { $0.serial == caller.id }) else { return }
        drop(client, broke: false)
    }

    /// Closes the oldest client that has not sent a well-formed request, after reading what it
    /// may have sent meanwhile (its request then gets answered and it stays).
    /// - Returns: whether a place is free now.
    private func makeRoom() -> Bool {
        for candidate in clients.values.filter({ !$0.proven }).sorted(by: { $0.serial < $1.serial }) {
            read(candidate)
            guard clients[candidate.fd] === candidate else { return true } // it left or broke a limit
            if !candidate.proven {
                drop(candidate, broke: true)
                return true
            }
        }
        return clients.count < limits.maxClients
    }

    private func handle(_ client: Client, events: IOEvents) {
        if events.contains(.writable) { flush(client) }
        guard clients[client.fd] === client else { return }
        if !events.isDisjoint(with: [.readable, .hangUp, .error]) { read(client) }
    }

    private func read(_ client: Client) {
        let deadline = EventLoop.monotonicNow() + limits.maxWorkPerWakeup
        // Lines left from an earlier wake-up first; nothing more is read until they are answered.
        if client.backlog {
            processLines(client, until: deadline)
            guard clients[client.fd] === client, !client.backlog else { return }
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        var files: [Int32] = []
        while total < limits.maxReadPerWakeup {
            let n = receiveWithFiles(on: client.fd, into: &buffer, files: &files)
            if n == 0 {
                files.forEach { close($0) }
                return drop(client, broke: false)
            }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return drop(client, broke: false)
            }
            total += n
            client.input.append(contentsOf: buffer[0..<n])
            // The files came with the last bytes of this read.
            for file in files {
                if client.attached.count < Client.maxWaitingFiles {
                    client.attached.append((file, client.input.count - 1))
                } else {
                    close(file)
                }
            }
            files.removeAll()
            processLines(client, until: deadline)
            guard clients[client.fd] === client, !client.backlog else { return }
            if client.input.count > limits.maxLineBytes {
                send([UInt8](ControlMessage.failure(id: nil, .lineTooLong(limit: limits.maxLineBytes)).line()), to: client)
                return drop(client, broke: true)
            }
        }
    }

    /// Answers the complete lines in `client`'s input, in order, until `deadline`; the lines left
    /// then are its backlog, answered at the loop's next iteration.
    private func processLines(_ client: Client, until deadline: Instant) {
        var start = 0
        client.backlog = false
        defer { if start > 0 { onLinesHandled?() } }
        while let newline = client.input[start...].firstIndex(of: 0x0A) {
            if start > 0 && EventLoop.monotonicNow() >= deadline {
                client.backlog = true
                backlogTimer?.schedule(at: loop.now)
                break
            }
            let line = client.input[start..<newline]
            start = newline + 1
            // The files that came with this line's bytes: the first goes with it.
            let own = client.attached.filter { $0.at <= newline }.map(\.fd)
            client.attached.removeAll { $0.at <= newline }
            own.dropFirst().forEach { close($0) }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                if let file = own.first { close(file) }
                continue
            }
            answer(line, file: own.first, for: client)
            guard clients[client.fd] === client else { return }
        }
        if start > 0 {
            client.input.removeFirst(start)
            for i in client.attached.indices { client.attached[i].at -= start }
        }
    }

    private func answer(_ line: ArraySlice<UInt8>, file: Int32?, for client: Client) {
        defer { if let file { close(file) } }
        let request: ControlRequest
        do {
            request = try ControlRequest.decode(line)
        } catch {
            return send([UInt8](ControlMessage.failure(id: nil, error).line()), to: client)
        }
        do {
            let command = try ControlCommand(request)
            client.proven = true
            let reply = handler(command, request.id, file, Caller(id: client.serial))
            if case let .subscribe(filter) = command, reply.ok == true { client.subscription = .some(filter) }
            send([UInt8](reply.line()), to: client)
        } catch {
            send([UInt8](ControlMessage.failure(id: request.id, error).line()), to: client)
        }
    }

    private func send(_ bytes: [UInt8], to client: Client) {
        guard client.pending + bytes.count <= limits.maxPendingBytes else { return drop(client, broke: true) }
        client.output.append(contentsOf: bytes)
        flush(client)
    }

    private func flush(_ client: Client) {
        while client.pending > 0 {
            // MSG_NOSIGNAL: a client gone mid-write must not SIGPIPE the daemon.
            let n = client.output.withUnsafeBytes { bytes in
                Glibc.send(client.fd, bytes.baseAddress! + client.sent, client.pending, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return drop(client, broke: false)
            }
            client.sent += n
        }
        if client.pending == 0 {
            client.output.removeAll(keepingCapacity: true)
            client.sent = 0
        } else if client.sent > client.output.count / 2 {
            client.output.removeFirst(client.sent)
            client.sent = 0
        }
        client.source?.setEvents(client.pending == 0 ? .readable : [.readable, .writable])
    }

    private func drop(_ client: Client, broke: Bool) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        if broke { droppedClients += 1 }
        // Its watch goes first; the socket closes when the client object goes, at the end of the
        // call that dropped it, so no wake-up can reach a newcomer through a stale watch.
        client.source = nil
        for file in client.attached { close(file.fd) }
        client.attached.removeAll()
        shutdown(client.fd, Int32(SHUT_RDWR))
        onDisconnect?(Caller(id: client.serial))
    }
}
