import FlickCore

extension ScrollEvent {
    /// Whether the view is at rest after this event: the end of a motion, or a jump (a
    /// non-animated offset or zoom sends only `didScroll`/`didZoom`), so the state is worth saving.
    func leavesAtRest(_ view: ScrollView) -> Bool {
        switch self {
        case .didEndDecelerating, .didEndScrollingAnimation, .didEndZooming, .didScrollToTop: true
        case .didEndDragging(let willDecelerate): !willDecelerate
        case .didScroll, .didZoom: !view.isTracking && !view.isAnimating
        case .willBeginDragging, .willEndDragging, .willBeginDecelerating, .willBeginZooming: false
        }
    }
}
