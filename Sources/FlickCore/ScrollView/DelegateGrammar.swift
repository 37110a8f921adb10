/// Checks a stream of delegate messages against the grammar documented on `ScrollEvent`, one
/// message at a time, so a long run (a gesture storm, a soak) can check every message without
/// keeping them.
///
/// Fed the stamped stream (`accept(_:at:state:)`, `acceptState(_:at:)`, `acceptOther(at:)`: what
/// the control socket and `flickd replay --json` send), it also checks what an app relies on
/// beyond the order of the messages:
/// - time never goes back;
/// - no `didScroll` repeats the offset and scale of the one before (a duplicate);
/// - no `didScroll`/`didZoom` of a motion of the view's own (momentum, a bounce of the offset or
///   the zoom: `decelerating` or `zoomBouncing`) comes outside `willBeginDecelerating` …
///   `didEndDecelerating`, i.e. after a lift or a deceleration announced rest;
/// - every message's flags are the last `state` event's (a flag changed without one), each
///   `state` changes something, and the flags agree with the messages: `dragging` from
///   `willBeginDragging`, `decelerating` from `willBeginDecelerating`, and not at
///   `didEndDecelerating`.
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
    /// The stamped stream's clock: the last time seen.
    private var lastTime: Instant?
    /// The offset and scale of the last `didScroll`.
    private var lastScroll: (offset: Point, scale: Double)?
    /// The flags of the last `state` event (none before the first: a view starts at rest).
    private var announced: ScrollFlags = []
    /// The message that last announced rest, for the report of what moved after it.
    private var rest: String?

    /// An empty stream.
    /// - Parameter allowingInstantStops: accept a deceleration that ends with no `didScroll`
    ///   since it began. Only a touch (or a stop) stamped with the very time of the lift can end
    ///   one so, which only synthetic streams do (storms that repeat timestamps); anywhere else
    ///   it is a lift that should not have decelerated (a flick into an edge with
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

    /// Takes the next message of a stamped stream: the message, its time and the view's state
    /// when it was sent.
    /// - Returns: what is wrong with it at this point of the stream, or nil.
    public mutating func accept(_ e: ScrollEvent, at t: Instant, state: ScrollState) -> String? {
        if let wrong = stampProblem(e, at: t, state: state) {
            count += 1
            return wrong
        }
        let wrong = accept(e)
        if case let .didEndDragging(willDecelerate) = e, !willDecelerate { rest = "\(e)" }
        if e == .didEndDecelerating { rest = "\(e)" }
        return wrong
    }

    /// What is wrong with a message's time and state, if anything (its order is `accept`'s).
    private mutating func stampProblem(_ e: ScrollEvent, at t: Instant, state: ScrollState) -> String? {
        let i = count
        if let wrong = clock(t, i, "\(e)") { return wrong }
        if state.flags != announced { return "\(i): \(e) with flags \(state.flags) but the last state event said \(announced)" }
        switch e {
        case .didScroll:
            if let last = lastScroll, last.offset == state.contentOffset, last.scale == state.zoomScale {
                return "\(i): duplicate didScroll at \(state.contentOffset) × \(state.zoomScale.brief)"
            }
            lastScroll = (state.contentOffset, state.zoomScale)
        case .willBeginDragging:
            if !state.flags.contains(.dragging) { return "\(i): willBeginDragging while not dragging" }
        case .willBeginDecelerating:
            if !state.flags.contains(.decelerating) { return "\(i): willBeginDecelerating while not decelerating" }
        case .didEndDecelerating:
            if state.flags.contains(.decelerating) { return "\(i): didEndDecelerating while still decelerating" }
        case .willEndDragging, .didEndDragging, .willBeginZooming, .didZoom, .didEndZooming, .didEndScrollingAnimation,
             .didScrollToTop:
            break
        }
        // Momentum and bounces move the view inside a deceleration only: after a lift or a
        // deceleration that announced rest, they need a willBeginDecelerating first.
        if e == .didScroll || e == .didZoom, !decelerating, !state.flags.isDisjoint(with: [.decelerating, .zoomBouncing]) {
            return "\(i): \(e) of a motion of the view's own after \(rest ?? "the start") announced rest, with no willBeginDecelerating"
        }
        return nil
    }

    /// Takes a `state` event of a stamped stream.
    /// - Returns: what is wrong with it, or nil.
    public mutating func acceptState(_ state: ScrollState, at t: Instant) -> String? {
        defer { count += 1 }
        let i = count
        if let wrong = clock(t, i, "state") { return wrong }
        if state.flags == announced { return "\(i): state event with no change (\(state.flags))" }
        announced = state.flags
        return nil
    }

    /// Takes any other line of a stamped stream (a content touch, a gesture): only its time.
    /// - Returns: what is wrong with it, or nil.
    public mutating func acceptOther(at t: Instant) -> String? {
        defer { count += 1 }
        return clock(t, count, "event")
    }

    private mutating func clock(_ t: Instant, _ i: Int, _ what: String) -> String? {
        if let last = lastTime, t < last {
            return "\(i): \(what) at \(t.seconds) s, before the one before (\(last.seconds) s): time went back"
        }
        lastTime = t
        return nil
    }

    /// Whether every begin so far has had its end.
    public var isClosed: Bool { !dragging && !decelerating && !zooming && !owesDeceleration }
}
