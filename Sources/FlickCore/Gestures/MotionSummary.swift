/// Watches one motion of the content, from its first delegate message to the one that leaves it
/// at rest, and says afterwards what the journal should know of it that no single message
/// says: that it bounced off an edge (and how far past it went), and that paging moved it to
/// another page.
///
/// A motion is everything between leaving rest and coming back to it: a drag and its momentum,
/// a rubber band and its bounce back, an animated scroll.
struct MotionSummary: Sendable {
    /// Whether the content has left rest.
    private var moving = false
    /// The page in view when the motion began.
    private var startPage = 0
    /// The furthest the offset went past the content's edges during the motion, per axis,
    /// signed (negative: past the top or left edge).
    private var peak = Vector(dx: 0, dy: 0)

    /// Overscroll below this (px) is rounding, not a bounce anyone saw.
    static let visibleOverscroll = 0.5

    /// Takes the delegate messages the view just sent, with the view after them.
    /// - Returns: the gestures the motion amounted to, if it just came to rest.
    mutating func observe(_ events: [ScrollEvent], view: ScrollView) -> [Gesture] {
        guard !events.isEmpty else { return [] }
        if !moving {
            moving = true
            startPage = Self.page(of: view)
            peak = Vector(dx: 0, dy: 0)
        }
        if !view.isZooming {
            let past = view.contentOffset - view.clampedOffset(view.contentOffset)
            if abs(past.dx) > abs(peak.dx) { peak.dx = past.dx }
            if abs(past.dy) > abs(peak.dy) { peak.dy = past.dy }
        }
        guard !view.isTracking, !view.isAnimating else { return [] }
        moving = false
        var gestures: [Gesture] = []
        if let edge = Self.edge(of: peak) {
            gestures.append(.bounce(edge: edge, distance: max(abs(peak.dx), abs(peak.dy))))
        }
        let page = Self.page(of: view)
        if view.isPagingEnabled, page != startPage {
            gestures.append(.pageChange(from: startPage, to: page))
        }
        return gestures
    }

    /// The edge the furthest overscroll went past, if it was visible.
    static func edge(of peak: Vector) -> Edge? {
        let horizontal = abs(peak.dx), vertical = abs(peak.dy)
        guard max(horizontal, vertical) >= visibleOverscroll else { return nil }
        if vertical >= horizontal { return peak.dy < 0 ? .top : .bottom }
        return peak.dx < 0 ? .left : .right
    }

    /// The page nearest the offset, counted along the axis the content is longer on than the
    /// viewport (pages lie in one row or one column).
    static func page(of view: ScrollView) -> Int {
        let horizontal = view.contentSize.width > view.boundsSize.width
        let extent = horizontal ? view.boundsSize.width : view.boundsSize.height
        let offset = horizontal ? view.contentOffset.x : view.contentOffset.y
        guard extent > 0, offset.isFinite else { return 0 }
        // An offset can be any finite number (a client's set-offset): saturate, never trap.
        return Int(saturating: (offset / extent).rounded())
    }
}
