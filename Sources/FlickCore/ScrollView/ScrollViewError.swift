/// A value the scroll view model refuses, with what was wrong and what is expected.
public enum ScrollViewError: FlickError, Equatable, Sendable {
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

    public var context: ErrorContext {
        switch self {
        case let .invalidSize(name, value):
            ErrorContext(key: name, expected: "finite, non-negative width and height", found: "\(value)")
        case let .invalidPoint(name, value):
            ErrorContext(key: name, expected: "finite coordinates", found: "\(value)")
        case let .invalidRect(name, value):
            ErrorContext(key: name, expected: "a finite origin and a non-negative size", found: "\(value)")
        case let .invalidInsets(value):
            ErrorContext(key: "content inset", expected: "finite edges", found: "\(value)")
        case let .invalidZoomScale(name, value):
            ErrorContext(key: name, expected: "a finite number greater than 0", found: value.brief)
        case let .invalidZoomLimit(name, value):
            ErrorContext(key: name, expected: "a scale \(ScrollView.zoomScaleLimitText)", found: value.brief)
        case let .invalidZoomRange(minimum, maximum):
            ErrorContext(key: "minimum zoom scale", expected: "at most the maximum zoom scale (\(maximum.brief))", found: minimum.brief)
        case let .invalidDecelerationRate(value):
            ErrorContext(key: "deceleration rate", expected: "normal, fast or a number between 0 and 1 (exclusive)", found: value.brief)
        case let .invalidTunable(name, value, expected):
            ErrorContext(key: name, expected: expected, found: value.brief)
        }
    }
}
