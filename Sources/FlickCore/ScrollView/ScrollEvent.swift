/// The delegate messages of the scroll view (UIScrollViewDelegate), in the order they happen.
///
/// The grammar, which the tests check on every stream:
/// - `willBeginDragging` … `willEndDragging` `didEndDragging(willDecelerate:)`, never nested;
/// - `willBeginDecelerating` … `didEndDecelerating`, only after `didEndDragging(willDecelerate:
///   true)` or when a touch that stopped content out of bounds lifts and it bounces back, and
///   with at least one `didScroll` between them (a lift that moves nothing does not decelerate);
/// - `willBeginZooming` … `didEndZooming(atScale:)`, never nested;
/// - an animation (programmatic scroll or zoom) ends in `didEndScrollingAnimation`, a scroll to
///   top in `didScrollToTop`;
/// - `didScroll` / `didZoom` whenever the offset / scale changed, at most once per input or step,
///   and never a `didScroll` that repeats the offset and scale of the one before;
/// - a zoom bounce after a pinch past the limits is the lift's deceleration:
///   `didEndDragging(willDecelerate: true)`, `willBeginDecelerating`, `didZoom`/`didScroll` …,
///   `didEndZooming(atScale:)`, `didEndDecelerating`.
///
/// Each message is reported with the time and the state (`ScrollState`) at which it was sent,
/// and a `state` report comes with each change of a flag; `DelegateGrammar` checks that too.
///
/// Deliberate differences from UIKit: a touch that stops a deceleration sends
/// `didEndDecelerating` (UIKit sends nothing), so every begin has its end; the zoom bounce is a
/// deceleration (UIKit sends its `didZoom`s after a lift that announced rest).
public enum ScrollEvent: Hashable, Sendable, CustomStringConvertible {
    /// The content offset changed.
    case didScroll
    /// A drag is about to move the content.
    case willBeginDragging
    /// The finger is lifting: offset `velocity` (px/s, positive when the offset grows) and the
    /// offset where the content will come to rest.
    case willEndDragging(velocity: Vector, targetContentOffset: Point)
    /// The drag ended; `willDecelerate` says whether the content keeps moving.
    case didEndDragging(willDecelerate: Bool)
    /// Momentum (or a bounce back) starts.
    case willBeginDecelerating
    /// Momentum ended; the content is at rest.
    case didEndDecelerating
    /// A zoom starts.
    case willBeginZooming
    /// The zoom scale changed.
    case didZoom
    /// A zoom ended at `scale` (after any zoom bounce).
    case didEndZooming(atScale: Double)
    /// An animated programmatic scroll or zoom finished.
    case didEndScrollingAnimation
    /// A scroll to top finished.
    case didScrollToTop

    /// The event's name as the delegate method's, used in logs and on the control socket.
    public var name: String {
        switch self {
        case .didScroll: "didScroll"
        case .willBeginDragging: "willBeginDragging"
        case .willEndDragging: "willEndDragging"
        case .didEndDragging: "didEndDragging"
        case .willBeginDecelerating: "willBeginDecelerating"
        case .didEndDecelerating: "didEndDecelerating"
        case .willBeginZooming: "willBeginZooming"
        case .didZoom: "didZoom"
        case .didEndZooming: "didEndZooming"
        case .didEndScrollingAnimation: "didEndScrollingAnimation"
        case .didScrollToTop: "didScrollToTop"
        }
    }

    public var description: String {
        switch self {
        case let .willEndDragging(v, target): "willEndDragging(velocity: \(v), target: \(target))"
        case let .didEndDragging(d): "didEndDragging(willDecelerate: \(d))"
        case let .didEndZooming(s): "didEndZooming(atScale: \(s))"
        default: name
        }
    }
}
