import FlickCore
import FlickDisplay

/// The pipeline's answers to the frame presenter: what a frame shows at the time it will be
/// shown (stepping the model there, once per frame: the only place the model's animations are
/// stepped), when the model wants its next frame, and what the presenter reports.
extension Pipeline: FramePresenterDelegate {
    public func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState {
        if recognizer.scrollView.isAnimating { emit(recognizer.advance(to: t)) }
        let v = presentedView(at: t)
        var state = RenderState(boundsSize: v.boundsSize, contentOffset: steadied(v), zoomScale: v.zoomScale,
                                contentSize: v.unscaledContentSize, indicatorOpacity: v.indicatorOpacity(at: t))
        state.contentInset = v.contentInset
        state.restingOffset = v.restingOffset
        if touchOverlay { state.touchMarks = trails.marks(at: t) }
        return state
    }

    public func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant? {
        // A frame that showed the fingers ahead of the model is followed by one more, until the
        // model catches up or the prediction is dropped (`TouchResampler`'s bounds).
        let model = projecting ? t : recognizer.scrollView.nextFrameTime(after: t)
        guard touchOverlay, let marks = trails.nextFrame(after: t) else { return model }
        return model.map { min($0, marks) } ?? marks
    }

    public func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool {
        // Only fingers are predicted: an animation is stepped to the vblank exactly, whenever
        // its frame is prepared.
        conditioning.resampler != nil && recognizer.isTouching
    }

    /// The view a frame shown at `t` draws: the model, with the fingers that move it resampled
    /// to `t` (docs/input.md, "Resampling").
    func presentedView(at t: Instant) -> ScrollView {
        guard recognizer.isTouching, let fingers = conditioning.frame(at: t, now: now) else {
            projecting = false
            return recognizer.scrollView
        }
        let projected = recognizer.projected(fingers)
        let model = recognizer.scrollView
        projecting = projected.contentOffset != model.contentOffset || projected.zoomScale != model.zoomScale
        return projected
    }

    /// The offset a frame shows: the presented view's, except that a prediction never steps
    /// the content back against the way the reports move it (a panel whose report times and
    /// positions disagree a little would otherwise shake a steady drag); it holds instead.
    func steadied(_ v: ScrollView) -> Point {
        let model = recognizer.scrollView
        var shown = v.contentOffset
        if projecting, let last = lastFrame, last.zoomScale == model.zoomScale, v.zoomScale == model.zoomScale {
            let heading = model.contentOffset - last.model
            let length = heading.length
            if length > 0 {
                let behind = ((last.shown.x - shown.x) * heading.dx + (last.shown.y - shown.y) * heading.dy) / length
                if behind > 0 { shown = shown + heading * (behind / length) }
            }
        }
        lastFrame = projecting ? (model.contentOffset, shown, model.zoomScale) : nil
        return shown
    }

    public func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant) {
        tiles?.framePresented(at: vblank)
        sink?.pipeline(self, presentedAt: vblank)
    }

    public func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note) {
        switch note {
        case let .transition(step):
            emit([GestureOutput(time: step.time, kind: .transition(step))])
        case let .frameRefused(text), let .frameLate(text), let .planesGivenUp(text), let .outputFailed(text):
            sink?.pipeline(self, noted: .display(text))
        }
    }
}
