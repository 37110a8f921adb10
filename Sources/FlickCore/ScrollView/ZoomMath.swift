/// Zooming about a focal point, and the resistance past the zoom limits.
enum ZoomMath {
    /// The offset that keeps the content under `focus` (a point in the view) in place when the
    /// scale changes from `oldScale` to `newScale`. Content point p shows at p·scale − offset.
    static func offset(_ offset: Point, anchoredAt focus: Point, from oldScale: Double, to newScale: Double) -> Point {
        let k = newScale / oldScale
        return Point(x: (offset.x + focus.x) * k - focus.x, y: (offset.y + focus.y) * k - focus.y)
    }

    /// The view point that stays put on the way from (`fromOffset`, `fromScale`) to (`toOffset`,
    /// `toScale`): the content under it is under it at both ends. Nil when the scale does not
    /// change (a pure scroll has none).
    static func fixedPoint(from fromOffset: Point, _ fromScale: Double, to toOffset: Point, _ toScale: Double) -> Point? {
        guard abs(toScale / fromScale - 1) > 1e-9 else { return nil }
        // Content point c shows at c·s − o at both ends: c = Δo / Δs, at c·s₀ − o₀.
        let d = toScale - fromScale
        let c = Point(x: (toOffset.x - fromOffset.x) / d, y: (toOffset.y - fromOffset.y) / d)
        return Point(x: c.x * fromScale - fromOffset.x, y: c.y * fromScale - fromOffset.y)
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
