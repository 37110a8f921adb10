import FlickCore
import FlickDisplay

extension Pipeline {
    /// The picture the control socket's `snapshot` writes: the panel's, once it shows the model
    /// as it is now. A command applied without animation commits its frame for the next vblank,
    /// or leaves it to follow the frame in flight; until then the panel shows the frame before,
    /// so a client that asks at once is given that frame composed here from the model instead.
    /// `nil` when no panel shows anything (closed, or none attached).
    public func snapshot() -> PixelBuffer? {
        let output = presenter.output
        // Dark, the panel shows what the power state left there, whatever the model does.
        guard output.isConnected, !presenter.isSuspended, !presenter.showsLatestFrame else { return output.snapshot() }
        var state = renderState(of: scrollView, contentOffset: scrollView.contentOffset, at: now)
        state.background = presenter.background
        return presenter.composer.composedCopy(of: state)
    }
}
