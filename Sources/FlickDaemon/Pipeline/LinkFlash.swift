import FlickCore
import FlickDisplay

/// The flash of a link tapped (`content.link_highlight`): its area, in content coordinates,
/// shaded over the content and fading out over `lifetime`, as a phone's browser marks the link
/// a finger chose. It moves with the content (the view may be on its way to the link's page).
/// Then nothing is left, and nothing asks for a frame: at rest it costs no wake-up.
struct LinkFlash {
    /// How long the flash takes to fade.
    static let lifetime: Duration = .milliseconds(300)
    /// Its opacity when it starts.
    static let opacity = 0.45

    /// The link flashing and when it was tapped; nil at rest, when a frame need not ask.
    private(set) var area: (rect: Rect, at: Instant)?

    /// Starts the flash of a link whose area is `rect`, tapped at `t`.
    mutating func flash(_ rect: Rect, at t: Instant) { area = (rect, t) }

    /// The shade of a frame shown at `t`, in view pixels, for a view at `offset` and `zoomScale`;
    /// forgets the flash once it has faded.
    mutating func marks(at t: Instant, offset: Point, zoomScale: Double) -> [LinkHighlight] {
        guard let area else { return [] }
        let age = (t - area.at).inSeconds
        guard age < Self.lifetime.inSeconds else {
            self.area = nil
            return []
        }
        let r = area.rect
        let rect = Rect(x: r.origin.x * zoomScale - offset.x, y: r.origin.y * zoomScale - offset.y,
                        width: r.size.width * zoomScale, height: r.size.height * zoomScale)
        return [LinkHighlight(rect: rect, opacity: Self.opacity * (1 - max(0, age) / Self.lifetime.inSeconds))]
    }

    /// When the shade changes next by itself after a frame at `t`: at once while it fades.
    func nextFrame(after t: Instant) -> Instant? { area.map { _ in t } }
}
