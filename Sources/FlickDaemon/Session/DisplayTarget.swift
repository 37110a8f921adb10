import FlickCore
import FlickDisplay

/// The session's display: an output behind the compositor, seen by the session as where frames
/// go (`FrameTarget`) and as what reports presentations (`PresentationSource`).
///
/// The render loop skips a state equal to the one on screen; the session then learns that no
/// presentation will follow, so it never waits for a flip that was not queued.
public final class DisplayTarget: FrameTarget, PresentationSource {
    /// The backend, its compositor and the content.
    public let renderLoop: RenderLoop
    /// The colour outside the content.
    public var background: Color
    /// Receives output errors met while dispatching (a failed DRM read), and the render loop's
    /// notice when it gives up the overlay planes.
    public var report: (String) -> Void = { _ in } {
        didSet { renderLoop.report = report }
    }

    /// Wraps an output.
    public init(output: any Output, compositor: Compositor, content: Content?, background: Color) {
        renderLoop = RenderLoop(output: output, compositor: compositor, content: content)
        self.background = background
    }

    /// The output.
    public var output: any Output { renderLoop.output }

    /// The content shown, if any.
    public var content: Content? {
        get { renderLoop.content }
        set { renderLoop.content = newValue }
    }

    // MARK: FrameTarget

    /// The logical view: the panel turned by the panel rotation.
    public var viewSize: Size {
        renderLoop.compositor.rotation.logicalSize(panel: output.size).size
    }

    public var refreshPeriod: Duration { output.refreshPeriod }

    public func submit(_ view: ScrollView, indicatorOpacity: Double, at t: Instant, now: Instant) throws -> Bool {
        let state = RenderState(boundsSize: view.boundsSize, contentOffset: view.contentOffset,
                                zoomScale: view.zoomScale, contentSize: view.unscaledContentSize,
                                indicatorOpacity: indicatorOpacity, background: background)
        return try renderLoop.submit(state, now: now)
    }

    // MARK: PresentationSource

    public var fileDescriptor: Int32? { output.pollDescriptor }

    public var nextDeadline: Instant? { output.nextDeadline }

    public func dispatch(now: Instant) -> [Instant] {
        do {
            return renderLoop.handle(try output.dispatch(now: now))
        } catch {
            report("display: \(error)")
            return []
        }
    }
}
