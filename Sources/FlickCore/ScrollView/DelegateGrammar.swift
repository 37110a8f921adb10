/// Checks a stream of delegate messages against the grammar documented on `ScrollEvent`, one
/// message at a time, so a long run (a gesture storm, a soak) can check every message without
/// keeping them.
public struct DelegateGrammar: Sendable {
    private var dragging = false
    private var decelerating = false
    private var zooming = false
    private var owesDeceleration = false
    /// A deceleration began and has not moved the content yet.
    private var decelerationStill = false
    /// Whether a deceleration may end before it moved (see `init`).
    private let allowsInstantStops: Bool
    /// Messages accepted so far.
    public private(set) var count = 0

    /// An empty stream.
    /// - Parameter allowingInstantStops: accept a deceleration that ends with no `didScroll`
    ///   since it began. Only a touch (or a stop) stamped with the very time of the lift can end
    ///   one so, which only synthetic streams do (storms that repeat timestamps); anywhere else
    ///   it is a lift that should not have decelerated (issue 21: a flick into an edge with
    ///   `bounces` off).
    public init(allowingInstantStops: Bool = false) {
        allowsInstantStops = allowingInstantStops
    }

    /// Takes the next message.
    /// - Returns: what is wrong with it at this point of the stream, or nil.
    public mutating func accept(_ e: ScrollEvent) -> String? {
        defer { count += 1 }
        let i = count
        if owesDeceleration, e != .didScroll, e != .didZoom, e != .willBeginDecelerating {
            return "\(i): didEndDragging(willDecelerate: true) not followed by willBeginDecelerating but \(e)"
        }
        switch e {
        case .willBeginDragging:
            if dragging { return "\(i): nested willBeginDragging" }
            if decelerating { return "\(i): drag began while decelerating" }
            dragging = true
        case .willEndDragging:
            if !dragging { return "\(i): willEndDragging outside a drag" }
        case let .didEndDragging(willDecelerate):
            if !dragging { return "\(i): didEndDragging outside a drag" }
            dragging = false
            owesDeceleration = willDecelerate
        case .willBeginDecelerating:
            if decelerating || dragging { return "\(i): willBeginDecelerating while dragging or decelerating" }
            decelerating = true
            decelerationStill = true
            owesDeceleration = false
        case .didEndDecelerating:
            if !decelerating { return "\(i): didEndDecelerating without willBeginDecelerating" }
            decelerating = false
            // A deceleration that never moved should not have begun: a lift that leaves the
            // content where it is ends with didEndDragging(willDecelerate: false).
            if decelerationStill && !allowsInstantStops { return "\(i): didEndDecelerating with no didScroll since willBeginDecelerating" }
        case .willBeginZooming:
            if zooming { return "\(i): nested willBeginZooming" }
            zooming = true
        case .didEndZooming:
            if !zooming { return "\(i): didEndZooming without willBeginZooming" }
            zooming = false
        case .didScroll:
            decelerationStill = false
        case .didZoom, .didEndScrollingAnimation, .didScrollToTop:
            break
        }
        return nil
    }

    /// Whether every begin so far has had its end.
    public var isClosed: Bool { !dragging && !decelerating && !zooming && !owesDeceleration }
}
