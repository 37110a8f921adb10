import FlickCore
import FlickSystem

/// Something a display backend reports when the loop dispatches it.
public enum OutputEvent: Hashable, Sendable {
    /// The last committed frame reached the screen at this (vblank) time; the back buffer is free.
    case presented(at: Instant)
    /// Something the output says once, for the journal (a way of showing frames given up for
    /// another that works on this driver).
    case note(String)
}

/// Why an output cannot do what was asked, independent of the backend.
public enum OutputError: FlickError, Hashable, Sendable {
    /// A frame is still waiting for its flip; wait for `.presented` before drawing or committing.
    case flipPending
    /// The output has been closed.
    case closed
    /// The backend has no planes for what was asked (an overlay, scanning out the content).
    case unsupported
    /// No memory for a buffer of this size.
    case allocationFailed(PixelSize)
    /// No panel is connected (`DisconnectedOutput`).
    case disconnected
    /// The panel's picture is off (`setActive(false)`): nothing may be committed until it is on.
    case inactive

    public var context: ErrorContext {
        switch self {
        case .flipPending: ErrorContext(source: "display", reason: "a page flip is still pending: wait for the presented event")
        case .closed: ErrorContext(source: "display", reason: "the output is closed")
        case .unsupported: ErrorContext(source: "display", reason: "the output has no plane for this layer")
        case .allocationFailed(let size): ErrorContext(source: "display", reason: "cannot allocate a \(size) buffer")
        case .disconnected: ErrorContext(source: "display", reason: "no panel is connected")
        case .inactive: ErrorContext(source: "display", reason: "the panel is off: no frame may be committed")
        }
    }

    public var kind: ErrorKind { .software }
}

/// A display backend: a panel-sized pair of buffers, one shown and one lent for drawing
/// (after wlroots' backend interface), and on backends with planes, frames made of layers
/// (`FrameLayers`): the content scanned out directly, overlays above it.
///
/// Outputs are passive, like libinput and libdrm: they never wait, sleep or start threads. A
/// loop (sd-event in the daemon, a virtual loop in tests) watches `pollDescriptor` for
/// readability or waits until `nextDeadline`, then calls `dispatch(now:)`, which returns the
/// events that happened. One frame is in flight at most: after `commit(_:now:)`, the back
/// buffer is unavailable until `.presented`. `commit(_:now:)` is the one way a frame reaches the
/// panel, composed (`FrameLayers.composed`) or in layers; every backend implements it.
public protocol Output: AnyObject {
    /// The physical panel size in pixels.
    var size: PixelSize { get }
    /// The pixel layout of the buffers; `.xrgb8888` for every backend.
    var format: PixelFormat { get }
    /// Whether a committed frame has not been presented yet.
    var isFlipPending: Bool { get }
    /// A file descriptor to watch for readability, if the backend has one (DRM's card fd).
    var pollDescriptor: Descriptor? { get }
    /// When the loop should call `dispatch(now:)` next without waiting for a descriptor, if ever.
    var nextDeadline: Instant? { get }
    /// The time between two vblanks, for stepping animations to the frame after the next.
    var refreshPeriod: Duration { get }
    /// The panel's visible area in millimetres, in the same orientation as `size`, when the
    /// backend knows it (a DRM connector's `mmWidth`/`mmHeight`, fbdev's `width`/`height`);
    /// nil when it does not. Sizes meant to read the same on every panel follow it.
    var physicalSize: Size? { get }
    /// A copy of the frame on screen as the panel shows it (every plane combined), for snapshots;
    /// `nil` once closed. May allocate: never on the frame path.
    func snapshot() -> PixelBuffer?
    /// Whether a panel is there to draw on: false for `DisconnectedOutput`, which stands in for
    /// a monitor that is off or unplugged (the presenter then prepares no frame and asks for no
    /// wake-up).
    var isConnected: Bool { get }
    /// The flip event of the frame in flight never came (a driver that lost it): takes that frame
    /// as shown and frees its buffer, so a frame can be committed anew. A no-op for a backend
    /// whose flips always report.
    func forgetPendingFlip()
    /// Whether a committed frame may legitimately wait for its presentation without end: a
    /// compositor withholds frame callbacks from a window it does not show (minimised, another
    /// workspace). The presenter then gives no flip up as lost (`FramePresenter.flipTimeout` is
    /// for DRM drivers that lose flip events) and, with nothing timed, sleeps until it comes.
    var flipsCanWaitIndefinitely: Bool { get }

