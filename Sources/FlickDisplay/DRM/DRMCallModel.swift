import FlickCore

/// An output that passes every frame on and counts the DRM calls `DRMOutput` would make to show
/// it, for a way of panning (`ScanOutPan`): the benchmark's figure for a pan on a machine
/// without a card (the real calls are counted in the e2e VM, `DRMCallCounts`).
///
/// The model is `DRMOutput`'s bookkeeping, in its terms: each frame is one commit; a frame
/// showing a scan-out buffer from a corner is a panned frame when the corner or the buffer
/// changed (`DRMOutput.pans`); with views, such a frame adds a framebuffer (`ScanOutPan.step`)
/// and the view the frame before showed is removed once the flip replaced it. A buffer's own
/// framebuffer, made once when it is first shown, is not counted.
public final class DRMCallModel: ForwardingOutput {
    /// The way of panning counted.
    public let pan: ScanOutPan
    /// The calls counted so far, for every frame.
    public private(set) var counts = DRMCallCounts()
    /// The calls made for panned frames alone: each one's commit, the view it added and the
    /// one it replaced (what a panned frame costs; `counts` adds the frames that did not pan,
    /// such as the indicators' fade).
    public private(set) var panned = DRMCallCounts()
    /// What the frame on screen shows, and whether it needed a view of its own.
    private var shown: (primary: FrameLayers.Primary, hasView: Bool) = (.composed, false)

    /// Wraps `inner`, counting as `pan` would.
    public init(_ inner: any Output, pan: ScanOutPan) {
        self.pan = pan
        super.init(inner)
    }

    public override func commit(_ layers: FrameLayers, now: Instant) throws {
        try inner.commit(layers, now: now)
        let before = counts
        let pans = DRMOutput.pans(to: layers.primary, from: shown.primary)
        defer { if pans { panned = panned + (counts - before) } }
        counts.commits += 1
        if pans { counts.pannedFrames += 1 }
        var hasView = false
        var keepsView = false
        if case .content(let content, let x, let y) = layers.primary {
            var corner: (x: Int, y: Int)?
            if case .content(let was, let wasX, let wasY) = shown.primary, was === content { corner = (wasX, wasY) }
            let step = pan.step(x: x, y: y, shown: corner)
            if step.addsFramebuffer { counts.framebuffersAdded += 1 }
            hasView = pan == .views
            keepsView = hasView && !step.addsFramebuffer
        }
        if shown.hasView && !keepsView { counts.framebuffersRemoved += 1 }
        shown = (layers.primary, hasView)
    }
}
