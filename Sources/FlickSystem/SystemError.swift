import FlickCore
import Glibc

/// A failed system or library call, with what was being done: the one shape of a kernel error
/// in flickd, whichever module made the call (libc, libsystemd, libevdev, libdrm).
///
/// Domain errors (a device that cannot be opened, a DRM step that failed) may wrap one, and
/// render its kernel part with `errnoDescription`, so `errno` reads the same everywhere.
public struct SystemError: FlickError, Hashable, Sendable {
    /// The call that failed (e.g. `sd_event_add_io`).
    public var call: String
    /// What it was for (e.g. "control socket /run/flickd/control.sock").
    public var subject: String
    /// The errno (positive).
    public var errno: Int32

    /// Creates an error.
    /// - Parameters:
    ///   - call: the call that failed.
    ///   - context: what it was for: a path, a device, a step.
    ///   - errno: the errno, positive.
    public init(call: String, context: String, errno: Int32) {
        self.call = call
        self.subject = context
        self.errno = errno
    }

    /// The calling thread's `errno` after `call` failed on `context`.
    public static func current(_ call: String, _ context: String) -> SystemError {
        SystemError(call: call, context: context, errno: Glibc.errno)
    }

    /// The kernel's part of the message: `No such file or directory (errno 2)`.
    public var errnoDescription: String { "\(message) (errno \(errno))" }

    /// The errno in words, without its number (`No such file or directory`), where a message
    /// meant for a person already names the step: `flickd events`' "cannot open: …".
    public var message: String { String(cString: strerror(errno)) }

    /// Whether the error means the caller lacks a permission (`EACCES`, `EPERM`).
    public var isPermissionError: Bool { errno == EACCES || errno == EPERM }

    public var context: ErrorContext {
        ErrorContext(source: subject, reason: "\(call) failed: \(errnoDescription)")
    }

    public var kind: ErrorKind { .unavailable }
}

/// Turns a negative-errno return value (libsystemd, libevdev, libdrm's newer calls) into a
/// thrown error.
/// - Parameters:
///   - r: the call's result: negative errno on failure.
///   - call: the call, for the message.
///   - context: what it was for.
/// - Returns: `r`, when not negative.
/// - Throws: `SystemError` with `-r`.
@discardableResult
public func check(_ r: Int32, _ call: String, _ context: String) throws(SystemError) -> Int32 {
    guard r >= 0 else { throw SystemError(call: call, context: context, errno: -r) }
    return r
}

/// Turns a libc return value (-1 and errno on failure) into a thrown error, retrying on EINTR.
/// - Parameters:
///   - call: the call, for the message.
///   - context: what it was for.
///   - body: makes the call.
/// - Returns: the call's result, when not negative.
/// - Throws: `SystemError` with the errno.
@discardableResult
public func retrying<T: FixedWidthInteger>(_ call: String, _ context: String, _ body: () -> T) throws(SystemError) -> T {
    try retryingResult(call, context, body).get()
}

/// `retrying` as a value: the call's result, or the `SystemError` it failed with (code that
/// collects failures into its own error values rather than throwing them at once).
/// - Parameters:
///   - call: the call, for the message.
///   - context: what it was for.
///   - body: makes the call.
public func retryingResult<T: FixedWidthInteger>(_ call: String, _ context: String, _ body: () -> T) -> Result<T, SystemError> {
    while true {
        let r = body()
        if r >= 0 { return .success(r) }
        let e = Glibc.errno
        if e != EINTR { return .failure(SystemError(call: call, context: context, errno: e)) }
    }
}