    /// Lends the back buffer for drawing a whole frame.
    ///
    /// - Parameter body: draws into the buffer; the buffer must not be kept after it returns.
    /// - Throws: `OutputError.flipPending` while a flip is pending, or what `body` throws.
    func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R

    /// How many overlay planes the output can show above the primary one (0: it shows only
    /// composed frames, and `commit(_:now:)` accepts only `FrameLayers.composed`).
    var overlayPlaneCount: Int { get }

    /// Makes a buffer for an overlay plane.
    ///
    /// - Throws: `OutputError.unsupported` without overlay planes, or a backend error.
    func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer

    /// Prepares the primary plane to scan out `content` itself (`FrameLayers.Primary.content`)
    /// and says whether it can. The first time for a buffer it may allocate, copy and test (DRM
    /// copies the content into a scan-out buffer and test-commits a view of it); later calls for
    /// the same buffer only answer. Call it when content is set, never on the frame path.
    ///
    /// - Returns: `false` when the backend cannot, or the preparation failed: the caller
    ///   composes instead.
    func prepareScanOut(_ content: PixelBuffer) -> Bool

    /// A buffer the primary plane can scan out from any corner (`FrameLayers.Primary.content`)
    /// and that is drawn into directly, with no copy (DRM: a dumb buffer kept mapped), for
    /// content drawn in parts (tiled content's scan-out band). `nil` when the backend has none;
    /// it lives as long as the caller keeps it.
    func makeScanOutBuffer(_ size: PixelSize) -> PixelBuffer?

    /// Queues a frame to be shown at the next vblank: `FrameLayers.composed` shows the back
    /// buffer; on backends with planes the content and overlays may stand in for it.
    ///
    /// - Parameters:
    ///   - layers: what the frame is made of.
    ///   - now: the current time (the headless backend derives its vblank from it).
    /// - Throws: `OutputError.flipPending`, `OutputError.unsupported` for layers the backend
    ///   cannot show, or a backend error.
    func commit(_ layers: FrameLayers, now: Instant) throws

    /// Turns the panel's picture off (DPMS: the CRTC inactive) or on again. While off no frame
    /// may be committed; once on, the next frame is committed as usual. A flip in flight when
    /// the picture goes off is still reported by `dispatch(now:)`.
    ///
    /// - Throws: `OutputError.unsupported` when the backend cannot (the default), or a backend
    ///   error.
    func setActive(_ active: Bool) throws

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
    public var pollDescriptor: Descriptor? { nil }
    /// 60 Hz, for backends that cannot tell (fbdev rarely can).
    public var refreshPeriod: Duration { .nanoseconds(16_666_667) }
    /// Unknown.
    public var physicalSize: Size? { nil }
    /// A panel is there.
    public var isConnected: Bool { true }
    /// Flips always report.
    public func forgetPendingFlip() {}
    /// A flip that does not report in time was lost.
    public var flipsCanWaitIndefinitely: Bool { false }
    /// The panel's pixels per millimetre from `physicalSize` (along the diagonal, so a panel
    /// with slightly non-square pixels gets one figure); nil when the size is unknown or absurd.
    public var pixelsPerMillimetre: Double? {
        guard let mm = physicalSize, mm.width > 0, mm.height > 0 else { return nil }
        let pixels = (Double(size.width) * Double(size.width) + Double(size.height) * Double(size.height)).squareRoot()
        let density = pixels / (mm.width * mm.width + mm.height * mm.height).squareRoot()
        return density.isFinite && density > 0 ? density : nil
    }
    /// No overlay planes.
    public var overlayPlaneCount: Int { 0 }
    /// No overlay planes.
    public func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer { throw OutputError.unsupported }
    /// The primary plane shows composed frames only.
    public func prepareScanOut(_ content: PixelBuffer) -> Bool { false }
    /// The primary plane shows composed frames only.
    public func makeScanOutBuffer(_ size: PixelSize) -> PixelBuffer? { nil }
    /// The backend cannot turn the picture off.
    public func setActive(_ active: Bool) throws { throw OutputError.unsupported }
}
