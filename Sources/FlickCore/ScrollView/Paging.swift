/// Which page a drag ends on (after AndroidX ViewPager and Flutter):
/// the next page if the release is faster than `pagingVelocityThreshold` towards it, or if more
/// than `pagingDistanceThreshold` of a page was dragged; never more than one page from where
/// the drag began.
struct Paging {
    /// The page size on the axis: the viewport's extent.
    var pageSize: Double

    /// The page index nearest `offset`.
    func page(of offset: Double) -> Double {
        (offset / pageSize).rounded()
    }

    /// The offset at which the content should rest.
    /// - Parameters:
    ///   - offset: the offset at release.
    ///   - velocity: offset velocity at release, px/s (positive towards later pages).
    ///   - dragStart: the offset when the drag began.
    ///   - lower, upper: the offset bounds; the last page may be shorter than a full page.
    func target(offset: Double, velocity: Double, dragStart: Double, lower: Double, upper: Double,
                physics: ScrollPhysics) -> Double {
        guard pageSize > 0 else { return Swift.min(Swift.max(offset, lower), upper) }
        let position = offset / pageSize
        let threshold = physics.pagingDistanceThreshold
        var target: Double
        if velocity > physics.pagingVelocityThreshold {
            target = position.rounded(.down) + 1
        } else if velocity < -physics.pagingVelocityThreshold {
            target = position.rounded(.up) - 1
        } else {
            // The distance rule, measured from the page below: past `threshold` → next page.
            let below = position.rounded(.down)
            target = position - below > threshold ? below + 1 : below
        }
        let origin = page(of: dragStart)
        target = Swift.min(Swift.max(target, origin - 1), origin + 1)
        return Swift.min(Swift.max(target * pageSize, lower), upper)
    }

    /// Whether `offset` is at rest on a page boundary (or an end of the content).
    func isOnPage(_ offset: Double, lower: Double, upper: Double) -> Bool {
        guard pageSize > 0 else { return true }
        let nearest = Swift.min(Swift.max(page(of: offset) * pageSize, lower), upper)
        return abs(offset - nearest) < 0.01
    }
}
