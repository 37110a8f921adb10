import FlickCore
#if canImport(Glibc)
import Glibc
#endif

/// A failed system or library call, with what was being done.
public struct SystemError: FlickError, Hashable, Sendable {
    /// The call that failed (e.g. `sd_event_add_io`).
    public var call: String
    /// What it was for (e.g. "control socket /run/flickd/control.sock").
    public var subject: String
    /// The errno (positive).
    public var errno: Int32

    /// Creates an error.
    public init(call: String, context: String, errno: Int32) {
        self.call = call
        self.subject = context
        self.errno = errno
    }

    public var context: ErrorContext {
        ErrorContext(source: subject, reason: "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))")
    }

    public var kind: ErrorKind { .unavailable }
}

/// Turns a libsystemd return value (negative errno on failure) into a thrown error.
@discardableResult
func check(_ r: Int32, _ call: String, _ context: String) throws(SystemError) -> Int32 {
    guard r >= 0 else { throw SystemError(call: call, context: context, errno: -r) }
    return r
}

/// Turns a libc return value (-1 and errno on failure) into a thrown error, retrying on EINTR.
@discardableResult
func retrying(_ call: String, _ context: String, _ body: () -> Int32) throws(SystemError) -> Int32 {
    while true {
        let r = body()
        if r >= 0 { return r }
        if errno == EINTR { continue }
        throw SystemError(call: call, context: context, errno: errno)
    }
}

/// The folder part of a file path, as `dirname` gives it but empty for a bare name (nothing to
/// create): `a/b` → `a`, `/b` → `/`, `b` → ``.
func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    let parent = path[..<slash].reversed().drop { $0 == "/" }.reversed()
    return parent.isEmpty ? "/" : String(parent)
}

/// Writes `text` to stderr whole, unbuffered (a log line must not wait in a buffer for a crash).
public func writeStandardError(_ text: String) {
    writeWhole(text, to: 2)
}

/// Writes `text` to stdout whole, unbuffered: a script on the other end of a pipe acts on each
/// line as it comes (`flickd calibrate`'s targets, `flickd events`' lines).
public func writeStandardOutput(_ text: String) {
    writeWhole(text, to: 1)
}

private func writeWhole(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        bytes = bytes.dropFirst(n)
    }
}
