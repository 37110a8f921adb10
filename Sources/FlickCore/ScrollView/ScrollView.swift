/// The UIScrollView model: content offset, size, inset and zoom, driven by touches and by
/// programmatic calls, moving with UIKit's physics and reporting UIKit's delegate messages.
///
/// It is pure and deterministic: it never reads a clock (every call takes the time), does no
/// I/O, and is a value. Drive it from the gesture layer (`touchDown`, `drag`, `beginZooming`,
/// `pinch`, `endZooming`, `release`), from the app (`setContentOffset`, `zoom(to:)`, …) and from
/// the frame presenter (`advance(to:)`, once per frame, while `isAnimating`). Read what happened,
/// in order, with `takeReports()`: the delegate messages, and the steps of its two machines
/// (`ScrollPhase`, `ZoomPhase`) when `tracing` is on.
///
/// Any input at time t first completes a motion that ended by t (the model is a function of
/// time: a touch after a flick came to rest does not stop it, however late the last frame was).
///
/// Coordinates follow UIKit: a content point p (in unscaled content pixels) shows at view point
/// p·zoomScale − contentOffset. Offsets are in scaled content pixels, i.e. screen pixels.
public struct ScrollView: Sendable {
    // MARK: Geometry

    /// The viewport's size in screen pixels.
    public private(set) var boundsSize: Size
    /// The content's size at zoom scale 1.
    public private(set) var unscaledContentSize: Size
    /// The content's size at the current zoom (UIKit's `contentSize` of a zooming scroll view).
    public var contentSize: Size { unscaledContentSize * zoomScale }
    /// Extra scrollable space around the content.
    public private(set) var contentInset: EdgeInsets = .zero
    /// The point of the (scaled) content at the viewport's top-left corner.
    public internal(set) var contentOffset: Point = .zero
    /// The current zoom.
    public internal(set) var zoomScale: Double = 1
    /// The smallest zoom a pinch settles at.
    public private(set) var minimumZoomScale: Double = 1
    /// The largest zoom a pinch settles at.
    public private(set) var maximumZoomScale: Double = 1

    // MARK: Behaviour (UIKit's names and defaults)

    /// Whether content can be dragged past its edges and bounces back.
    public var bounces = true
    /// Whether horizontal drags rubber-band even when the content is no wider than the view.
    public var alwaysBounceHorizontal = false
    /// Whether vertical drags rubber-band even when the content is no taller than the view.
    public var alwaysBounceVertical = false
    /// Whether a pinch can go past the zoom limits and bounce back.
    public var bouncesZoom = true
    /// Whether scrolling stops on multiples of the viewport size.
    public var isPagingEnabled = false
    /// Whether content smaller than the viewport in an axis (insets included) is centred in it,
    /// at every zoom and on every frame of a pinch, bounce or animation. UIKit pins it to the
    /// top-left and leaves centring to the app (the `scrollViewDidZoom` inset trick); a kiosk
    /// has no app. The centring offset is negative, and a legitimate offset: the smallest and
    /// the largest valid offsets of that axis are both it.
    public var centersContent = false
    /// Whether a drag that starts mostly along one axis stays on it.
    public var isDirectionalLockEnabled = false
    /// Whether touches scroll at all.
    public var isScrollEnabled = true
    /// Whether `scrollToTop` is honoured.
    public var scrollsToTop = true
    /// How quickly momentum dies.
    public var decelerationRate: DecelerationRate = .normal
    /// The physics tunables.
    public private(set) var physics = ScrollPhysics()

    // MARK: State machines

    /// Pan/motion state (see `ScrollPhase`).
    var phase: ScrollPhase = .idle
    /// Pinch state (see `ZoomPhase`).
    var zoomPhase: ZoomPhase = .idle
    /// The latest time the model has been told of; it never goes back.
    var now: Instant = .zero
    /// Indicators stay fully visible until this time, then fade.
    var indicatorsVisibleUntil: Instant?
    /// What happened since the last `takeReports()`, in order.
    var outbox: [Report] = []
    /// Whether the machines' steps go into the outbox (`flickd replay --trace`, debug logs).
    public var tracing = false
    /// The flags the last `state` report carried (none before the first: a new view is at rest).
    var reportedFlags: ScrollFlags = []
    /// The time of the step being taken when it is not `now`: a motion that ended before the
    /// input that completes it reports at its end.
    var reportTime: Instant?
    /// While a touch-down is handled, the speed below which its motion is not seen
    /// (`touchDown(at:unseenSpeed:)`); 0 otherwise.
    var stopSnapSpeed = 0.0

