import FlickCore
import FlickSystem

/// What makes a content's missing tiles away from the loop and hands them back: the worker
/// threads decoding files (`TileLoader`), or an app drawing them on request (`TileProvider`).
///
/// The loop says which tiles it wants, most wanted first; the list replaces the previous one.
/// When tiles have arrived, `fileDescriptor` is readable and the loop takes them.
public protocol TileFetching: AnyObject {
    /// When the loop must call `expire(now:)` next, if ever (an app's answer falls due).
    var nextDeadline: Instant? { get }
    /// Gives up what is overdue at `now`.
    func expire(now: Instant)
    /// Readable while arrivals wait to be taken.
    var fileDescriptor: Descriptor { get }
    /// Tiles wanted or being made.
    var pendingCount: Int { get }
    /// Replaces the wanted tiles, most wanted first.
    func want(_ keys: [TileKey])
    /// What arrived since the last call; clears `fileDescriptor`'s readiness.
    func takeArrivals() -> [TileArrival]
    /// Stops making tiles (the content is going away).
    func stop()
}

extension TileFetching {
    public var nextDeadline: Instant? { nil }
    public func expire(now: Instant) {}
}

/// A tile made, or why it could not be.
public struct TileArrival {
    /// Which tile.
    public var key: TileKey
    /// Its pixels, or the error naming its file.
    public var result: Result<PixelBuffer, ContentError>
    /// When it was asked of an app (for the request → presented latency), if it was.
    public var requestedAt: Instant?

    /// Creates an arrival.
    public init(key: TileKey, result: Result<PixelBuffer, ContentError>, requestedAt: Instant? = nil) {
        self.key = key
        self.result = result
        self.requestedAt = requestedAt
    }
}
