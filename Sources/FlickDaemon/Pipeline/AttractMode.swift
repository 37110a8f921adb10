import FlickCore

/// Attract mode: after `delay` with no touch and no command, the view animates back to its home
/// position (offset and zoom), so the next visitor finds the kiosk as it was set up. It asks for
/// a wake-up only while the view is away from home and at rest, so an idle kiosk at home has no
/// timer armed.
public struct AttractMode: Hashable, Sendable {
    /// How long without a touch or command before the reset.
    public var delay: Duration
    /// Where the view goes back to.
    public var offset: Point
    /// The zoom it goes back to.
    public var zoomScale: Double

    /// Creates a reset to `offset` at `zoomScale` after `delay`.
    public init(delay: Duration, offset: Point, zoomScale: Double) {
        self.delay = delay
        self.offset = offset
        self.zoomScale = zoomScale
    }

    /// The home position of a view: its top-left (insets included) at zoom 1, or the nearest
    /// scale its limits allow.
    public static func home(of view: ScrollView) -> (offset: Point, zoomScale: Double) {
        (Point(x: view.minimumOffset(.horizontal), y: view.minimumOffset(.vertical)),
         Swift.min(Swift.max(1, view.minimumZoomScale), view.maximumZoomScale))
    }

    /// Whether the view shows its home position (to a tenth of a pixel).
    public func isHome(_ view: ScrollView) -> Bool {
        abs(view.zoomScale - zoomScale) < 1e-6 && view.contentOffset.distance(to: offset) < 0.1
    }

    /// When the reset is due, if it is: never while a finger is down, while the view moves, or
    /// when it is home already.
    public func deadline(lastActivity: Instant, view: ScrollView, touching: Bool) -> Instant? {
        guard !touching, !view.isTracking, !view.isAnimating, !isHome(view) else { return nil }
        return lastActivity + delay
    }
}
