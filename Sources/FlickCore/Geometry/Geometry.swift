/// A position in a 2-D coordinate space, in pixels (screen or content, as the name using it says).
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// The horizontal coordinate; grows to the right.
    public var x: Double
    /// The vertical coordinate; grows downwards.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin, (0, 0).
    public static let zero = Point(x: 0, y: 0)

    /// Whether both coordinates are finite numbers.
    public var isFinite: Bool { x.isFinite && y.isFinite }

    /// The coordinate on `axis`.
    public subscript(axis: Axis) -> Double {
        get { axis == .horizontal ? x : y }
        set { if axis == .horizontal { x = newValue } else { y = newValue } }
    }

    /// Straight-line distance to `other`.
    public func distance(to other: Point) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    public var description: String { "(\(x.brief), \(y.brief))" }

    /// The point moved by `v`.
    public static func + (p: Point, v: Vector) -> Point { Point(x: p.x + v.dx, y: p.y + v.dy) }
    /// The point moved back by `v`.
    public static func - (p: Point, v: Vector) -> Point { Point(x: p.x - v.dx, y: p.y - v.dy) }
    /// The vector from `b` to `a`.
    public static func - (a: Point, b: Point) -> Vector { Vector(dx: a.x - b.x, dy: a.y - b.y) }
}

/// A displacement or a velocity (then in pixels per second).
public struct Vector: Hashable, Sendable, CustomStringConvertible {
    /// The horizontal component.
    public var dx: Double
    /// The vertical component.
    public var dy: Double

    /// Creates a vector.
    public init(dx: Double, dy: Double) {
        self.dx = dx
        self.dy = dy
    }

    /// No displacement.
    public static let zero = Vector(dx: 0, dy: 0)

    /// The Euclidean length.
    public var length: Double { (dx * dx + dy * dy).squareRoot() }

    /// Whether both components are finite numbers.
    public var isFinite: Bool { dx.isFinite && dy.isFinite }

    /// The component on `axis`.
    public subscript(axis: Axis) -> Double {
        get { axis == .horizontal ? dx : dy }
        set { if axis == .horizontal { dx = newValue } else { dy = newValue } }
    }

    public var description: String { "(\(dx.brief), \(dy.brief))" }

    /// Component-wise sum.
    public static func + (a: Vector, b: Vector) -> Vector { Vector(dx: a.dx + b.dx, dy: a.dy + b.dy) }
    /// Component-wise difference.
    public static func - (a: Vector, b: Vector) -> Vector { Vector(dx: a.dx - b.dx, dy: a.dy - b.dy) }
    /// Scaled by `k`.
    public static func * (a: Vector, k: Double) -> Vector { Vector(dx: a.dx * k, dy: a.dy * k) }
    /// Negated.
    public static prefix func - (a: Vector) -> Vector { Vector(dx: -a.dx, dy: -a.dy) }
}

/// A width and a height, in pixels.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    /// The horizontal extent.
    public var width: Double
    /// The vertical extent.
    public var height: Double

    /// Creates a size.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The empty size.
    public static let zero = Size(width: 0, height: 0)

    /// The extent on `axis`.
    public subscript(axis: Axis) -> Double {
        get { axis == .horizontal ? width : height }
        set { if axis == .horizontal { width = newValue } else { height = newValue } }
    }

    /// Whether both extents are finite and not negative.
    public var isValid: Bool { width.isFinite && height.isFinite && width >= 0 && height >= 0 }

    public var description: String { "\(width.brief)×\(height.brief)" }

    /// Both extents scaled by `k`.
    public static func * (s: Size, k: Double) -> Size { Size(width: s.width * k, height: s.height * k) }
}

/// An axis-aligned rectangle.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    /// The top-left corner.
    public var origin: Point
    /// The extent.
    public var size: Size

    /// Creates a rectangle from its top-left corner and size.
    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    /// Creates a rectangle from its top-left corner and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    /// The left edge.
    public var minX: Double { origin.x }
    /// The top edge.
    public var minY: Double { origin.y }
    /// The right edge.
    public var maxX: Double { origin.x + size.width }
    /// The bottom edge.
    public var maxY: Double { origin.y + size.height }
    /// The centre point.
    public var mid: Point { Point(x: origin.x + size.width / 2, y: origin.y + size.height / 2) }

    /// The lower edge on `axis` (left or top).
    public func min(_ axis: Axis) -> Double { origin[axis] }
    /// The upper edge on `axis` (right or bottom).
    public func max(_ axis: Axis) -> Double { origin[axis] + size[axis] }

    /// Whether `other` lies wholly inside this rectangle.
    public func contains(_ other: Rect) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// Whether the origin and size are finite and the size is not negative.
    public var isValid: Bool { origin.isFinite && size.isValid }

    public var description: String { "[\(origin) \(size)]" }
}

/// Insets from each edge of a rectangle, in pixels (UIKit's `UIEdgeInsets`).
public struct EdgeInsets: Hashable, Sendable {
    /// Inset from the top edge.
    public var top: Double
    /// Inset from the left edge.
    public var left: Double
    /// Inset from the bottom edge.
    public var bottom: Double
    /// Inset from the right edge.
    public var right: Double

    /// Creates insets.
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No insets.
    public static let zero = EdgeInsets()

    /// The inset at the lower edge of `axis` (left or top).
    public func leading(_ axis: Axis) -> Double { axis == .horizontal ? left : top }
    /// The inset at the upper edge of `axis` (right or bottom).
    public func trailing(_ axis: Axis) -> Double { axis == .horizontal ? right : bottom }

    /// Whether every inset is finite.
    public var isFinite: Bool { top.isFinite && left.isFinite && bottom.isFinite && right.isFinite }
}

/// One of the two scroll axes.
public enum Axis: CaseIterable, Sendable {
    case horizontal
    case vertical
}
