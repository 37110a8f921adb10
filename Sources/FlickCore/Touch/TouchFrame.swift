/// Identifies one contact (one finger) for as long as it touches the panel.
///
/// FlickInput derives it from the kernel's tracking id (protocol B), from its own matching
/// (protocol A without ids) or from `BTN_TOUCH` (single touch). Ids are unique among the
/// contacts that are down at the same time on one device; they may be reused later.
public struct ContactID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw identifier.
    public var rawValue: Int

    /// Creates an identifier.
    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    public static func < (a: ContactID, b: ContactID) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "#\(rawValue)" }
}

/// What is touching the panel (`ABS_MT_TOOL_TYPE`).
public enum ToolType: Hashable, Sendable {
    /// A finger, or a device that does not say.
    case finger
    /// A pen or stylus.
    case pen
    /// A palm or other large, unintended contact (`MT_TOOL_PALM`); gestures ignore it.
    case palm
}

/// One contact as of a frame: where it is and what it is.
public struct Contact: Hashable, Sendable {
    /// The contact's identity for as long as it is down.
    public var id: ContactID
    /// Position in screen pixels (after rotation and calibration).
    public var position: Point
    /// The tool, when the device reports one.
    public var tool: ToolType

    /// Creates a contact.
    public init(id: ContactID, position: Point, tool: ToolType = .finger) {
        self.id = id
        self.position = position
        self.tool = tool
    }
}

/// Everything the panel reported in one kernel `SYN_REPORT`.
///
/// A contact that begins and ends within the same frame (down and up 30 µs apart on some
/// panels) appears in both `began` and `ended`, and not in `contacts`: it is still a touch, and
/// still a tap.
public struct TouchFrame: Hashable, Sendable {
    /// The kernel timestamp of the `SYN_REPORT`.
    public var time: Instant
    /// The contacts that are down after this frame, in a stable order (by id).
    public var contacts: [Contact]
    /// The ids of contacts that went down in this frame.
    public var began: [ContactID]
    /// The contacts that went up in this frame, at their last known position.
    public var ended: [Contact]
    /// The ids (a subset of `ended`) of contacts that vanished without a release: the device
    /// was removed, or events were dropped. Gestures cancel them rather than complete them.
    public var cancelled: [ContactID]

    /// Creates a frame.
    public init(time: Instant, contacts: [Contact], began: [ContactID] = [], ended: [Contact] = [],
                cancelled: [ContactID] = []) {
        self.time = time
        self.contacts = contacts
        self.began = began
        self.ended = ended
        self.cancelled = cancelled
    }

    /// Whether no contact is down after this frame.
    public var isEmpty: Bool { contacts.isEmpty }
}
