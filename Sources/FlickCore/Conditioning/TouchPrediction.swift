/// The one owner of touch prediction (docs/input.md, "Resampling"): it takes each decoded frame
/// on its way to the recogniser (smoothed, and remembered for resampling), and answers the frame
/// presenter's questions about the fingers — what a frame shown at `t` shows, whether that frame
/// is latched late, and whether another frame is owed after one that showed a prediction.
///
/// A frame shows the model with the fingers resampled to its time: the recogniser's own
/// handling of those positions, on a copy (`GestureRecognizer.projected`), so the model, the
/// delegate events, the journal and flick velocities keep the real reports. Its offset is then
/// steadied: a prediction never steps the content back against the way the reports move it.
public struct TouchPrediction: Sendable {
    /// What a frame shows: the view it draws and the offset it draws it at.
    public struct Shown: Sendable {
        /// The model, or the model with the fingers resampled to the frame's time.
        public var view: ScrollView
        /// The view's offset, steadied against the reports' heading.
        public var contentOffset: Point
    }

    /// The last frame that showed a prediction: the model's offset and zoom then, and the
    /// offset shown.
    struct LastFrame: Hashable, Sendable {
        var model: Point
        var shown: Point
        var zoomScale: Double
    }

    /// Smoothing and resampling as the config asks (`input.smoothing`, `input.resample`). A
    /// reload replaces them; what the frames showed so far is kept.
    public var conditioning: TouchConditioning
    /// Whether the last frame showed the fingers resampled ahead of the model: frames follow
    /// until one shows the model again.
    public private(set) var isProjecting = false
    /// The last frame, while frames show a prediction.
    private(set) var lastFrame: LastFrame?

    /// Creates an owner with the stages asked for.
    public init(_ conditioning: TouchConditioning = .off) {
        self.conditioning = conditioning
    }

    /// A frame from the decoder, as the recogniser gets it: smoothed, and remembered so later
    /// frames can be resampled.
    public mutating func take(_ frame: TouchFrame) -> TouchFrame {
        conditioning.take(frame)
    }

    /// What the frame shown at `t` shows of `recognizer`'s model, asked once per frame.
    /// - Parameter now: the time it is asked at (a panel silent for a while predicts nothing).
    public mutating func frame(at t: Instant, now: Instant, of recognizer: GestureRecognizer) -> Shown {
        let view = projectedView(at: t, now: now, of: recognizer)
        return Shown(view: view, contentOffset: steadied(view, model: recognizer.scrollView))
    }

    /// Whether the next frame is best latched late: only while fingers are down and resampled.
    /// An animation is stepped to the vblank exactly, whenever its frame is prepared.
    public func latchesFrame(of recognizer: GestureRecognizer) -> Bool {
        conditioning.resampler != nil && recognizer.isTouching
    }

    /// When `recognizer`'s model next needs a frame after the one shown at `t`: at once after a
    /// frame that showed the fingers ahead of the model, until the model catches up or the
    /// prediction is dropped (`TouchResampler`'s bounds), so a finger that stops is never left
    /// drawn ahead of itself; otherwise when the model asks.
    public func nextFrame(after t: Instant, of recognizer: GestureRecognizer) -> Instant? {
        isProjecting ? t : recognizer.scrollView.nextFrameTime(after: t)
    }

    /// The view a frame shown at `t` draws: the model, with the fingers that move it resampled
    /// to `t`.
    private mutating func projectedView(at t: Instant, now: Instant, of recognizer: GestureRecognizer) -> ScrollView {
        guard recognizer.isTouching, let fingers = conditioning.frame(at: t, now: now) else {
            isProjecting = false
            return recognizer.scrollView
        }
        let projected = recognizer.projected(fingers)
        let model = recognizer.scrollView
        isProjecting = projected.contentOffset != model.contentOffset || projected.zoomScale != model.zoomScale
        return projected
    }

    /// The offset a frame shows: `view`'s, except that a prediction never steps the content back
    /// against the way the reports move it (a panel whose report times and positions disagree a
    /// little would otherwise shake a steady drag); it holds instead.
    private mutating func steadied(_ view: ScrollView, model: ScrollView) -> Point {
        var shown = view.contentOffset
        if isProjecting, let last = lastFrame, last.zoomScale == model.zoomScale, view.zoomScale == model.zoomScale {
            shown = Self.held(shown, model: model.contentOffset, after: last)
        }
        lastFrame = isProjecting ? LastFrame(model: model.contentOffset, shown: shown, zoomScale: model.zoomScale) : nil
        return shown
    }

    /// `shown`, moved forward along the way the model went since `last` (the reports' heading)
    /// as far as it lies behind `last.shown`: never a step back against that heading.
    static func held(_ shown: Point, model: Point, after last: LastFrame) -> Point {
        let heading = model - last.model
        let length = heading.length
        guard length > 0 else { return shown }
        let behind = ((last.shown.x - shown.x) * heading.dx + (last.shown.y - shown.y) * heading.dy) / length
        return behind > 0 ? shown + heading * (behind / length) : shown
    }
}
