/// The delay-timer state machine of UIScrollView's `delaysContentTouches` and
/// `canCancelContentTouches`: decides whether one touch belongs to the content (a tap, a long
/// press) or to scrolling. Its table (`### tap` in docs/tap-drag-classifier.md) is the spec:
/// every change to this machine changes it in the same commit, and `TapDragClassifierTests`
/// holds the two together and takes every edge.
///
/// A touch that lands while the content moves stops it and is never the content's (→ catching).
/// With a zero delay, or `delaysContentTouches` off, the content hears a touch at once
/// (→ delivered). Past the slop a delivered touch is taken back from the content only if
/// `canCancelContentTouches`; otherwise the content keeps it (→ owned) and nothing scrolls. A
/// long press changes nothing of that: a finger held, then moved, scrolls as UIKit's, Google
/// Maps' and QScroller's do, unless the content claimed the touch (→ owned), which is how an
/// app that answers a touch-down or a long press keeps it.
/// A touch moving past the slop along an axis the view cannot scroll (scrolling off, or the
/// content fits that way and does not always bounce) is the content's (→ owned), held back or
/// not: there is no drag to take it for. While the content has a touch (delivered, owned,
/// longPressed) it hears every move, as UIKit's `touchesMoved`. Entering idle, dragging, owned
/// or longPressed disarms the timer, in the dispatcher.
public struct TapDragClassifier: Sendable {
    /// Where a touch stands.
    public enum State: Hashable, Sendable {
        /// No touch.
        case idle
        /// Held back from the content while the delay runs.
        case pending(origin: Point, since: Instant)
        /// The content has the touch-down; the long-press timer runs.
        case delivered(origin: Point, since: Instant)
        /// The content had a long press; the touch is still the content's, until it lifts or
        /// moves past the slop.
        case longPressed(origin: Point)
        /// The content keeps the touch to its end: it claimed it, or the touch moved past the
        /// slop where nothing could take it (`canCancelContentTouches` is false, or it moved
        /// along no axis that scrolls).
        case owned(origin: Point)
        /// The touch stopped moving content; it scrolls if it moves, else it is nothing.
        case catching(origin: Point)
        /// The touch scrolls.
        case dragging

        /// The state's name in the table.
        public var name: String {
            switch self {
            case .idle: "idle"
            case .pending: "pending"
            case .delivered: "delivered"
            case .longPressed: "longPressed"
            case .owned: "owned"
            case .catching: "catching"
            case .dragging: "dragging"
            }
        }
    }

    /// The axes along which a drag would scroll, as they stand at the touch's down: none with
    /// scrolling off, else each axis whose content (and insets) overflows the view or that
    /// always bounces (`ScrollView.canScroll`).
    public struct Axes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Left and right.
        public static let horizontal = Axes(rawValue: 1)
        /// Up and down.
        public static let vertical = Axes(rawValue: 2)
        /// Both ways.
        public static let both: Axes = [.horizontal, .vertical]

