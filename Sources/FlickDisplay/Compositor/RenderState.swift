import FlickCore

/// Everything the compositor needs to draw one frame, filled by the daemon from the scroll model.
///
/// Content point *p* is drawn at view point `p × zoomScale − contentOffset` (UIKit semantics).
/// Offsets may be negative or past the end while rubber-banding; the background shows there.
public struct RenderState: Hashable, Sendable {
    /// The logical view's size in view pixels (the panel's size after rotation).
    public var boundsSize: Size
    /// The view's top-left corner in scaled content coordinates.
    public var contentOffset: Point
    /// Content pixels to view pixels; 1 draws the content pixel for pixel.
    public var zoomScale: Double
    /// The unscaled content size, in content pixels.
    public var contentSize: Size
    /// The scroll view's `contentInset`: it widens the scrollable range the indicators show.
    public var contentInset: EdgeInsets = .zero
    /// The scroll indicators' opacity, 0…1, computed (faded) by the model; 0 hides them.
    public var indicatorOpacity: Double
    /// The colour wherever there is no content.
    public var background: Color
    /// Changes whenever something drawn changes besides the model: new content, a new
    /// indicator style, tiles that arrived. Two states that differ only here still differ, so
    /// such a change is drawn like any other (`FramePresenter`).
    public var appearance: Int = 0
    /// The touch overlay's dots and trails (`debug.touch_overlay`), drawn over everything;
    /// empty when it is off or nothing touches. While there are any, the frame is composed.
    public var touchMarks: [TouchMark] = []
    /// A tapped link's fading shade (`content.link_highlight`), over the content and under the
    /// indicators; empty at rest. While there is one, the frame is composed.
    public var linkHighlights: [LinkHighlight] = []
    /// `flickd calibrate`'s targets, drawn in place of the content and the background (the
    /// screen fills its own); nil everywhere else. A frame that shows them is composed.
    public var targetScreen: TargetScreen?
    /// The panel shows black and nothing else (display power's `black` method: the panel "off"
    /// with its backlight left on).
    public var blank = false
    /// Where the motion under way comes to rest (`ScrollView.restingOffset`), if it does: tiled
    /// content fetches the tiles there ahead of the view.
    public var restingOffset: Point?

    /// Creates a state.
    public init(boundsSize: Size, contentOffset: Point = .zero, zoomScale: Double = 1, contentSize: Size,
                indicatorOpacity: Double = 0, background: Color = .black) {
        self.boundsSize = boundsSize
        self.contentOffset = contentOffset
        self.zoomScale = zoomScale
        self.contentSize = contentSize
        self.indicatorOpacity = indicatorOpacity
        self.background = background
    }
}
