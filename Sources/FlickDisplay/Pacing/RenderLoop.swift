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
    /// Frames committed so far.
    public private(set) var committedFrameCount = 0
    /// Of those, the frames whose primary plane scanned out the content (nothing composed).
    public private(set) var scannedOutFrameCount = 0
    private let strips = IndicatorStrips()
    /// Why the overlay planes were given up, once they failed (every frame is composed after).
    public private(set) var planeFailure: String?
    /// Told once when the overlay planes fail and every frame is composed from then on.
    public var report: (String) -> Void = { _ in }

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

    /// Draws and commits the pending state if there is one and no flip is pending.
    ///
    /// On an output with two overlay planes (and no panel rotation) the scroll indicators go on
    /// them, and a frame the content covers at zoom 1 is the content itself, scanned out from the
    /// viewport's corner: no pixel of it is copied (DESIGN §4). Everything else is composed into
    /// the back buffer.
    ///
    /// - Returns: whether a frame was committed.
    @discardableResult
    public func renderIfNeeded(now: Instant) throws -> Bool {
        guard let state = scheduler.stateToCompose, !output.isFlipPending else { return false }
        let panel = output.size
        var overlays: [FrameLayers.Overlay]?
        if planeFailure == nil && output.overlayPlaneCount >= Axis.allCases.count && compositor.rotation == .none {
            do {
                overlays = try strips.overlays(for: state, style: compositor.indicatorStyle, view: panel, output: output)
            } catch {
                // A display that cannot make or show overlay buffers still shows every frame.
                planeFailure = "\(error)"
                report("display: overlay planes refused (\(error)): every frame is composed from now on")
            }
        }
        var layers = FrameLayers(primary: .composed, overlays: overlays ?? [])
        if overlays != nil, let image = content?.image,
           let origin = compositor.scanOutOrigin(state, content: image, panel: panel), output.canScanOut(image) {
            layers.primary = .content(image, x: origin.x, y: origin.y)
        } else {
            try output.withBackBuffer { buffer in
                compositor.compose(state, content: content?.image, into: buffer, indicators: overlays == nil)
            }
        }
        // A driver refusing a frame of planes is reported by the throw; DRM then offers no
        // overlay planes any more, so the next frame is composed.
        try output.commit(layers, now: now)
        strips.didCommit()
        scheduler.didCommit(state)
        committedFrameCount += 1
        if case .content = layers.primary { scannedOutFrameCount += 1 }
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