    /// What the scroll view reports, in the order it happened.
    public enum Report: Hashable, Sendable {
        /// A delegate message, with the time it happened on the model's clock (never earlier
        /// than the one before) and the view's state as it was sent.
        case event(ScrollEvent, at: Instant, state: ScrollState)
        /// A state property changed (see `ScrollState`): the state now.
        case state(ScrollState, at: Instant)
        /// A step of `ScrollPhase` or `ZoomPhase` (only while `tracing`).
        case transition(Transition)
        /// A call that made no sense in the current state (a bug upstream), ignored.
        case diagnostic(String)
    }

    // MARK: Creating

    /// Creates a scroll view.
    /// - Parameters:
    ///   - boundsSize: the viewport, in screen pixels.
    ///   - contentSize: the content at zoom 1.
    ///   - physics: tunables; the defaults are UIKit's.
    /// - Throws: `ScrollViewError` for a non-finite or negative size or a bad tunable.
    public init(boundsSize: Size, contentSize: Size, physics: ScrollPhysics = ScrollPhysics()) throws(ScrollViewError) {
        guard boundsSize.isValid else { throw .invalidSize(name: "bounds size", value: boundsSize) }
        guard contentSize.isValid else { throw .invalidSize(name: "content size", value: contentSize) }
        try physics.validate()
        self.boundsSize = boundsSize
        self.unscaledContentSize = contentSize
        self.physics = physics
    }

    // MARK: Validated setters

    /// Changes the viewport size (e.g. on a mode change). The offset is kept.
    /// - Throws: `ScrollViewError.invalidSize` for a non-finite or negative size.
    public mutating func setBoundsSize(_ size: Size) throws(ScrollViewError) {
        guard size.isValid else { throw .invalidSize(name: "bounds size", value: size) }
        boundsSize = size
    }

    /// Changes the content's size at zoom 1 (e.g. new content). The offset is kept.
    /// - Throws: `ScrollViewError.invalidSize` for a non-finite or negative size.
    public mutating func setContentSize(_ size: Size) throws(ScrollViewError) {
        guard size.isValid else { throw .invalidSize(name: "content size", value: size) }
        unscaledContentSize = size
    }

    /// Changes the content inset. Negative insets are allowed, as in UIKit.
    /// - Throws: `ScrollViewError.invalidInsets` for a non-finite edge.
    public mutating func setContentInset(_ inset: EdgeInsets) throws(ScrollViewError) {
        guard inset.isFinite else { throw .invalidInsets(inset) }
        contentInset = inset
    }

    /// The zoom limits a scroll view takes: a thousandth to a thousand. Past them a screen
    /// point's content coordinate (offset ÷ scale) stops being a number a client can be sent.
    public static let zoomScaleLimitRange = 0.001...1000.0
    /// `zoomScaleLimitRange` in words, for error messages.
    public static let zoomScaleLimitText = "from 0.001 to 1000"

    /// Sets the zoom limits; the current scale is clamped into them, as UIKit does.
    /// - Throws: `ScrollViewError` for a limit outside `zoomScaleLimitRange`, or minimum > maximum.
    public mutating func setZoomScaleLimits(minimum: Double, maximum: Double) throws(ScrollViewError) {
        guard Self.zoomScaleLimitRange.contains(minimum) else {
            throw .invalidZoomLimit(name: "minimum zoom scale", value: minimum)
        }
        guard Self.zoomScaleLimitRange.contains(maximum) else {
            throw .invalidZoomLimit(name: "maximum zoom scale", value: maximum)
        }
        guard minimum <= maximum else { throw .invalidZoomRange(minimum: minimum, maximum: maximum) }
        minimumZoomScale = minimum
        maximumZoomScale = maximum
        let clamped = Swift.min(Swift.max(zoomScale, minimum), maximum)
        if clamped != zoomScale { applyZoom(clamped, anchoredAt: Point(x: 0, y: 0)) }
    }

    /// Replaces the physics tunables.
    /// - Throws: `ScrollViewError.invalidTunable` for the first bad value.
    public mutating func setPhysics(_ physics: ScrollPhysics) throws(ScrollViewError) {
        try physics.validate()
        self.physics = physics
    }

    // MARK: States

    /// A finger is on the content (it may not have moved yet).
    public var isTracking: Bool {
        switch phase {
        case .tracking, .dragging: true
        case .idle, .decelerating, .animating: false
        }
    }

    /// The content is following a finger.
    public var isDragging: Bool {
        if case .dragging = phase { return true }
        return false
    }

    /// The content moves on its own after a lift: momentum, a bounce back or a page snap, and
    /// a zoom bouncing back inside its limits (UIKit: "the user isn't dragging but the scroll
    /// view is still moving"; the bounce sits between `willBeginDecelerating` and
    /// `didEndDecelerating`).
    public var isDecelerating: Bool {
        if case .decelerating = phase { return true }
        return isZoomBouncing
    }

