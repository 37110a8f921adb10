import FlickCore
import FlickSystem

/// The output of a pipeline with no panel: started with the monitor off, or after it was
/// unplugged. It keeps the size and refresh period of the panel it stands for, so the model keeps
/// its layout, and it draws nothing and wakes nothing: the presenter prepares no frame for it
/// (`isConnected` is false) and asks for no deadline, so a daemon waiting for a monitor sleeps.
public final class DisconnectedOutput: Output {
    public let size: PixelSize
    public let refreshPeriod: Duration
    /// Nothing is ever in flight.
    public var isFlipPending: Bool { false }
    /// Nothing to wait for.
    public var nextDeadline: Instant? { nil }
    /// No panel.
    public var isConnected: Bool { false }

    /// Stands for a panel of `size` refreshing every `refreshPeriod` (the last one shown, or the
    /// configured size before any).
    public init(size: PixelSize, refreshPeriod: Duration = .nanoseconds(16_666_667)) {
        self.size = size
        self.refreshPeriod = refreshPeriod
    }

    /// Nothing is on screen.
    public func snapshot() -> PixelBuffer? { nil }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R { throw OutputError.disconnected }

    public func commit(_ layers: FrameLayers, now: Instant) throws { throw OutputError.disconnected }

    public func dispatch(now: Instant) throws -> [OutputEvent] { [] }

    public func close() {}
}
