import Glibc

/// An open file descriptor with one owner: closed exactly once, when the last reference goes.
///
/// Compared by identity (`===`, `ObjectIdentifier`), never by number: the kernel hands a closed
/// file's number to the next file opened, so a number says nothing about which file it meant.
/// A watch that holds the `Descriptor` keeps the file open, and so keeps its number from being
/// reused, for as long as the watch exists: a stale watch cannot fire for (or, removed, take
/// with it the registration of) a newcomer on the same number.
public final class Descriptor: Sendable, CustomStringConvertible {
    /// The number, for C calls. Valid while this object lives; never close it yourself.
    public let rawValue: Int32

    /// Takes ownership of an open fd.
    /// - Parameter fd: an open descriptor nothing else will close.
    public init(owning fd: Int32) {
        rawValue = fd
    }

    /// Takes ownership of the result of an `open`-style call.
    /// - Parameter fd: the call's result.
    /// - Returns: nil when `fd` is negative (the call failed; `errno` still says why).
    public convenience init?(returnedBy fd: Int32) {
        guard fd >= 0 else { return nil }
        self.init(owning: fd)
    }

    deinit {
        // Not retried on EINTR: Linux has released the number even then.
        _ = Glibc.close(rawValue)
    }

    public var description: String { "fd \(rawValue)" }
}
