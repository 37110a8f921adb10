/// A value the scroll view model refuses, with what was wrong and what is expected.
public enum ScrollViewError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A size that is negative, NaN or infinite.
    case invalidSize(name: String, value: Size)
    /// A point or offset with a NaN or infinite coordinate.
    case invalidPoint(name: String, value: Point)
    /// A rectangle that is not finite or has a negative size.
    case invalidRect(name: String, value: Rect)
    /// Insets with a NaN or infinite edge.
    case invalidInsets(EdgeInsets)
    /// A zoom scale that is not a finite positive number.
    case invalidZoomScale(name: String, value: Double)
    /// A zoom limit outside the range a scroll view takes.
    case invalidZoomLimit(name: String, value: Double)
    /// `minimumZoomScale` greater than `maximumZoomScale`.
    case invalidZoomRange(minimum: Double, maximum: Double)
    /// A deceleration rate outside (0, 1).
    case invalidDecelerationRate(Double)
    /// A physics tunable outside its valid range.
    case invalidTunable(name: String, value: Double, expected: String)

    public var description: String {
        switch self {
        case let .invalidSize(name, value):
            "\(name) \(value) is invalid: expected finite, non-negative width and height"
        case let .invalidPoint(name, value):
            "\(name) \(value) is invalid: expected finite coordinates"
        case let .invalidRect(name, value):
            "\(name) \(value) is invalid: expected a finite origin and a non-negative size"
        case let .invalidInsets(value):
            "content inset \(value) is invalid: expected finite edges"
        case let .invalidZoomScale(name, value):
            "\(name) \(value) is invalid: expected a finite number greater than 0"
        case let .invalidZoomLimit(name, value):
            "\(name) \(value) is invalid: expected a scale \(ScrollView.zoomScaleLimitText)"
        case let .invalidZoomRange(minimum, maximum):
            "minimum zoom scale \(minimum) is greater than maximum zoom scale \(maximum)"
        case let .invalidDecelerationRate(value):
            "deceleration rate \(value) is invalid: expected normal, fast or a number between 0 and 1 (exclusive)"
        case let .invalidTunable(name, value, expected):
            "\(name) \(value) is invalid: expected \(expected)"
        }
    }
}
