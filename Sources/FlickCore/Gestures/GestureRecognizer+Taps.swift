/// The recogniser's side of the tap/drag classifier: what each of its actions means for the
/// content, the journal and the scroll view — taps, double taps (zoom or the content's), long
/// presses, the scroll-to-top strip, and the start of a drag.
extension GestureRecognizer {
    /// Feeds the classifier one event and carries out its actions.
    mutating func classify(_ event: TapDragClassifier.Event, at t: Instant) {
        let before = classifier.state.name
        let (actions, invalid) = classifier.handle(event, at: t)
        if invalid { emit(.diagnostic("invalid tap event \(event) in state \(classifier.state)"), at: t) }
        if tracing, invalid || classifier.state.name != before {
            emit(.transition(Transition(.tap, at: t, from: before, on: event.name, to: classifier.state.name, invalid: invalid)),
                 at: t)
        }
        let inTopStrip = followedTouch?.inTopStrip ?? false
        for action in actions {
            if inTopStrip {
                topStrip(action, at: t)
                continue
            }
            switch action {
            case let .contentDown(p):
                emit(.content(.down(contentPoint(p))), at: t)
            case let .contentMove(p):
                emit(.content(.move(contentPoint(p))), at: t)
            case let .contentUp(p):
                emit(.content(.up(contentPoint(p))), at: t)
            case .contentCancel:
                emit(.content(.cancel), at: t)
            case let .quickTap(origin, lift):
                if isDoubleTap(at: origin) {
                    doubleTap(at: lift, contentHadTouch: false, time: t)
                } else {
                    emit(.content(.down(contentPoint(origin))), at: t)
                    emit(.content(.up(contentPoint(lift))), at: t)
                    tap(at: lift, time: t)
                }
            case let .tap(p):
                if isDoubleTap(at: p) { doubleTap(at: p, contentHadTouch: true, time: t) } else { tap(at: p, time: t) }
            case let .longPress(p):
                emit(.content(.longPress(contentPoint(p))), at: t)
                emit(.gesture(.longPress(contentPoint(p))), at: t)
            case let .beginDrag(excess):
                drive(at: t) { $0.drag(by: excess, at: t) }
            }
        }
    }

    /// A touch in the top strip: a tap scrolls to the top; the content gets nothing, as a
    /// phone's status bar keeps its taps from the app. A drag from there scrolls as usual.
    private mutating func topStrip(_ action: TapDragClassifier.Action, at t: Instant) {
        switch action {
        case .quickTap, .tap:
            lastTap = nil
            if drive(at: t, { $0.scrollToTop(at: t) }) { emit(.gesture(.scrollToTop), at: t) }
        case let .beginDrag(excess):
            drive(at: t) { $0.drag(by: excess, at: t) }
        case .contentDown, .contentMove, .contentUp, .contentCancel, .longPress:
            break
        }
    }

    private mutating func tap(at p: Point, time t: Instant) {
        let point = contentPoint(p)
        // Tested before the content hears the tap: a link's tap is the link's alone.
        if let link = links.hit(point, slop: Self.linkSlop / scrollView.zoomScale) {
            follow(link, tappedAt: point, time: t)
            return
        }
        emit(.content(.tap(point)), at: t)
        emit(.gesture(.tap(point)), at: t)
        lastTap = (t, p)
    }

    /// How far from a link, in screen pixels, a tap still follows it: a fingertip is wider
    /// than a line of text.
    public static let linkSlop = 8.0

    /// Follows a link: to its page, animated as `page N` is; any other link is only said.
    private mutating func follow(_ link: DocumentLinks.Area, tappedAt point: Point, time t: Instant) {
        // A second tap right after is not a double tap of the first: the view is on its way.
        lastTap = nil
        if let destination = link.destination {
            drive(at: t) { v in
                let target = v.clampedOffset(Point(x: destination.x * v.zoomScale, y: destination.y * v.zoomScale))
                try? v.setContentOffset(target, animated: true, at: t)
            }
        }
        emit(.gesture(.link(at: point, link)), at: t)
    }

    /// Whether a tap whose touch went down near `p` completes a double tap.
    private func isDoubleTap(at p: Point) -> Bool {
        guard let last = lastTap, let since = followedTouch?.since else { return false }
        let gap = since - last.time
        return gap >= configuration.doubleTapMinimumInterval && gap <= configuration.doubleTapInterval
            && p.distance(to: last.point) <= configuration.doubleTapSlop
    }

    private mutating func doubleTap(at p: Point, contentHadTouch: Bool, time t: Instant) {
        lastTap = nil
        let point = contentPoint(p)
        var zoomedTo: Double?
        switch configuration.doubleTapAction {
        case .content:
            if !contentHadTouch {
                emit(.content(.down(point)), at: t)
                emit(.content(.up(point)), at: t)
            }
            emit(.content(.doubleTap(point)), at: t)
        case .zoomToggle where abs(scrollView.zoomScale - doubleTapHomeScale) > doubleTapHomeScale * 0.000_001:
            // Back out about the finger too, so the two taps undo each other.
            let home = doubleTapHomeScale
            zoomedTo = home
            drive(at: t) { try? $0.setZoomScale(home, anchoredAt: p, animated: true, at: t) }
        case let .zoomToggle(step), let .zoomIn(step):
            // About the finger: the content under it stays under it, on every frame.
            let s = Swift.min(Swift.max(step.target(from: scrollView.zoomScale), scrollView.minimumZoomScale),
                              scrollView.maximumZoomScale)
            zoomedTo = s
            drive(at: t) { try? $0.setZoomScale(s, anchoredAt: p, animated: true, at: t) }
        }
        emit(.gesture(.doubleTap(point, zoomedTo: zoomedTo)), at: t)
    }

    /// The scale a toggling double tap goes back to: the configured home scale for the content
    /// shown (the start scale), else the minimum (Photos), within the limits.
    private var doubleTapHomeScale: Double {
        let view = scrollView
        let home = configuration.doubleTapHomeScale.map { view.zoomScale(for: $0) } ?? view.minimumZoomScale
        return Swift.min(Swift.max(home, view.minimumZoomScale), view.maximumZoomScale)
    }

    /// A screen point in content coordinates (zoom and offset applied).
    public func contentPoint(_ p: Point) -> Point {
        Point(x: (p.x + scrollView.contentOffset.x) / scrollView.zoomScale,
              y: (p.y + scrollView.contentOffset.y) / scrollView.zoomScale)
    }
}