    /// A zoom is in progress, from `willBeginZooming` to `didEndZooming`: a pinch (and its
    /// bounce) or an animated programmatic zoom.
    public var isZooming: Bool {
        switch zoomPhase {
        case .pinching, .awaitingBounce: true
        case .idle:
            if case let .animating(a) = phase { a.kind == .zoom || a.kind == .zoomBounce } else { false }
        }
    }

    /// The zoom is animating back inside its limits after a pinch went past them.
    public var isZoomBouncing: Bool {
        if case let .animating(a) = phase, a.kind == .zoomBounce { return true }
        return false
    }

    /// An animated programmatic scroll or zoom is running.
    public var isScrollAnimating: Bool {
        if case let .animating(a) = phase, a.kind != .zoomBounce { return true }
        return false
    }

    /// The content visibly moves: dragging, pinching, decelerating, bouncing or animating.
    /// A hard-set offset never makes it true.
    public var isScrolling: Bool {
        isDragging || isZooming || isDecelerating || isZoomBouncing || isScrollAnimating
    }

    /// Whether the model moves on its own and wants `advance(to:)` at each frame.
    public var isAnimating: Bool { isDecelerating || isZoomBouncing || isScrollAnimating }

    /// Whether the model is still moving on its own at `t`: a motion that ended by then (and
    /// whose last frame is yet to be drawn) does not count.
    public func isAnimating(at t: Instant) -> Bool {
        switch phase {
        case let .decelerating(m): t < m.end
        case let .animating(a): t < a.end
        case .idle, .tracking, .dragging: false
        }
    }

    /// How fast the content moves on screen at `t` (px/s): the fastest of the view's corners
    /// over the next millisecond of the motion's own closed form, so a zoom's motion counts too.
    /// 0 at rest and while a finger holds the content.
    public func visibleSpeed(at t: Instant) -> Double {
        func state(_ t: Instant) -> (offset: Point, scale: Double)? {
            switch phase {
            case let .decelerating(m): (m.offset(at: t), zoomScale)
            case let .animating(a): a.state(at: t)
            case .idle, .tracking, .dragging: nil
            }
        }
        let step = Duration.milliseconds(1)
        guard isAnimating(at: t), let now = state(t), let next = state(t + step), now.scale > 0 else { return 0 }
        var fastest = 0.0
        for corner in [Point(x: 0, y: 0), Point(x: boundsSize.width, y: 0),
                       Point(x: 0, y: boundsSize.height), Point(x: boundsSize.width, y: boundsSize.height)] {
            // The content point under this corner now, and where it is on screen a step later.
            let x = (now.offset.x + corner.x) / now.scale, y = (now.offset.y + corner.y) / now.scale
            let dx = x * next.scale - next.offset.x - corner.x, dy = y * next.scale - next.offset.y - corner.y
            fastest = Swift.max(fastest, (dx * dx + dy * dy).squareRoot() / step.inSeconds)
        }
        return fastest
    }

    // MARK: Outbox

    /// Everything reported since the last call, oldest first.
    public mutating func takeReports() -> [Report] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    /// The delegate messages since the last call, oldest first; the other reports stay (for
    /// tests and tools that look at messages only).
    public mutating func takeEvents() -> [ScrollEvent] {
        let events = outbox.compactMap { if case let .event(e, _, _) = $0 { e } else { nil } }
        outbox.removeAll { if case .event = $0 { true } else { false } }
        return events
    }

    /// Notes about calls that made no sense in the current state (e.g. a drag without a touch),
    /// ignored by the model; the other reports stay.
    public mutating func takeDiagnostics() -> [String] {
        let notes = outbox.compactMap { if case let .diagnostic(d) = $0 { d } else { nil } }
        outbox.removeAll { if case .diagnostic = $0 { true } else { false } }
        return notes
    }

    /// Records a delegate message with the state as it is now, after a `state` if a flag
    /// changed since the last one.
    mutating func send(_ event: ScrollEvent) {
        reportStateChange()
        outbox.append(.event(event, at: reportTime ?? now, state: state))
    }

    /// Records a call that made no sense, for the log.
    mutating func note(_ diagnostic: String) { outbox.append(.diagnostic(diagnostic)) }

    // MARK: Bounds

    /// The smallest valid offset on `axis`: less half the room left over when the content is
    /// centred.
    public func minimumOffset(_ axis: Axis) -> Double {
        -contentInset.leading(axis) - centringMargin(axis, scale: zoomScale)
    }

    /// How far content centred on `axis` at `scale` sits from the leading inset: half the
    /// viewport it leaves empty, or 0 (not centred, or not smaller than the viewport).
    func centringMargin(_ axis: Axis, scale: Double) -> Double {
        guard centersContent else { return 0 }
        let room = boundsSize[axis] - unscaledContentSize[axis] * scale - contentInset.leading(axis) - contentInset.trailing(axis)
        return room > 0 ? room / 2 : 0
    }

