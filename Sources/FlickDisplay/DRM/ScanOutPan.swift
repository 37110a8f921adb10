/// How the primary plane reaches the view's corner in a scan-out buffer (the content's copy, or
/// a band of tiles) while the view pans at zoom 1.
///
/// With the atomic API the buffer has one framebuffer, made when it is first shown, and each
/// frame moves the plane's `SRC_X`/`SRC_Y` to the corner: a panned frame is one commit. A driver
/// that refuses that framebuffer (too large for it) or a test commit of it gets the way before
/// (`views`): a panel-sized framebuffer starting at the corner's byte offset, added for each
/// corner and removed once a flip replaced the frame showing it.
public enum ScanOutPan: Hashable, Sendable {
    /// One framebuffer over the whole buffer; the plane's source rectangle moves.
    case source
    /// A framebuffer per corner, viewing the buffer from it.
    case views

    /// What one frame's primary plane needs to show the buffer from (`x`, `y`).
    public struct Step: Hashable, Sendable {
        /// Whether a framebuffer is added for this frame (views only: the corner moved).
        public var addsFramebuffer: Bool
        /// The plane's source corner in the framebuffer, whole pixels (`SRC_X`/`SRC_Y` are
        /// these in 16.16).
        public var sourceX: Int
        /// See `sourceX`.
        public var sourceY: Int
    }

    /// The step for a frame whose corner is (`x`, `y`) when the frame on screen shows the same
    /// buffer from `shown` (nil: another buffer, or a composed frame).
    public func step(x: Int, y: Int, shown: (x: Int, y: Int)?) -> Step {
        switch self {
        case .source:
            Step(addsFramebuffer: false, sourceX: x, sourceY: y)
        case .views:
            // A view starts at its corner: its own source is always its top-left.
            Step(addsFramebuffer: shown.map { $0.x != x || $0.y != y } ?? true, sourceX: 0, sourceY: 0)
        }
    }
}
