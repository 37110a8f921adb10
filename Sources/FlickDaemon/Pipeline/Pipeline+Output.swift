import FlickCore
import FlickDisplay

/// A pipeline's panel changes while it runs (monitors that come and go): a monitor
/// connected after the start, unplugged, or swapped for one with another preferred mode. The
/// model, the content, the input and the compositor stay; the presenter gets a new composer for
/// the new output, and the view is laid out for its size.
extension Pipeline {
    /// Whether a panel is attached (false while `DisconnectedOutput` stands in for one).
    public var isConnected: Bool { presenter.output.isConnected }

    /// Draws on `output` from now on, or on nothing (`DisconnectedOutput`): the view takes the
    /// new logical size (the panel rotation's), its zoom limits and centring are worked out
    /// again (`framing`), and the offset is clamped — a view that was at its home view goes to
    /// the new home view, so a monitor swapped for a bigger one shows the content framed as at
    /// the start; the indicators take `indicatorStyle` (sized for the new panel). With no panel
    /// touches and commands still move the model, laid out for the size the `DisconnectedOutput`
    /// keeps (the last panel's, or the configured one before any): commands jump instead of
    /// animating (`CommandHandler`), a motion ends at its end with one wake-up
    /// (`unseenMotionEnd`), nothing is drawn. The panel that comes then shows the view where it
    /// came to rest: its zoom, and the content point at its top-left (the offset) clamped into
    /// the new bounds. Says so once (`Notice.output`). The caller closes the old output, and
    /// maps the touchscreen onto the new size (`PipelineBuilder.attach`).
    /// - Throws: `ScrollViewError` when the new size does not fit the model (the output is
    ///   attached all the same, the view as it was).
    public func attach(_ output: any Output, indicatorStyle: IndicatorStyle, note: String, at t: Instant) throws {
        observe(t)
        // A motion no panel showed is taken where it comes to rest; one a panel showed, where it
        // is (the new panel must not open on a jump).
        let seen = isConnected
        presenter.attach(output, at: now)
        // A monitor that comes while the panel is off by DPMS stays dark: its modeset lit it.
        if let power, power.isOff, power.way == .dpms, output.isConnected { try? output.setActive(false) }
        presenter.composer.compositor.indicatorStyle = indicatorStyle
        sink?.pipeline(self, noted: .output(note))
        let size = presenter.viewSize
        let framing = framing
        defer {
            presenter.setNeedsDisplay(at: now, redraw: true)
            flush()
        }
        // The layout is no activity of a person's: attract mode keeps counting.
        emit(try recognizer.update(at: now) { [now] v throws in
            let home = framing.home(of: v)
            let (offset, zoomScale) = seen ? (v.contentOffset, v.zoomScale) : v.destination
            let wasHome = abs(home.zoomScale - zoomScale) < 1e-9 && home.offset.isClose(to: offset)
            try v.setBoundsSize(size)
            try framing.apply(to: &v)
            if wasHome {
                let next = framing.home(of: v)
                try v.setZoomScale(next.zoomScale, contentOffset: next.offset, animated: false, at: now)
            } else {
                v.restore(offset: offset, zoomScale: zoomScale, at: now)
            }
        })
    }
}

extension Point {
    /// Within a hundredth of a pixel on both axes.
    func isClose(to other: Point) -> Bool { abs(x - other.x) < 0.01 && abs(y - other.y) < 0.01 }
}