        /// Whether a finger that moved by `d` drags the view: it moved mostly along an axis that
        /// scrolls (either one at exactly 45°). A mostly sideways swipe on content that only
        /// scrolls up and down is the content's, as a horizontal swipe inside a vertical
        /// UIScrollView reaches its subview.
        public func scroll(_ d: Vector) -> Bool {
            let h = abs(d.dx), v = abs(d.dy)
            return (contains(.horizontal) && h >= v) || (contains(.vertical) && v >= h)
        }
    }

    /// What happens to the touch.
    public enum Event: Hashable, Sendable {
        /// The finger touched at a point; `stopsMotion` if the content was moving; `scrolls`:
        /// the axes a drag could scroll along (the touch keeps what it began with).
        case down(Point, stopsMotion: Bool, scrolls: Axes = .both)
        /// The finger moved to a point.
        case move(Point)
        /// The armed timer fired.
        case timer
        /// The finger lifted at a point.
        case lift(Point)
        /// The touch vanished (device removed, events dropped).
        case cancel
        /// Another finger joined: a pinch takes over.
        case secondFinger
        /// The content claims the touch (a control client's `claim`): it stays the content's
        /// whatever it does next. Refused, with the state left as it is, where the content does
        /// not have the touch (`claimed` is false then).
        case claim

        /// The event's name in the table.
        public var name: String {
            switch self {
            case .down: "down"
            case .move: "move"
            case .timer: "timer"
            case .lift: "lift"
            case .cancel: "cancel"
            case .secondFinger: "secondFinger"
            case .claim: "claim"
            }
        }
    }

    /// What the gesture recogniser must do.
    public enum Action: Hashable, Sendable {
        /// Give the content its touch-down at a point.
        case contentDown(Point)
        /// Tell the content its touch moved to a point.
        case contentMove(Point)
        /// Give the content its touch-up at a point.
        case contentUp(Point)
        /// Take the touch back from the content.
        case contentCancel
        /// Lifted before the delay ran out: down at `origin` and up at `lift` at once, a tap.
        case quickTap(origin: Point, lift: Point)
        /// A tap, after the content had its down and up.
        case tap(Point)
        /// The content gets a long press at a point.
        case longPress(Point)
        /// Scrolling starts; the content moves by the motion beyond the slop.
        case beginDrag(excess: Vector)
    }

    /// The current state.
    public private(set) var state: State = .idle

    /// Whether the content has the touch and keeps it to its end: claimed, or kept when it
    /// moved. A `claim` is taken when this is true after it.
    public var claimed: Bool {
        switch state {
        case .owned: true
        case .idle, .pending, .delivered, .longPressed, .catching, .dragging: false
        }
    }

    /// Whether a move matters to the machine: it can still change what the touch is (pending,
    /// delivered, catching), or the content has the touch and hears it move (delivered,
    /// longPressed, owned). Once it drags, every move leaves the state as it is and says nothing.
    public var hearsMoves: Bool {
        switch state {
        case .pending, .delivered, .catching, .longPressed, .owned: true
        case .idle, .dragging: false
        }
    }
    /// When the armed timer fires, if one is armed.
    public private(set) var deadline: Instant?

    private let delay: Duration
    private let longPress: Duration
    private let slop: Double
    private let canCancel: Bool
    /// The axes the touch in progress can scroll along (as they were at its down).
    private var scrolls = Axes.both

    /// Creates a classifier from the gesture configuration.
    public init(configuration: GestureConfiguration) {
        delay = configuration.delaysContentTouches ? configuration.contentTouchDelay : .zero
        longPress = configuration.longPressDuration
        slop = configuration.touchSlop
        canCancel = configuration.canCancelContentTouches
    }

    /// Feeds one event at time `t`.
    /// - Returns: the actions, in order, and whether the pair was invalid (a bug the caller logs).
    public mutating func handle(_ event: Event, at t: Instant) -> (actions: [Action], invalid: Bool) {
        var actions: [Action] = []
        var invalid = false
        switch (state, event) {
        case let (.idle, .down(p, stopsMotion, canScroll)):
            scrolls = canScroll
            if stopsMotion {
                state = .catching(origin: p)
            } else if delay <= .zero {
                state = .delivered(origin: p, since: t)
                actions.append(.contentDown(p))
                deadline = t + longPress
            } else {
                state = .pending(origin: p, since: t)
                deadline = t + delay
            }
        case (.idle, .move), (.idle, .timer), (.idle, .lift), (.idle, .cancel), (.idle, .secondFinger),
             (.pending, .down), (.delivered, .down), (.longPressed, .down), (.owned, .down), (.catching, .down),
             (.dragging, .down), (.longPressed, .timer), (.owned, .timer), (.catching, .timer), (.dragging, .timer):
            invalid = true
        case let (.pending(origin, _), .move(p)):
            if let excess = excess(from: origin, to: p) {
                if scrolls.scroll(p - origin) {
                    state = .dragging
                    actions.append(.beginDrag(excess: excess))
                } else {
                    // Nothing to drag: the moving finger is the content's, from where it landed,
                    // and it hears where the finger is now.
                    state = .owned(origin: origin)
                    actions += [.contentDown(origin), .contentMove(p)]
                }
            }
        case let (.catching(origin), .move(p)):
            if let excess = excess(from: origin, to: p) {
                state = .dragging
                actions.append(.beginDrag(excess: excess))
            }
        case let (.delivered(origin, _), .move(p)), let (.longPressed(origin), .move(p)):
            // A long press does not make the touch the content's for good: held, then moved, it
            // is taken back as a touch that never held still would be.
            if let excess = excess(from: origin, to: p) {
                if canCancel && scrolls.scroll(p - origin) {
                    state = .dragging
                    actions += [.contentCancel, .beginDrag(excess: excess)]
                } else {
                    state = .owned(origin: origin)
                    actions.append(.contentMove(p))
                }
            } else {
                actions.append(.contentMove(p))
            }
        case let (.owned, .move(p)):
            actions.append(.contentMove(p))
        case (.dragging, .move), (.longPressed, .secondFinger), (.owned, .secondFinger), (.dragging, .secondFinger):
            break
        case let (.delivered(origin, _), .claim), let (.longPressed(origin), .claim):
            // The app heard the touch and keeps it; a long press it has not had yet is its own
            // to tell, since it hears every move.
            state = .owned(origin: origin)
        case (.owned, .claim):
            break
        case (.idle, .claim), (.pending, .claim), (.catching, .claim), (.dragging, .claim):
            // Not the content's touch (none, held back, never, or taken back): a claim that
            // arrives late is refused, not a bug — the touch moved on while it was on its way.
            break
        case let (.pending(origin, since), .timer):
            state = .delivered(origin: origin, since: since)
            actions.append(.contentDown(origin))
            deadline = Swift.max(since + longPress, t)
        case let (.delivered(origin, _), .timer):
            state = .longPressed(origin: origin)
            actions.append(.longPress(origin))
        case let (.pending(origin, _), .lift(p)):
            state = .idle
            actions.append(.quickTap(origin: origin, lift: p))
        case let (.delivered(_, _), .lift(p)):
            state = .idle
            actions += [.contentUp(p), .tap(p)]
        case let (.longPressed, .lift(p)), let (.owned, .lift(p)):
            state = .idle
            actions.append(.contentUp(p))
        case (.catching, .lift), (.dragging, .lift), (.pending, .cancel), (.catching, .cancel), (.dragging, .cancel):
            state = .idle
        case (.delivered, .cancel), (.longPressed, .cancel), (.owned, .cancel):
            state = .idle
            actions.append(.contentCancel)
        case (.pending, .secondFinger), (.catching, .secondFinger):
            state = .dragging
        case let (.delivered(origin, _), .secondFinger):
            if canCancel {
                state = .dragging
                actions.append(.contentCancel)
            } else {
                state = .owned(origin: origin)
            }
        }
        // Only pending and delivered wait for a timer; leaving them disarms it, here, once.
        switch state {
        case .pending, .delivered: break
        case .idle, .longPressed, .owned, .catching, .dragging: deadline = nil
        }
        return (actions, invalid)
    }

    /// The motion beyond the slop, along the finger's direction, once the finger is farther than
    /// the slop from `origin`; nil while within it. Starting from the slop's edge rather than
    /// from the origin keeps the content from jumping when a drag begins (Android, Flutter).
    private func excess(from origin: Point, to p: Point) -> Vector? {
        let d = p - origin
        let distance = d.length
        guard distance > slop, distance.isFinite else { return nil }
        return d * ((distance - slop) / distance)
    }
}
