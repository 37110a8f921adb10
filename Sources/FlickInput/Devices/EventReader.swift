import FlickCore
import FlickSystem
/// What one read of a device gave.
public enum ReadItem: Hashable, Sendable {
    /// An event, in order.
    case event(InputEvent)
    /// The kernel dropped events (`SYN_DROPPED`); the events after this bring the state up to
    /// date (libevdev's SYNC mode) and end with a `SYN_REPORT`.
    case dropped
}

/// A device that can be read without blocking: libevdev on a `/dev/input/event*` node, or a
/// scripted stand-in in tests.
public protocol EventReader: AnyObject {
    /// The node it was opened from.
    var path: String { get }
    /// The descriptor to wait on for readability; open until the last holder (the reader, a
    /// watch) lets it go, even after `close()`.
    var fileDescriptor: Descriptor { get }
    /// What the device is and reports.
    var description: DeviceDescription { get }
    /// Reads everything ready now, never blocking.
    /// - Returns: the items, and whether the device is gone (`ENODEV`): then it must be closed.
    func read() -> (items: [ReadItem], removed: Bool)
    /// Closes the device (ungrabbing it). Idempotent.
    func close()
    /// The values a reader opened now will not be told: the kernel sends an axis only when it
    /// changes, so a finger landing where the last one lifted arrives without that position.
    /// Events that set each slot's position and the current slot (no tracking ids: a contact
    /// already down stays unknown), closed by a `SYN_REPORT`; fed first to a decoder, written
    /// first to a recording. Empty when the device says nothing (scripted readers).
    func lastValues() -> [InputEvent]
}

extension EventReader {
    public func lastValues() -> [InputEvent] { [] }
}

/// A device that could not be opened, with the node and the reason.
public struct InputDeviceError: FlickError, Hashable, Sendable {
    /// The device node.
    public var path: String
    /// What failed, and what to do about it.
    public var reason: String
    /// The failed call behind it, when the kernel refused.
    public var cause: SystemError?

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// An error the kernel's refusal caused: `step: <errno in words><hint>`.
    /// - Parameters:
    ///   - path: the device node.
    ///   - step: what was being done ("cannot open").
    ///   - cause: the failed call.
    ///   - hint: what to do, appended as is (" (run as root)").
    public init(path: String, step: String, cause: SystemError, hint: String = "") {
        self.init(path: path, reason: "\(step): \(cause.message)\(hint)")
        self.cause = cause
    }

    public var context: ErrorContext { ErrorContext(source: path, reason: reason) }

    public var kind: ErrorKind { .unavailable }
}
