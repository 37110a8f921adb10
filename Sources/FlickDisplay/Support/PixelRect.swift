/// An integer rectangle by its edges, `x0 ≤ x < x1`, `y0 ≤ y < y1`.
public struct PixelRect: Hashable, Sendable {
    /// The left edge.
    public var x0: Int
    /// The top edge.
    public var y0: Int
    /// One past the right edge.
    public var x1: Int
    /// One past the bottom edge.
    public var y1: Int

    /// Creates a rectangle from its edges.
    public init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.x0 = x0
        self.y0 = y0
        self.x1 = x1
        self.y1 = y1
    }

    /// Whether it holds no pixel.
    public var isEmpty: Bool { x1 <= x0 || y1 <= y0 }
    /// Columns.
    public var width: Int { x1 - x0 }
    /// Rows.
    public var height: Int { y1 - y0 }

    /// Whether pixel (`x`, `y`) lies inside.
    public func contains(x: Int, y: Int) -> Bool { x >= x0 && x < x1 && y >= y0 && y < y1 }

    /// The overlap of two rectangles (possibly empty).
    public func intersection(_ o: PixelRect) -> PixelRect {
        PixelRect(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
    }

    /// The smallest rectangle holding both.
    public func union(_ o: PixelRect) -> PixelRect {
        PixelRect(x0: min(x0, o.x0), y0: min(y0, o.y0), x1: max(x1, o.x1), y1: max(y1, o.y1))
    }

    /// The up to four bands of `self` outside `hole` (top, bottom, left, right).
    public func subtracting(_ hole: PixelRect) -> [PixelRect] {
        let h = hole.intersection(self)
        if h.isEmpty { return [self] }
        return [PixelRect(x0: x0, y0: y0, x1: x1, y1: h.y0), PixelRect(x0: x0, y0: h.y1, x1: x1, y1: y1),
                PixelRect(x0: x0, y0: h.y0, x1: h.x0, y1: h.y1), PixelRect(x0: h.x1, y0: h.y0, x1: x1, y1: h.y1)]
            .filter { !$0.isEmpty }
    }
}
