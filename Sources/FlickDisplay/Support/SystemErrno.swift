import Glibc

/// An error number reported by the C library (`errno`), with its `strerror` text.
///
/// FlickDisplay's own error values carry one of these together with the path and the step
/// that failed, because an errno alone does not say which call or which file was meant.
public struct SystemErrno: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    /// The raw `errno` value.
    public var rawValue: Int32

    /// Creates a value from a raw `errno` number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    static var current: SystemErrno { SystemErrno(rawValue: errno) }

    /// Permission denied (`EACCES`).
    public static let permissionDenied = SystemErrno(rawValue: EACCES)
    /// Operation not permitted (`EPERM`).
    public static let notPermitted = SystemErrno(rawValue: EPERM)
    /// Device or resource busy (`EBUSY`).
    public static let busy = SystemErrno(rawValue: EBUSY)
    /// No such file or directory (`ENOENT`).
    public static let noEntry = SystemErrno(rawValue: ENOENT)

    /// Whether the error means the caller lacks a permission.
    public var isPermissionError: Bool { rawValue == EACCES || rawValue == EPERM }

    public var description: String { "\(String(cString: strerror(rawValue))) (errno \(rawValue))" }
}

/// Runs a C call that returns −1 and sets `errno` on failure, retrying after `EINTR`.
func valueOrErrno<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, SystemErrno> {
    while true {
        let value = body()
        if value != -1 { return .success(value) }
        let error = SystemErrno.current
        if error.rawValue != EINTR { return .failure(error) }
    }
}
