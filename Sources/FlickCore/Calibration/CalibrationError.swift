/// Why a calibration could not be made: too few targets, points that say nothing about one
/// axis, a touch that never came.
public enum CalibrationError: FlickError, Hashable, Sendable {
    /// A number of targets the layout does not offer (`--points`).
    case pointCount(Int, allowed: ClosedRange<Int>)
    /// Fewer points than an affine fit needs (three).
    case tooFewPoints(Int)
    /// The points lie on one line (or on one spot): the matrix is not determined across it.
    case collinear(count: Int)
    /// The touches and the targets do not pair up.
    case mismatched(touches: Int, targets: Int)
    /// A value that is not a finite number reached the fit.
    case notFinite
    /// No touch was accepted for a target in time.
    case timedOut(target: Int, of: Int, seconds: Double)
    /// The user stopped it (SIGINT, SIGTERM).
    case interrupted
    /// The recording ended before every target had its touch.
    case inputEnded(source: String, accepted: Int, of: Int)

    public var context: ErrorContext {
        switch self {
        case let .pointCount(n, allowed):
            ErrorContext(source: "calibrate", key: "--points", expected: "\(allowed.lowerBound) to \(allowed.upperBound) points",
                         found: "\(n)")
        case let .tooFewPoints(n):
            ErrorContext(source: "calibrate", reason: "an affine fit needs 3 points at least", found: "\(n)")
        case let .collinear(count):
            ErrorContext(source: "calibrate", reason: "the \(count) points lie on one line, so the matrix is not determined across it",
                         expected: "at least 3 points not on one line")
        case let .mismatched(touches, targets):
            ErrorContext(source: "calibrate", reason: "\(touches) touches for \(targets) targets")
        case .notFinite:
            ErrorContext(source: "calibrate", reason: "a touch position is not a finite number")
        case let .timedOut(target, count, seconds):
            ErrorContext(source: "calibrate", reason: "no touch on target \(target + 1)/\(count) within \(seconds.brief) s (--timeout)")
        case .interrupted:
            ErrorContext(source: "calibrate", reason: "interrupted: nothing written")
        case let .inputEnded(source, accepted, count):
            ErrorContext(source: source, reason: "the input ended after \(accepted) of \(count) targets were touched",
                         expected: "one tap per target")
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .pointCount: .usage
        case .tooFewPoints, .collinear, .mismatched, .notFinite, .inputEnded: .data
        case .timedOut, .interrupted: .unavailable
        }
    }
}
