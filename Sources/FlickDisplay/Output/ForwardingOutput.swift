import FlickCore
import FlickSystem

/// An output that passes every call to another: subclass it to watch or change one call
/// (a stopwatch on `commit`, a display that refuses overlay buffers) and leave the rest as is.
open class ForwardingOutput: Output {
    /// The output every call goes to.
    public let inner: any Output

    /// Wraps an output.
    public init(_ inner: any Output) { self.inner = inner }

    open var size: PixelSize { inner.size }
    open var isFlipPending: Bool { inner.isFlipPending }
    open var pollDescriptor: Descriptor? { inner.pollDescriptor }
    open var nextDeadline: Instant? { inner.nextDeadline }
    open var refreshPeriod: Duration { inner.refreshPeriod }
    open var physicalSize: Size? { inner.physicalSize }
    open var overlayPlaneCount: Int { inner.overlayPlaneCount }
    open var isConnected: Bool { inner.isConnected }
    open func forgetPendingFlip() { inner.forgetPendingFlip() }
    open var flipsCanWaitIndefinitely: Bool { inner.flipsCanWaitIndefinitely }
    open func snapshot() -> PixelBuffer? { inner.snapshot() }
    open func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R { try inner.withBackBuffer(body) }
    open func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer { try inner.makeLayerBuffer(size) }
    open func prepareScanOut(_ content: PixelBuffer) -> Bool { inner.prepareScanOut(content) }
    open func makeScanOutBuffer(_ size: PixelSize) -> PixelBuffer? { inner.makeScanOutBuffer(size) }
    open func commit(_ layers: FrameLayers, now: Instant) throws { try inner.commit(layers, now: now) }
    open func setActive(_ active: Bool) throws { try inner.setActive(active) }
    open func dispatch(now: Instant) throws -> [OutputEvent] { try inner.dispatch(now: now) }
    open func close() { inner.close() }
}
