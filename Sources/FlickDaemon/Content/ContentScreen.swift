import FlickCore
import FlickDisplay

/// Where a `ContentHost` shows what it loads: the daemon's pipeline, or a fuzz target's frames.
public protocol ContentScreen: AnyObject {
    /// The view's size in pixels: what a test pattern and a folder's pages are made for.
    var viewPixels: PixelSize { get }
    /// Shows `content` from the next frame on, from its home position.
    /// - Throws: `ScrollViewError` when the content does not fit the model (it shows all the same).
    func present(_ content: Content, at t: Instant) throws
    /// Moves the view, without animating, to where it was saved for this content.
    func restore(offset: Point, zoomScale: Double, at t: Instant)
    /// Draws the next frame even if the model stands still: the content's pixels changed.
    func contentChanged(at t: Instant)
    /// Where the view is, to keep it there on content that replaces what shows (nil: shown
    /// from its home position).
    var position: (offset: Point, zoomScale: Double)? { get }
}

extension ContentScreen {
    /// Nowhere to keep: replaced content is shown from its home position.
    public var position: (offset: Point, zoomScale: Double)? { nil }
}

extension Pipeline: ContentScreen {
    /// The presenter's view size, in whole pixels.
    public var viewPixels: PixelSize { PixelSize(size: presenter.viewSize) }

    /// Shows `content` and sets the model's content size, the zoom limits that follow it
    /// (`"fit"`) and its home view, as one command.
    public func present(_ content: Content, at t: Instant) throws {
        show(content, at: t)
        let framing = framing
        try update(at: t) { v throws in
            try v.setContentSize(content.size)
            try framing.apply(to: &v)
            let home = framing.home(of: v)
            try v.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: false, at: t)
        }
    }

    /// The model's offset and zoom.
    public var position: (offset: Point, zoomScale: Double)? { (scrollView.contentOffset, scrollView.zoomScale) }

    /// Restores a saved position as a command does (its delegate messages go to the sink).
    public func restore(offset: Point, zoomScale: Double, at t: Instant) {
        update(at: t) { v in v.restore(offset: offset, zoomScale: zoomScale, at: t) }
    }
}
