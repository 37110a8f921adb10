/// Zooming about a focal point, and the resistance past the zoom limits.
enum ZoomMath {
    /// The offset that keeps the content under `focus` (a point in the view) in place when the
    /// scale changes from `oldScale` to `newScale`. Content point p shows at p·scale − offset.
    static func offset(_ offset: Point, anchoredAt focus: Point, from oldScale: Double, to newScale: Double) -> Point {
        let k = newScale / oldScale
        return Point(x: (offset.x + focus.x) * k - focus.x, y: (offset.y + focus.y) * k - focus.y)
    }

    /// The displayed scale for a finger-driven `raw` scale: unchanged within the limits, past
    /// them with the rubber band's resistance (at most 2× the maximum, half the minimum).
    static func band(_ raw: Double, minimum: Double, maximum: Double, rubberBand: RubberBand) -> Double {
        if raw > maximum { return maximum * (1 + rubberBand.displayed(raw / maximum - 1, dimension: 1)) }
        if raw < minimum { return minimum / (1 + rubberBand.displayed(minimum / raw - 1, dimension: 1)) }
        return raw
    }

    /// The inverse of `band`.
    static func unband(_ shown: Double, minimum: Double, maximum: Double, rubberBand: RubberBand) -> Double {
        if shown > maximum { return maximum * (1 + rubberBand.raw(shown / maximum - 1, dimension: 1)) }
        if shown < minimum { return minimum / (1 + rubberBand.raw(minimum / shown - 1, dimension: 1)) }
        return shown
    }
}
