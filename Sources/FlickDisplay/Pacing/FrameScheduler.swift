/// Decides when to compose: only when the state changed, with one flip in flight at most.
///
/// A pure value: the caller reports what it committed and when flips complete. The state that
/// reaches the screen is always the newest one submitted, never a stale one in between.
public struct FrameScheduler: Sendable {
    /// The state of the frame on screen or in flight.
    public private(set) var lastCommitted: RenderState?
    /// A newer state waiting to be drawn, if any.
    public private(set) var pending: RenderState?
    /// Whether a committed frame has not been presented yet.
    public private(set) var isFlipPending = false

    /// Creates a scheduler with nothing drawn yet.
    public init() {}

    /// Whether a frame differing from the last committed one is waiting.
    public var needsDisplay: Bool { pending != nil }

    /// Records the newest state; marks display needed if it differs from the last committed one.
    public mutating func submit(_ state: RenderState) {
        pending = state == lastCommitted ? nil : state
    }

    /// Forces the next frame to be drawn even if the state is unchanged (content replaced).
    public mutating func invalidate() {
        pending = pending ?? lastCommitted
        lastCommitted = nil
    }

    /// The state to compose now: the pending one, if no flip is in flight.
    public var stateToCompose: RenderState? { isFlipPending ? nil : pending }

    /// Records that `state` was composed and committed.
    public mutating func didCommit(_ state: RenderState) {
        lastCommitted = state
        pending = nil
        isFlipPending = true
    }

    /// Records the flip's completion.
    ///
    /// - Returns: whether another frame is needed now.
    @discardableResult
    public mutating func didPresent() -> Bool {
        isFlipPending = false
        return needsDisplay
    }
}
