/// A touch as the content sees it, in content coordinates (zoom and offset applied): UIKit's
/// `touchesBegan/Moved/Ended/Cancelled` of the content view, and the taps made of them. A touch
/// the content has gets every move from its down to its up or cancel; the output carries the
/// finger's id (`GestureOutput.contact`).
public enum ContentTouch: Hashable, Sendable {
    /// The finger touched the content (after the content-touch delay, unless it lifted first).
    case down(Point)
    /// The finger moved, while the touch is the content's (every report, where the finger is
    /// now).
    case move(Point)
    /// The finger lifted.
    case up(Point)
    /// The touch became a scroll (or vanished): the content must forget it.
    case cancel
    /// A down and an up without movement: a tap.
    case tap(Point)
    /// A second tap close to the first, delivered when the double-tap action is `.content`.
    case doubleTap(Point)
    /// A touch held still for the long-press duration.
    case longPress(Point)

    /// The event's name on the control socket and in the journal.
    public var name: String {
        switch self {
        case .down: "contentTouchDown"
        case .move: "contentTouchMove"
        case .up: "contentTouchUp"
        case .cancel: "contentTouchCancel"
        case .tap: "tap"
        case .doubleTap: "doubleTap"
        case .longPress: "longPress"
        }
    }

    /// Where it happened, in content coordinates.
    public var location: Point? {
        switch self {
        case let .down(p), let .move(p), let .up(p), let .tap(p), let .doubleTap(p), let .longPress(p): p
        case .cancel: nil
        }
    }
}

/// One recognised gesture, as the journal records it: what the person did, once, at its end.
///
/// A gesture is named by what the finger did, not by what the content does after it: a lift
/// after a drag is a `flick` only when the finger gave the content momentum (the scroll view's
/// `willEndDragging` reports a non-zero velocity: the lift was at least
/// `scroll.minimum_fling_velocity` along an axis that scrolls); any other lift is a `drag`, even
/// when the content then moves on its own — a rubber band springing back, a page snapping into
/// place, a zoom bouncing back to its limit. What that motion did is its own entry (`bounce`,
/// `pageChange`).
public enum Gesture: Hashable, Sendable {
    /// A tap at a content point.
    case tap(Point)
    /// A double tap at a content point; `zoomedTo` is the scale it zoomed to, if it zoomed.
    case doubleTap(Point, zoomedTo: Double?)
    /// A long press at a content point.
    case longPress(Point)
    /// A drag whose lift gave the content no momentum: the finger's total travel in screen pixels.
    case drag(translation: Vector)
    /// A lift that gave the content momentum: the velocity it applied (px/s, in the finger's
    /// direction: the finger's along the axes that scroll, clamped to `maximum_fling_velocity`),
    /// where the content will rest, and after how many seconds.
    case flick(velocity: Vector, restOffset: Point, duration: Double)
    /// A pinch from one scale to another.
    case pinch(fromScale: Double, toScale: Double)
    /// A touch that stopped moving content.
    case stop(at: Point)
    /// A touch that vanished without a lift (device removed, events dropped).
    case cancelled
    /// The content went past an edge (rubber band, or momentum running into it) and sprang
    /// back; `distance` is how far past it went, px.
    case bounce(edge: Edge, distance: Double)
    /// Paging brought another page into view (0-based page numbers).
    case pageChange(from: Int, to: Int)
    /// A tap in the top strip (`scrollToTopStripHeight`) scrolled to the top.
    case scrollToTop
    /// A tap on a document's link (at a content point), instead of a tap for the content: a link
    /// to a page scrolls to its `destination`; any other is the app's to act on.
    case link(at: Point, DocumentLinks.Area)

    /// A short name for the journal's `FLICK_GESTURE` field.
    public var name: String {
        switch self {
        case .tap: "tap"
        case .doubleTap: "double-tap"
        case .longPress: "long-press"
        case .drag: "drag"
        case .flick: "flick"
        case .pinch: "pinch"
        case .stop: "stop"
        case .cancelled: "cancelled"
        case .bounce: "bounce"
        case .pageChange: "page-change"
        case .scrollToTop: "scroll-to-top"
        case .link: "link"
        }
    }
}

/// Everything the recogniser reports, in order, with the time it happened.
public struct GestureOutput: Hashable, Sendable {
    /// What happened.
    public enum Kind: Hashable, Sendable {
        /// A touch for the content.
        case content(ContentTouch)
        /// A scroll view delegate message.
        case scroll(ScrollEvent)
        /// One of the scroll view's state properties changed (`ScrollState`): all of them now.
        case state(ScrollState)
        /// A recognised gesture, for the journal.
        case gesture(Gesture)
        /// A step of one of the machines (only while tracing).
        case transition(Transition)
        /// A call that made no sense in a machine's state (a bug upstream), for the log.
        case diagnostic(String)
    }

    /// When it happened: the kernel time of the frame (or timer, or vblank) that caused it;
    /// for the scroll view's messages the time on the model's clock, which an input reported
    /// before the last frame the model was stepped to does not take back.
    public var time: Instant
    /// What happened.
    public var kind: Kind
    /// For a content touch: the finger it belongs to, the same from its down to its up or
    /// cancel (`ContactID`); nil for everything else.
    public var contact: ContactID?
    /// The scroll view's state when it happened (nil for steps of machines outside the
    /// recogniser: the input's decoders, the frame presenter).
    public var state: ScrollState?

    /// Creates an output.
    public init(time: Instant, kind: Kind, contact: ContactID? = nil, state: ScrollState? = nil) {
        self.time = time
        self.kind = kind
        self.contact = contact
        self.state = state
    }
}

/// An edge of the content.
public enum Edge: String, Hashable, Sendable {
    case top, left, bottom, right
}
