import FlickCore

extension ScrollView {
    /// Moves the view, without animating, to where it was saved: the zoom, then the offset
    /// clamped to the content (it may have changed size since). A position the model refuses
    /// leaves the view where it is.
    mutating func restore(offset: Point, zoomScale: Double, at t: Instant) {
        try? setZoomScale(zoomScale, animated: false, at: t)
        try? setContentOffset(clampedOffset(offset), animated: false, at: t)
    }
}
