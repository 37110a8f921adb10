import FlickCore
import FlickSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the control socket, for `flickctl`, scripts and tests.
public final class ControlClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to the daemon's socket.
    /// - Parameter path: the socket's path.
    /// - Throws: `ControlClientError` naming the path and the reason (e.g. no daemon, no
    ///   permission: add the user to the socket's group).
    public init(path: String) throws(ControlClientError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .connect(path: path, reason: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            let cause = SystemError.current("socket", path)
            throw .connect(path: path, reason: cause.message, cause: cause)
        }
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if r != 0 {
            let cause = SystemError.current("connect", path)
            close(fd)
            let e = cause.errno
            let hint = e == EACCES ? " (is your user in the socket's group?)" : e == ENOENT || e == ECONNREFUSED ? " (is flickd running?)" : ""
            throw .connect(path: path, reason: cause.message + hint, cause: cause)
        }
    }

    deinit {
        close(fd)
    }

    /// The socket's fd, e.g. to poll it.
    public var fileDescriptor: Int32 { fd }

    /// Sends a request line.
    /// - Throws: `ControlClientError.io` if the daemon went away.
    public func send(_ request: ControlRequest) throws(ControlClientError) {
        try write(Array(request.line()))
    }

    /// Sends a request line with an open file passed along (`SCM_RIGHTS`): `snapshot` writes
    /// into it, so the client chooses the path with its own permissions.
    /// - Throws: `ControlClientError.io` if the daemon went away.
    public func send(_ request: ControlRequest, passing file: Int32) throws(ControlClientError) {
        let line = Array(request.line())
        // The fd travels with the first byte; the rest of the line follows as usual.
        guard Self.send(line.prefix(1), passing: file, on: fd) == 1 else { throw .failed(.current("sendmsg", "control socket")) }
        try write(Array(line.dropFirst()))
    }

    /// One `sendmsg` of `bytes` on `socket` with `file` passed along (`SCM_RIGHTS`); returns what
    /// `sendmsg` does (the bytes sent, or -1 and `errno`). The control buffer is
    /// CMSG_SPACE(sizeof(int)): the header and the fd, padded to the header's alignment.
    public static func send(_ bytes: ArraySlice<UInt8>, passing file: Int32, on socket: Int32) -> Int {
        let header = MemoryLayout<cmsghdr>.size
        let align = MemoryLayout<Int>.size
        let space = header + (MemoryLayout<Int32>.size + align - 1) / align * align
        var control = [UInt8](repeating: 0, count: space)
        return bytes.withUnsafeBytes { data in
            control.withUnsafeMutableBytes { raw in
                var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: data.baseAddress), iov_len: data.count)
                return withUnsafeMutablePointer(to: &iov) { iovPointer in
                    var message = msghdr()
                    message.msg_iov = iovPointer
                    message.msg_iovlen = 1
                    message.msg_control = raw.baseAddress
                    message.msg_controllen = space
                    var cmsg = cmsghdr()
                    cmsg.cmsg_level = SOL_SOCKET
                    cmsg.cmsg_type = Int32(SCM_RIGHTS)
                    cmsg.cmsg_len = header + MemoryLayout<Int32>.size
                    raw.storeBytes(of: cmsg, toByteOffset: 0, as: cmsghdr.self)
                    raw.storeBytes(of: file, toByteOffset: header, as: Int32.self)
                    return sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
                }
            }
        }
    }

    /// Sends a request with an open file and waits for its reply.
    public func call(_ request: ControlRequest, passing file: Int32) throws(ControlClientError) -> ControlMessage {
        try send(request, passing: file)
        guard let reply = try receive() else { throw .closed }
        return reply
    }

    /// Sends raw bytes (tests use it for malformed input).
    /// - Throws: `ControlClientError.io` if the daemon went away.
    public func write(_ bytes: [UInt8]) throws(ControlClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .failed(.current("send", "control socket"))
            }
            offset += n
        }
    }

    /// Reads the next line and decodes it; nil at end of stream.
    /// - Throws: `ControlClientError` on a read error or a line that is not a message.
    public func receive() throws(ControlClientError) -> ControlMessage? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                do {
                    return try JSONDecoder().decode(ControlMessage.self, from: Data(line))
                } catch {
                    throw .badReply(String(decoding: line, as: UTF8.self))
                }
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return nil }
            if n < 0 {
                if errno == EINTR { continue }
                throw .failed(.current("recv", "control socket"))
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Sends `request` and waits for its reply.
    /// - Throws: `ControlClientError`, including `.closed` if the daemon hung up first.
    public func call(_ request: ControlRequest) throws(ControlClientError) -> ControlMessage {
        try send(request)
        guard let reply = try receive() else { throw .closed }
        return reply
    }
}

/// Why talking to the daemon failed.
public enum ControlClientError: FlickError, Hashable, Sendable {
    /// The socket could not be reached: why in words, and the failed call when the kernel refused.
    case connect(path: String, reason: String, cause: SystemError? = nil)
    /// Sending or receiving failed: why in words, and the failed call behind it.
    case io(String, cause: SystemError? = nil)
    case badReply(String)
    case closed

    public var context: ErrorContext {
        switch self {
        case let .connect(path, reason, _): ErrorContext(source: path, reason: "cannot connect: \(reason)")
        case let .io(reason, _): ErrorContext(source: "control socket", reason: reason)
        case let .badReply(line): ErrorContext(source: "control socket", reason: "unexpected reply line", found: String(line.prefix(200)))
        case .closed: ErrorContext(source: "control socket", reason: "the daemon closed the connection")
        }
    }

    /// A send or receive the kernel refused, in the words `io` has always given (`strerror`).
    static func failed(_ cause: SystemError) -> ControlClientError { .io(cause.message, cause: cause) }

    public var kind: ErrorKind {
        switch self {
        case .connect, .closed: .unavailable
        case .io: .io
        case .badReply: .software
        }
    }
}
