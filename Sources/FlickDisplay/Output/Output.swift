import FlickCore

/// Something a display backend reports when the loop dispatches it.
public enum OutputEvent: Hashable, Sendable {
    /// The last committed frame reached the screen at this (vblank) time; the back buffer is free.
    case presented(at: Instant)
}

/// Why an output cannot do what was asked, independent of the backend.
public enum OutputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A frame is still waiting for its flip; wait for `.presented` before drawing or committing.
    case flipPending
    /// The output has been closed.
    case closed

    public var description: String {
        switch self {
        case .flipPending: "a page flip is still pending: wait for the presented event"
        case .closed: "the output is closed"
        }
    }
}

/// A display backend: a panel-sized pair of buffers, one shown and one lent for drawing
/// (after wlroots' backend interface).
///
/// Outputs are passive, like libinput and libdrm: they never wait, sleep or start threads. A
/// loop (sd-event in the daemon, a virtual loop in tests) watches `pollDescriptor` for
/// readability or waits until `nextDeadline`, then calls `dispatch(now:)`, which returns the
/// events that happened. One frame is in flight at most: after `commit(now:)`, the back buffer
/// is unavailable until `.presented`.
public protocol Output: AnyObject {
    /// The physical panel size in pixels.
    var size: PixelSize { get }
    /// The pixel layout of the buffers; `.xrgb8888` for every backend.
    var format: PixelFormat { get }
    /// Whether a committed frame has not been presented yet.
    var isFlipPending: Bool { get }
    /// A file descriptor to watch for readability, if the backend has one (DRM's card fd).
    var pollDescriptor: Int32? { get }
    /// When the loop should call `dispatch(now:)` next without waiting for a descriptor, if ever.
    var nextDeadline: Instant? { get }
    /// The time between two vblanks, for stepping animations to the frame after the next.
    var refreshPeriod: Duration { get }
    /// The frame on screen, for snapshots; `nil` once closed.
    var shownBuffer: PixelBuffer? { get }

    /// Lends the back buffer for drawing a whole frame.
    ///
    /// - Parameter body: draws into the buffer; the buffer must not be kept after it returns.
    /// - Throws: `OutputError.flipPending` while a flip is pending, or what `body` throws.
    func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R

    /// Queues the back buffer to be shown at the next vblank.
    ///
    /// - Parameter now: the current time (the headless backend derives its vblank from it).
    /// - Throws: `OutputError.flipPending`, or a backend error.
    func commit(now: Instant) throws

    /// Handles what is due (a readable descriptor, a reached deadline) and returns the events.
    ///
    /// Returns no events when nothing is due; never blocks.
    func dispatch(now: Instant) throws -> [OutputEvent]

    /// Waits for a pending flip if necessary, restores what the output changed and releases it.
    /// Idempotent.
    func close()
}

extension Output {
    /// Every backend scans out `XRGB8888`.
    public var format: PixelFormat { .xrgb8888 }
    /// No descriptor to watch.
    public var pollDescriptor: Int32? { nil }
    /// 60 Hz, for backends that cannot tell (fbdev rarely can).
    public var refreshPeriod: Duration { .nanoseconds(16_666_667) }
}
