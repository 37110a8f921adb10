import RealModule

/// How quickly momentum dies after a flick: the fraction of velocity kept per millisecond.
///
/// UIKit's two named rates are `normal` (0.998) and `fast` (0.99); any value strictly between
/// 0 and 1 is allowed. Velocity decays as v(t) = v₀·d^t_ms, so a flick at v₀ px/s comes to
/// rest v₀ / (1000·|ln d|) pixels further on (UIKit's closed form).
public struct DecelerationRate: Hashable, Sendable, CustomStringConvertible {
    /// The fraction of velocity kept per millisecond, in (0, 1).
    public let rawValue: Double

    /// UIKit's `UIScrollView.DecelerationRate.normal`: long, gliding flicks.
    public static let normal = DecelerationRate(unchecked: 0.998)
    /// UIKit's `UIScrollView.DecelerationRate.fast`: short flicks that stop quickly.
    public static let fast = DecelerationRate(unchecked: 0.99)

    private init(unchecked value: Double) {
        rawValue = value
    }

    /// Creates a rate from a per-millisecond factor.
    /// - Parameter value: the fraction of velocity kept per millisecond.
    /// - Throws: `ScrollViewError.invalidDecelerationRate` unless `0 < value < 1`.
    public init(_ value: Double) throws(ScrollViewError) {
        guard value.isFinite, value > 0, value < 1 else { throw .invalidDecelerationRate(value) }
        rawValue = value
    }

    /// Parses `normal`, `fast` or a number in (0, 1), as written in the config file.
    /// - Parameter text: the value as written.
    /// - Throws: `ScrollViewError.invalidDecelerationRate` for anything else.
    public init(parsing text: String) throws(ScrollViewError) {
        switch text {
        case "normal": self = .normal
        case "fast": self = .fast
        default:
            guard let value = Double(text) else { throw .invalidDecelerationRate(.nan) }
            try self.init(value)
        }
    }

    /// 1000·ln d: the decay constant per second (negative).
    var perSecondLog: Double { 1000 * Double.log(rawValue) }

    public var description: String {
        switch self {
        case .normal: "normal (0.998)"
        case .fast: "fast (0.99)"
        default: "\(rawValue)"
        }
    }
}
