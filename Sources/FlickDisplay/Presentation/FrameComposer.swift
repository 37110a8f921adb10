import FlickCore

/// Draws one frame of a `RenderState` for an output and commits it: the drawing half of
/// presentation (`FramePresenter` decides when).
///
/// On an output with two overlay planes (and no panel rotation) the scroll indicators go on
/// them, and a frame the content covers at zoom 1 is the content itself, scanned out from the
/// viewport's corner: no pixel of it is copied (docs/ARCHITECTURE.md, "Display"). Everything
/// else is composed into the back buffer, and so is every frame that shows touch marks.
public final class FrameComposer {
    /// The display backend.
    public let output: any Output
    /// The compositor.
    public let compositor: Compositor
    /// The content drawn, if any. Whether the output can scan it out (DRM copies it once into a
    /// scan-out buffer) is settled here, when it is set, not on the frame path.
    public var content: Content? {
        didSet { scanOutReady = content?.image.map { output.canScanOut($0) } ?? false }
    }
    private var scanOutReady: Bool
    /// Frames committed so far.
    public private(set) var committedFrameCount = 0
    /// Of those, the frames whose primary plane scanned out the content (nothing composed).
    public private(set) var scannedOutFrameCount = 0
    /// Why the overlay planes were given up, once they failed (every frame is composed after).
    public private(set) var planeFailure: String?
    private let strips = IndicatorStrips()
    /// The strips' buffer the next frame draws into: the other one is on screen.
    private var stripBuffer = 0

    /// Creates a composer over an output.
    public init(output: any Output, compositor: Compositor, content: Content?) {
        self.output = output
        self.compositor = compositor
        self.content = content
        scanOutReady = content?.image.map { output.canScanOut($0) } ?? false
    }

    /// The logical view: the panel turned by the panel rotation.
    public var viewSize: PixelSize { compositor.rotation.logicalSize(panel: output.size) }

    /// Draws `state` and commits it, to be shown at the next vblank. Overlay buffers that
    /// cannot be made are given up for good (`planeFailure`): this frame and every later one
    /// are composed.
    ///
    /// - Throws: `OutputError.flipPending` while a flip is in flight, or what the output throws
    ///   (a driver refusing a frame of planes: DRM then offers no overlay planes any more, so
    ///   the next frame is composed).
    public func commit(_ state: RenderState, now: Instant) throws {
        guard !output.isFlipPending else { throw OutputError.flipPending }
        let panel = output.size
        // Touch marks go over the indicators too, so a frame that shows any is composed whole.
        let planes = planeFailure == nil && output.overlayPlaneCount >= Axis.allCases.count && compositor.rotation == .none
            && state.touchMarks.isEmpty
        let origin = planes && scanOutReady ? content?.image.flatMap { compositor.scanOutOrigin(state, content: $0, panel: panel) } : nil
        var overlays: [FrameLayers.Overlay]?
        if planes {
            do {
                overlays = try strips.overlays(for: state, style: compositor.indicatorStyle, view: panel, output: output,
                                               buffer: stripBuffer)
            } catch {
                // A display that cannot make or show overlay buffers still shows every frame.
                planeFailure = "\(error)"
            }
        }
        var layers = FrameLayers(primary: .composed, overlays: overlays ?? [])
        if overlays != nil, let image = content?.image, let origin {
            layers.primary = .content(image, x: origin.x, y: origin.y)
        } else {
            try output.withBackBuffer { buffer in
                compositor.compose(state, content: content, into: buffer, indicators: overlays == nil,
                                   restingOffset: state.restingOffset)
            }
        }
        try output.commit(layers, now: now)
        stripBuffer ^= 1
        committedFrameCount += 1
        if case .content = layers.primary { scannedOutFrameCount += 1 }
    }
}
