import FlickCore

/// Connects a model's render states to an output: composes and commits only when needed.
///
/// The daemon calls `submit(_:now:)` whenever the model may have changed (after input, and
/// after each `.presented` once the model has stepped to the vblank time), and hands every output
/// event to `handle(_:now:)`. When the state stops changing nothing is composed or committed,
/// so the output has no deadline and nothing wakes.
public final class RenderLoop {
    /// The display backend.
    public let output: any Output
    /// The compositor.
    public let compositor: Compositor
    /// The content drawn, if any.
    public var content: Content? {
        didSet { scheduler.invalidate() }
    }
    /// The pacing decisions.
    public private(set) var scheduler = FrameScheduler()
    /// Frames composed and committed so far.
    public private(set) var committedFrameCount = 0

    /// Creates a loop over an output.
    public init(output: any Output, compositor: Compositor, content: Content?) {
        self.output = output
        self.compositor = compositor
        self.content = content
    }

    /// Takes the model's newest state and draws it if it changed and no flip is in flight.
    ///
    /// - Returns: whether a frame was committed.
    /// - Throws: the output's errors.
    @discardableResult
    public func submit(_ state: RenderState, now: Instant) throws -> Bool {
        scheduler.submit(state)
        return try renderIfNeeded(now: now)
    }

    /// Composes and commits the pending state if there is one and no flip is pending.
    ///
    /// - Returns: whether a frame was committed.
    @discardableResult
    public func renderIfNeeded(now: Instant) throws -> Bool {
        guard let state = scheduler.stateToCompose, !output.isFlipPending else { return false }
        try output.withBackBuffer { buffer in
            compositor.compose(state, content: content?.image, into: buffer)
        }
        try output.commit(now: now)
        scheduler.didCommit(state)
        committedFrameCount += 1
        return true
    }

    /// Feeds output events to the scheduler.
    ///
    /// - Returns: the presentation times, for the model to step its animations to.
    public func handle(_ events: [OutputEvent]) -> [Instant] {
        events.map { event in
            switch event {
            case .presented(let time):
                scheduler.didPresent()
                return time
            }
        }
    }
}