    /// `offset` with every axis where the content at `scale` is centred moved to its centre;
    /// `always` false leaves an axis that rubber-bands anyway (`alwaysBounce…`) to the finger.
    func centred(_ offset: Point, scale: Double, always: Bool = true) -> Point {
        guard centersContent else { return offset }
        var p = offset
        for axis in Axis.allCases {
            let margin = centringMargin(axis, scale: scale)
            guard margin > 0 else { continue }
            let bouncesAnyway = bounces && (axis == .horizontal ? alwaysBounceHorizontal : alwaysBounceVertical)
            if always || !bouncesAnyway { p[axis] = -contentInset.leading(axis) - margin }
        }
        return p
    }

    /// The largest valid offset on `axis` (never below the minimum).
    public func maximumOffset(_ axis: Axis) -> Double {
        Swift.max(minimumOffset(axis), contentSize[axis] + contentInset.trailing(axis) - boundsSize[axis])
    }

    /// The valid offsets: content plus insets, less the viewport.
    public var offsetBounds: Rect {
        let x0 = minimumOffset(.horizontal), y0 = minimumOffset(.vertical)
        return Rect(x: x0, y: y0, width: maximumOffset(.horizontal) - x0, height: maximumOffset(.vertical) - y0)
    }

    /// `offset` moved to the nearest valid offset.
    public func clampedOffset(_ offset: Point) -> Point {
        var p = offset
        for axis in Axis.allCases {
            p[axis] = Swift.min(Swift.max(p[axis], minimumOffset(axis)), maximumOffset(axis))
        }
        return p
    }

    /// Whether a drag moves the content on `axis`: the content is larger than the viewport, or
    /// `alwaysBounce…` lets it rubber-band anyway.
    public func canScroll(_ axis: Axis) -> Bool {
        guard isScrollEnabled else { return false }
        let overflows = contentSize[axis] + contentInset.leading(axis) + contentInset.trailing(axis) > boundsSize[axis]
        let always = axis == .horizontal ? alwaysBounceHorizontal : alwaysBounceVertical
        return overflows || (bounces && always)
    }

    /// Whether the offset lies within bounds (to a hundredth of a pixel).
    var isInBounds: Bool {
        clampedOffset(contentOffset).distance(to: contentOffset) < 0.01
    }

    // MARK: Internals shared by the machines

    /// Sets the offset; records `didScroll` when it changed. Non-finite values never get in.
    mutating func moveOffset(to offset: Point) {
        guard offset.isFinite else {
            note("ignored a non-finite offset \(offset)")
            return
        }
        // A centred axis stays centred, unless it rubber-bands anyway (`alwaysBounce…`).
        let offset = centred(offset, scale: zoomScale, always: false)
        guard offset != contentOffset else { return }
        contentOffset = offset
        send(.didScroll)
    }

    /// Sets the scale keeping the content under `focus` (a view point) in place; records
    /// `didZoom` (and `didScroll` if the offset moved).
    mutating func applyZoom(_ scale: Double, anchoredAt focus: Point) {
        guard scale.isFinite, scale > 0, scale != zoomScale else { return }
        show(scale: scale, offset: ZoomMath.offset(contentOffset, anchoredAt: focus, from: zoomScale, to: scale))
    }

    /// Sets scale and offset together, then records `didZoom` if the scale changed and one
    /// `didScroll` if the offset did: both messages carry the final state. Setting them one
    /// after the other would send a `didScroll` for an offset the view never showed (the scale
    /// anchored somewhere, before the offset it is really going to).
    mutating func show(scale: Double, offset: Point) {
        guard scale.isFinite, scale > 0, offset.isFinite else {
            note("ignored a non-finite zoom \(scale.brief) at \(offset)")
            return
        }
        // A zoom keeps a centred axis centred on every step (a pinch, its bounce, an animation);
        // a pinch's fingers keep an axis that rubber-bands anyway, as its drag does, so the two
        // do not take turns with it.
        let offset = centred(offset, scale: scale, always: !isDragging)
        let zoomed = scale != zoomScale, moved = offset != contentOffset
        zoomScale = scale
        contentOffset = offset
        if zoomed { send(.didZoom) }
        if moved { send(.didScroll) }
    }

    /// Advances the model's clock; time never goes back.
    mutating func observe(_ t: Instant) {
        if t > now { now = t }
    }

    /// Notes that visible motion stopped at `t`, so the indicators start to fade.
    mutating func motionStopped(at t: Instant) {
        indicatorsVisibleUntil = Swift.max(indicatorsVisibleUntil ?? t, t)
    }
}
