import FlickCore
import FlickDaemon
import FlickDisplay

/// The headless output with a stopwatch on `commit`: the moment the flip is queued.
final class TimedOutput: Output {
    private let inner: HeadlessOutput
    /// Called with `CLOCK_MONOTONIC` at each commit, after the inner output accepted it.
    var onCommit: (Instant) -> Void = { _ in }

    init(_ inner: HeadlessOutput) { self.inner = inner }

    var size: PixelSize { inner.size }
    var isFlipPending: Bool { inner.isFlipPending }
    var nextDeadline: Instant? { inner.nextDeadline }
    var refreshPeriod: Duration { inner.refreshPeriod }
    var overlayPlaneCount: Int { inner.overlayPlaneCount }
    func snapshot() -> PixelBuffer? { inner.snapshot() }
    func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer { try inner.makeLayerBuffer(size) }
    func canScanOut(_ content: PixelBuffer) -> Bool { inner.canScanOut(content) }

    func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R { try inner.withBackBuffer(body) }

    func commit(now: Instant) throws { try commit(.composed, now: now) }

    func commit(_ layers: FrameLayers, now: Instant) throws {
        try inner.commit(layers, now: now)
        onCommit(EventLoop.monotonicNow())
    }

    func dispatch(now: Instant) throws -> [OutputEvent] { try inner.dispatch(now: now) }

    func close() { inner.close() }
}
