/// Why the content cannot claim a touch: it does not have it. A claim travels over a socket while
/// the finger goes on moving, so a refusal is an ordinary answer (the touch lifted or began to
/// scroll meanwhile), not a fault.
public enum ContentTouchClaimRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No touch the content heard of has that id now: it lifted, or it is a finger the
    /// recogniser does not follow (a pinch's second, a resting one, a palm).
    case notDown
    /// The touch is held back for the content-touch delay: the content has not had its down.
    case heldBack
    /// The touch stopped moving content: it is never the content's.
    case stoppedMotion
    /// The touch scrolls: it was taken back from the content (its `contentTouchCancel` was
    /// sent), or never was the content's.
    case scrolls
    /// The touch began in the scroll-to-top strip, which the content never hears.
    case topStrip

    public var description: String {
        switch self {
        case .notDown: "no touch of the content's with this id is down (it lifted, or the content never heard of it)"
        case .heldBack: "the content has not had this touch yet (held back for gestures.content_touch_delay_ms): "
            + "claim it once its contentTouchDown arrives"
        case .stoppedMotion: "this touch stopped moving content, and such a touch is never the content's"
        case .scrolls: "this touch scrolls: it was taken back from the content (contentTouchCancel) or never was its"
        case .topStrip: "this touch is in the scroll-to-top strip, which the content never hears"
        }
    }
}

extension GestureRecognizer {
    /// The content keeps the touch of finger `contact` to its end (a control client's `claim`,
    /// UIKit's `touchesShouldCancel(in:)` answering false, given after the fact): moving past
    /// the slop, a second finger, a long press still to come no longer take it from the content.
    /// - Returns: why not, when the content does not have that touch (nothing changes then),
    ///   and what the call caused (the tap machine's step, while tracing).
    public mutating func claim(_ contact: ContactID, at t: Instant) -> (refusal: ContentTouchClaimRefusal?, outputs: [GestureOutput]) {
        guard let touch = followedTouch, touch.primary == contact else { return (.notDown, takeOutbox()) }
        guard !touch.inTopStrip else { return (.topStrip, takeOutbox()) }
        let refusal: ContentTouchClaimRefusal? = switch classifier.state {
        case .idle: .notDown
        case .pending: .heldBack
        case .catching: .stoppedMotion
        case .dragging: .scrolls
        case .delivered, .longPressed, .owned: nil
        }
        classify(.claim, at: t)
        return (refusal, takeOutbox())
    }
}
