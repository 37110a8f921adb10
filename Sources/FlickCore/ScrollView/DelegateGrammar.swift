/// Checks a stream of delegate messages against the grammar documented on `ScrollEvent`, one
/// message at a time, so a long run (a gesture storm, a soak) can check every message without
/// keeping them.
public struct DelegateGrammar: Sendable {
    private var dragging = false
    private var decelerating = false
    private var zooming = false
    private var owesDeceleration = false
    /// Messages accepted so far.
    public private(set) var count = 0

    /// An empty stream.
    public init() {}

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
            owesDeceleration = false
        case .didEndDecelerating:
            if !decelerating { return "\(i): didEndDecelerating without willBeginDecelerating" }
            decelerating = false
        case .willBeginZooming:
            if zooming { return "\(i): nested willBeginZooming" }
            zooming = true
        case .didEndZooming:
            if !zooming { return "\(i): didEndZooming without willBeginZooming" }
            zooming = false
        case .didScroll, .didZoom, .didEndScrollingAnimation, .didScrollToTop:
            break
        }
        return nil
    }

    /// Whether every begin so far has had its end.
    public var isClosed: Bool { !dragging && !decelerating && !zooming && !owesDeceleration }
}
