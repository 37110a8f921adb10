import FlickCore
import FlickSystem

/// Draws one frame of a `RenderState` for an output and commits it: the drawing half of
/// presentation (`FramePresenter` decides when).
///
/// On an output with two overlay planes (and no panel rotation) the scroll indicators go on
/// them, and a frame the content covers at zoom 1 is the content itself, scanned out from the
/// viewport's corner: no pixel of it is copied (docs/ARCHITECTURE.md, "The path of one frame"). Everything
/// else is composed into the back buffer, and so is every frame that shows touch marks or
/// calibrate's target screen.
public final class FrameComposer {
    /// The display backend.
    public let output: any Output
    /// The compositor.
    public let compositor: Compositor
    /// The content drawn, if any. The output prepares to scan it out (DRM copies it once into a
    /// scan-out buffer) here, when it is set, not on the frame path.
    public var content: Content? {
        didSet {
            scanOutReady = content?.image.map { output.prepareScanOut($0) } ?? false
            // Its workers stop now. Its pipe stays open while a loop's watch holds its
            // descriptor, so the number is not reused under the watch.
            if let oldValue, oldValue !== content { oldValue.tiles?.close() }
        }
    }
    private var scanOutReady: Bool
    /// Tiled content's scan-out band, made at its first frame at zoom 1, and the tiles it is for.
    private var band: ScanOutBand?
    private weak var bandStore: TileStore?
    /// Bands drawn by the worker so far (tiled content scanned out at zoom 1).
    public var bandFills: Int { band?.fills ?? 0 }
    /// Frames of tiled content at zoom 1 composed into a band's buffer (then scanned out from it).
    public var bandFramesDrawn: Int { band?.framesDrawn ?? 0 }
    /// Frames of tiled content no band could hold (zoomed, past the edges) composed into a
    /// band's buffer and scanned out from it.
    public var bandFramesComposed: Int { band?.framesComposed ?? 0 }
    /// Pixels of a band drawn again because an app redrew their tiles (the rest of the band kept).
    public var bandPixelsRedrawn: Int { band?.pixelsRedrawn ?? 0 }
    /// Frames drawn into a band's buffer that held most of the view already: only the rest and
    /// its parts out of date drawn, not the whole view.
    public var bandFramesPatched: Int { band?.framesPatched ?? 0 }
    /// Frames shown from the band's buffer on screen out of date where the view is (an app's
    /// new tiles not in it yet) while the worker drew the other buffer.
    public var bandFramesOutOfDate: Int { band?.framesOutOfDate ?? 0 }
    /// Bytes of the band's two buffers (0 without a band).
    public var bandBytes: Int { band?.bytes ?? 0 }
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
        scanOutReady = content?.image.map { output.prepareScanOut($0) } ?? false
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
        if state.blank {
            try output.withBackBuffer { $0.fill(0) }
            try output.commit(.composed, now: now)
            return
        }
        let panel = output.size
        // Touch marks go over the indicators too, and a link's shade over the content, so a frame
        // that shows any is composed whole; so is calibrate's target screen, which has no
        // content to scan out.
        let planes = planeFailure == nil && output.overlayPlaneCount >= Axis.allCases.count && compositor.rotation == .none
            && state.touchMarks.isEmpty && state.linkHighlights.isEmpty && state.targetScreen == nil
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
        if let store = content?.tiles {
            // An app's redrawn content: stale tiles are asked for again by this frame, and what
            // a band holds of the tiles that arrived new is drawn again (that part only).
            let storeBand = bandStore === store ? band : nil
            store.applyInvalidations(bandHolds: storeBand?.holds ?? [])
            let changed = store.takeChanges()
            if !changed.isEmpty { storeBand?.invalidate(changed) }
        }
        var layers = FrameLayers(primary: .composed, overlays: overlays ?? [])
        let banded = overlays != nil ? bandSource(for: state, panel: panel) : nil
        if overlays != nil, let image = content?.image, let origin {
            layers.primary = .content(image, x: origin.x, y: origin.y)
        } else if let banded {
            layers.primary = .content(banded.buffer, x: banded.x, y: banded.y)
        } else {
            try output.withBackBuffer { buffer in
                compositor.compose(state, content: content, into: buffer, indicators: overlays == nil,
                                   restingOffset: state.restingOffset)
            }
        }
        try output.commit(layers, now: now)
        content?.tiles?.frameCommitted()
        band?.onScreen = banded?.index
        stripBuffer ^= 1
        committedFrameCount += 1
        if case .content = layers.primary { scannedOutFrameCount += 1 }
    }

    /// `state` composed whole into a panel-sized buffer of its own, as a frame without overlay
    /// planes shows it: a snapshot of a frame the panel does not show yet. It allocates, so it is
    /// never on the frame path; its own compositor leaves the frames' resampled tiles as they are.
    /// - Returns: nil when no memory is left for the buffer.
    public func composedCopy(of state: RenderState) -> PixelBuffer? {
        let panel = output.size
        guard let target = PixelBuffer(width: panel.width, height: panel.height) else { return nil }
        if state.blank {
            target.fill(0)
            return target
        }
        Compositor(rotation: compositor.rotation, indicatorStyle: compositor.indicatorStyle)
            .compose(state, content: content, into: target, restingOffset: state.restingOffset)
        return target
    }

    // MARK: Tiled content at zoom 1

    /// The descriptor readable when a scan-out band finished drawing (`takeBandFill()`).
    public var fileDescriptor: Descriptor? { band?.fileDescriptor }

    /// Takes a finished scan-out band: `true` if frames can now be scanned out from it (worth a
    /// redraw).
    public func takeBandFill() -> Bool { band?.takeFinished() ?? false }

    /// Whether a scan-out band is being drawn, or drawn and not yet taken: `fileDescriptor`
    /// turns readable when it is done.
    public var isFillingBand: Bool { band?.isFilling ?? false }

    /// Where a frame of tiled content can be scanned out from, planning the next band on the way.
    private func bandSource(for state: RenderState, panel: PixelSize) -> (buffer: PixelBuffer, index: Int, x: Int, y: Int)? {
        guard let store = content?.tiles, store.source.isOpaque, let band = band(for: store, panel: panel) else { return nil }
        // Levels of detail above zoom 1: zoom 1 is no level's own pixels, so nothing is banded.
        guard store.source.contentScale == 1,
              let (x, y) = compositor.scanOutOrigin(state, contentSize: store.source.grid.size, panel: panel) else {
            // Zoomed, or past the content's edges: composed, but into a band's buffer.
            return band.composeFrame(view: panel) { part in
                compositor.compose(state, content: content, into: part, indicators: false, restingOffset: state.restingOffset)
            }
        }
        band.plan(x: x, y: y, view: panel, resting: state.restingOffset, store: store)
        if let shown = band.source(x: x, y: y, view: panel) { return shown }
        // Not in a band yet: composed into the band's free buffer, scanned out from there.
        return band.drawFrame(x: x, y: y, view: panel, resting: state.restingOffset, store: store) { part in
            let coarser = store.framesFromCoarser, holes = store.framesWithHoles
            compositor.compose(state, content: content, into: part, indicators: false, restingOffset: state.restingOffset)
            return store.framesFromCoarser == coarser && store.framesWithHoles == holes
        }
    }

    /// The band for `store`, made the first time when the output has scan-out buffers and the
    /// cache's budget leaves room for it: its two buffers come out of `content.cache_mb`, and
    /// at least two screens' worth of tiles must remain.
    private func band(for store: TileStore, panel: PixelSize) -> ScanOutBand? {
        if bandStore === store { return band }
        // The content changed: the old band's share goes back to its cache.
        if let band, let old = bandStore { old.cache.budgetBytes += band.bytes }
        band = nil
        bandStore = store
        let margin = ScanOutBand.defaultMargin(view: panel)
        let bandBytes = 2 * 4 * ScanOutBand.size(view: panel, content: store.source.grid.size, margin: margin).area
        guard store.cache.budgetBytes - bandBytes >= 2 * 4 * panel.area + store.cache.pinnedBytes,
              let made = ScanOutBand(output: output, view: panel, content: store.source.grid.size, margin: margin) else {
            return nil
        }
        store.cache.budgetBytes -= made.bytes
        band = made
        return made
    }
}
