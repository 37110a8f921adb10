/// What the scroll view is at one instant: where it shows the content, and which of UIKit's
/// state properties are true.
///
/// Every delegate message carries the state at the moment the scroll view sent it, not after
/// the input that caused it: `willBeginDragging` still has the offset the drag starts from, the
/// `didScroll` that follows has the moved one. When a flag changes the scroll view reports a
/// `state` of its own before the next message (or at the end of the input that changed it, when
/// no message follows: a touch-down that only starts tracking), so an app never has to infer
/// "is it really moving" from the grammar of the messages.
public struct ScrollState: Hashable, Sendable {
    /// The content offset (scaled content pixels, UIKit's `contentOffset`).
    public var contentOffset: Point
    /// The zoom scale.
    public var zoomScale: Double
    /// UIKit's state properties.
    public var flags: ScrollFlags

    /// Creates a state.
    public init(contentOffset: Point, zoomScale: Double, flags: ScrollFlags) {
        self.contentOffset = contentOffset
        self.zoomScale = zoomScale
        self.flags = flags
    }
}

/// UIScrollView's state properties, as one value so a change of any of them is one comparison.
public struct ScrollFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `isTracking`: a finger is on the content.
    public static let tracking = ScrollFlags(rawValue: 1 << 0)
    /// `isDragging`: the content follows a finger.
    public static let dragging = ScrollFlags(rawValue: 1 << 1)
    /// `isDecelerating`: the content moves on its own after a lift (momentum, a bounce back of
    /// the offset or of the zoom, a page snap).
    public static let decelerating = ScrollFlags(rawValue: 1 << 2)
    /// `isZooming`: from `willBeginZooming` to `didEndZooming`.
    public static let zooming = ScrollFlags(rawValue: 1 << 3)
    /// `isZoomBouncing`: the zoom animates back inside its limits.
    public static let zoomBouncing = ScrollFlags(rawValue: 1 << 4)
    /// `isScrolling`: the content visibly moves (a finger, momentum, a bounce or an animation).
    public static let scrolling = ScrollFlags(rawValue: 1 << 5)

    /// Every flag with its name on the control socket, in this order.
    public static let named: [(flag: ScrollFlags, name: String)] = [
        (.tracking, "tracking"), (.dragging, "dragging"), (.decelerating, "decelerating"),
        (.zooming, "zooming"), (.zoomBouncing, "zoomBouncing"), (.scrolling, "scrolling"),
    ]

    public var description: String {
        let names = Self.named.filter { contains($0.flag) }.map(\.name)
        return names.isEmpty ? "at rest" : names.joined(separator: "+")
    }
}

extension ScrollView {
    /// The view's state now.
    public var state: ScrollState {
        ScrollState(contentOffset: contentOffset, zoomScale: zoomScale, flags: flags)
    }

    /// The state properties now.
    public var flags: ScrollFlags {
        var f: ScrollFlags = []
        if isTracking { f.insert(.tracking) }
        if isDragging { f.insert(.dragging) }
        if isDecelerating { f.insert(.decelerating) }
        if isZooming { f.insert(.zooming) }
        if isZoomBouncing { f.insert(.zoomBouncing) }
        if isScrolling { f.insert(.scrolling) }
        return f
    }

    /// Reports a `state` when a flag changed since the last one: before every message and at
    /// the end of every input, so each message's flags are the last `state`'s.
    mutating func reportStateChange() {
        let f = flags
        guard f != reportedFlags else { return }
        reportedFlags = f
        outbox.append(.state(state, at: reportTime ?? now))
    }
}
