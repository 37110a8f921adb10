import Glibc

/// A pipe that wakes the event loop from another thread: a worker `signal()`s, the loop watches
/// `fileDescriptor` and `drain()`s it before looking at what the worker left. Both ends are
/// non-blocking and close on exec (a `flickd pyramid` child inherits neither).
public final class WakePipe: Sendable {
    /// The read end, readable after a `signal()` until `drain()`. A loop's watch may hold it
    /// past this pipe's life: the number is not reused while it does.
    public let fileDescriptor: Descriptor
    private let writeEnd: Descriptor

    /// A new pipe; `nil` when the process is out of descriptors.
    public init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = Descriptor(owning: ends[0])
        writeEnd = Descriptor(owning: ends[1])
    }

    /// Makes `fileDescriptor` readable (a full pipe is readable already, so a failed write is fine).
    public func signal() {
        var one: UInt8 = 1
        _ = write(writeEnd.rawValue, &one, 1)
    }

    /// Empties the pipe: not readable until the next `signal()`.
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(fileDescriptor.rawValue, &bytes, bytes.count) > 0 {}
    }
}
