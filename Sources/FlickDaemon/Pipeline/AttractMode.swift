import FlickCore

/// Attract mode: after `delay` with no touch and no command, the view animates back to its home
/// view (the start scale and home offset of `framing`, worked out for the content shown now), so
/// the next visitor finds the kiosk as it was set up. It asks for a wake-up only while the view
/// is away from home and at rest, so an idle kiosk at home has no timer armed.
public struct AttractMode: Hashable, Sendable {
    /// How long without a touch or command before the reset.
    public var delay: Duration
    /// Where home is, for any content.
    public var framing: ContentFraming

    /// Creates a reset to `framing`'s home view after `delay`.
    public init(delay: Duration, framing: ContentFraming) {
        self.delay = delay
        self.framing = framing
    }

    /// The home view of `view`, as its content and panel are now.
    public func home(of view: ScrollView) -> (offset: Point, zoomScale: Double) {
        framing.home(of: view)
    }

    /// Whether the view shows its home view (to a tenth of a pixel).
    public func isHome(_ view: ScrollView) -> Bool {
        let home = home(of: view)
        return abs(view.zoomScale - home.zoomScale) < 1e-6 && view.contentOffset.distance(to: home.offset) < 0.1
    }

    /// When the reset is due, if it is: never while a finger is down, while the view moves, or
    /// when it is home already.
    public func deadline(lastActivity: Instant, view: ScrollView, touching: Bool) -> Instant? {
        guard !touching, !view.isTracking, !view.isAnimating, !isHome(view) else { return nil }
        return lastActivity + delay
    }
}
