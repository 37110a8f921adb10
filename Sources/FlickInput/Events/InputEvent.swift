import FlickCore

/// One kernel input event (`struct input_event`), with its timestamp as an `Instant`.
public struct InputEvent: Hashable, Sendable, CustomStringConvertible {
    /// When the kernel stamped it (CLOCK_MONOTONIC for live devices; the recorded time for
    /// recordings).
    public var time: Instant
    /// `EV_SYN`, `EV_KEY`, `EV_ABS`, …
    public var type: UInt16
    /// The code within the type (`ABS_MT_SLOT`, `BTN_TOUCH`, …).
    public var code: UInt16
    /// The value.
    public var value: Int32

    /// Creates an event.
    public init(time: Instant, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String {
        "\(time) \(EventCode.name(type: type, code: code)) \(value)"
    }
}
