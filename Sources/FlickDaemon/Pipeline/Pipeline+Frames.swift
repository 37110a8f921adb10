import FlickCore
import FlickDisplay

/// The pipeline's answers to the frame presenter: what a frame shows at the time it will be
/// shown (stepping the model there, once per frame: the only place the model's animations are
/// stepped), when the model wants its next frame, and what the presenter reports. What the
/// fingers add to a frame — its prediction, late latching, the frames owed after a
/// prediction — is `TouchPrediction`'s to answer.
extension Pipeline: FramePresenterDelegate {
    public func presenter(_ presenter: FramePresenter, frameFor t: Instant) -> RenderState {
        if recognizer.scrollView.isAnimating { emit(recognizer.advance(to: t)) }
        let shown = prediction.frame(at: t, now: now, of: recognizer)
        return renderState(of: shown.view, contentOffset: shown.contentOffset, at: t)
    }

    /// What a frame shown at `t` draws of `v`, its content at `contentOffset` (the fingers'
    /// resampled offset, or the model's own); the presenter adds its colours.
    func renderState(of v: ScrollView, contentOffset: Point, at t: Instant) -> RenderState {
        var state = RenderState(boundsSize: v.boundsSize, contentOffset: contentOffset, zoomScale: v.zoomScale,
                                contentSize: v.unscaledContentSize, indicatorOpacity: v.indicatorOpacity(at: t))
        state.contentInset = v.contentInset
        state.restingOffset = v.restingOffset
        if touchOverlay { state.touchMarks = trails.marks(at: t) }
        // A frame with no link flashing does not ask: the path of one touch stays as it was.
        if linkFlash.area != nil { state.linkHighlights = linkFlash.marks(at: t, offset: contentOffset, zoomScale: v.zoomScale) }
        if power != nil { state.blank = showsBlack }
        return state
    }

    public func presenter(_ presenter: FramePresenter, nextFrameAfter t: Instant) -> Instant? {
        let model = prediction.nextFrame(after: t, of: recognizer)
        let marks = touchOverlay ? trails.nextFrame(after: t) : nil
        let flash = linkFlash.area != nil ? linkFlash.nextFrame(after: t) : nil
        return [model, marks, flash].compactMap { $0 }.min()
    }

    public func presenter(_ presenter: FramePresenter, latchesFrameFor t: Instant) -> Bool {
        prediction.latchesFrame(of: recognizer)
    }

    public func presenter(_ presenter: FramePresenter, didPresentAt vblank: Instant) {
        tiles?.framePresented(at: vblank)
        if power != nil { powerPresented(at: vblank) }
        sink?.pipeline(self, presentedAt: vblank)
    }

    public func presenter(_ presenter: FramePresenter, didNote note: FramePresenter.Note) {
        switch note {
        case let .transition(step):
            emit([GestureOutput(time: step.time, kind: .transition(step))])
        case let .frameRefused(text), let .frameLate(text), let .planesGivenUp(text), let .outputFailed(text),
             let .flipLost(text), let .outputNote(text):
            sink?.pipeline(self, noted: .display(text))
        }
    }
}
