/// How a kiosk frames its content, worked out again whenever the content or the panel changes:
/// zoom limits that may follow the content (`"fit"`: a map shown whole), the view it starts at
/// and attract mode returns to (the home view), and whether content smaller than the panel is
/// centred (`ScrollView.centersContent`). A kiosk has no app to do what a UIKit app does in
/// `scrollViewDidZoom` (docs/ARCHITECTURE.md, "Differences from UIKit").
public struct ContentFraming: Hashable, Sendable {
    /// Where the home view puts the content at the start scale.
    public enum HomeOffset: Hashable, Sendable {
        /// The content's top-left corner (centred in an axis where it is smaller than the panel).
        case topLeft
        /// The content's middle at the panel's middle.
        case center
        /// This offset, in screen pixels at the start scale (clamped into the bounds).
        case offset(Point)
    }

    /// The smallest zoom a pinch settles at; a `fit` or `fill` above `maximumScale` is held to
    /// it (Apple's PhotoScroller: a small image is not forced to zoom in). nil: 1, or the start
    /// scale where that is smaller, so content that starts fitted (a map shown whole) is never
    /// held above where it starts, as UIKit's minimum of 1 would hold a map far bigger than the
    /// panel at its top-left corner.
    public var minimumScale: ScaleSetting? = nil
    /// The largest zoom a pinch settles at.
    public var maximumScale: Double = 4
    /// The zoom of the home view (within the limits).
    public var startScale: ScaleSetting = 1
    /// Where the home view is at that zoom.
    public var homeOffset: HomeOffset = .topLeft
    /// Whether content smaller than the panel in an axis is centred in it.
    public var centersContent = true

    /// Framing with the defaults above.
    public init() {}

    /// The minimum scale for `view`'s content and viewport.
    public func minimumZoomScale(for view: ScrollView) -> Double {
        guard let minimumScale else { return Swift.min(1, view.zoomScale(for: startScale), maximumScale) }
        guard minimumScale.number == nil else { return view.zoomScale(for: minimumScale) }
        return Swift.min(view.zoomScale(for: minimumScale), maximumScale)
    }

    /// Sets `view`'s zoom limits and centring for its content and viewport as they are now.
    /// - Throws: `ScrollViewError` for limits the model refuses (a number above the maximum).
    public func apply(to view: inout ScrollView) throws(ScrollViewError) {
        view.centersContent = centersContent
        try view.setZoomScaleLimits(minimum: minimumZoomScale(for: view), maximum: maximumScale)
    }

    /// The home view of `view` as its content, viewport and limits are now.
    public func home(of view: ScrollView) -> (offset: Point, zoomScale: Double) {
        let scale = Swift.min(Swift.max(view.zoomScale(for: startScale), view.minimumZoomScale), view.maximumZoomScale)
        var at = view
        at.zoomScale = scale
        let offset: Point
        switch homeOffset {
        case .topLeft:
            offset = Point(x: at.minimumOffset(.horizontal), y: at.minimumOffset(.vertical))
        case .center:
            offset = Point(x: (at.contentSize.width - at.boundsSize.width) / 2,
                           y: (at.contentSize.height - at.boundsSize.height) / 2)
        case let .offset(p):
            offset = p
        }
        return (at.clampedOffset(offset), scale)
    }
}
