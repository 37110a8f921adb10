/// Turns touch frames into exactly one meaning per touch — a tap for the content, or motion of
/// the content — and drives the `ScrollView` with it.
///
/// Owns the tap/drag classifier, the velocity tracker and the pinch tracker. It is synchronous
/// and never reads a clock: feed it frames with `handle(_:)`, arm a timer for `nextDeadline`
/// and call `fireTimers(upTo:)` when it expires, call `advance(to:)` at each vblank while
/// `scrollView.isAnimating`, and read everything that happened, in order, from `takeOutputs()`.
/// Timers due at or before a frame's time fire before the frame (libinput's flush by event
/// time), so a replay decides exactly as the live run did.
public struct GestureRecognizer: Sendable {
    /// The scroll view it drives. Change it through `updateScrollView(at:_:)` so its messages
    /// keep their place in the output.
    public private(set) var scrollView: ScrollView
    /// The tunables.
    public private(set) var configuration: GestureConfiguration

    private var classifier: TapDragClassifier
    private var velocity: VelocityTracker
    /// The pan point moved to another finger without a position yet: take its next one as is.
    private var reanchorPan = false
    /// The finger the gesture follows, while there is one.
    private var primary: ContactID?
    private var pinch: PinchTracker?
    private var pinchStartScale: Double = 1
    /// The last pan point (the primary finger, or the pinch's centroid), screen pixels.
    private var panAnchor: Point = .zero
    /// The pan point's travel since touch-down, continuous across finger changes; the velocity
    /// tracker follows it.
    private var panTravel: Point = .zero
    /// Fingers that joined beyond the gesture's needs; ignored until they lift.
    private var ignored: Set<ContactID> = []
    private var touchDownTime: Instant = .zero
    private var stoppedMotion = false
    private var lastTap: (time: Instant, point: Point)?
    /// The gesture began in the scroll-to-top strip: the content never hears of it, and a tap
    /// scrolls to the top.
    private var inTopStrip = false
    private var motion = MotionSummary()
    private var outputs: [GestureOutput] = []
    private var diagnostics: [String] = []

    /// Creates a recogniser driving `scrollView`.
    public init(scrollView: ScrollView, configuration: GestureConfiguration = GestureConfiguration()) {
        self.scrollView = scrollView
        self.configuration = configuration
        classifier = TapDragClassifier(configuration: configuration)
        velocity = VelocityTracker(window: configuration.velocityWindow, capacity: configuration.velocitySamples,
                                   resetGap: configuration.velocityResetGap)
    }

    // MARK: Driving

    /// When the next gesture timer (content-touch delay, long press) is due, if one is armed.
    public var nextDeadline: Instant? { classifier.deadline }

    /// Whether a gesture is in progress (some finger is down and followed).
    public var isTouching: Bool { primary != nil }

    /// Fires every timer due at or before `t`, each at its own deadline.
    public mutating func fireTimers(upTo t: Instant) {
        while let deadline = classifier.deadline, deadline <= t {
            classify(.timer, at: deadline)
        }
    }

    /// Steps the scroll view's animations to `t` (a vblank).
    public mutating func advance(to t: Instant) {
        scrollView.advance(to: t)
        drainScrollView(at: t)
    }

    /// Applies a programmatic change to the scroll view (set offset, zoom, scroll to top, …) and
    /// keeps its delegate messages in order with the gestures'.
    public mutating func updateScrollView<T>(at t: Instant, _ body: (inout ScrollView) throws -> T) rethrows -> T {
        defer { drainScrollView(at: t) }
        return try body(&scrollView)
    }

    /// Replaces the tunables. A gesture in progress keeps the ones it started with.
    public mutating func setConfiguration(_ configuration: GestureConfiguration) {
        self.configuration = configuration
        if primary == nil { classifier = TapDragClassifier(configuration: configuration) }
    }

    /// Everything that happened since the last call, oldest first.
    public mutating func takeOutputs() -> [GestureOutput] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// Calls that made no sense in the current state (bugs upstream), for the log.
    public mutating func takeDiagnostics() -> [String] {
        diagnostics += scrollView.takeDiagnostics()
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    // MARK: Frames

    /// Consumes one frame: timers due before it fire first, then new fingers, motion, lifts.
    public mutating func handle(_ frame: TouchFrame) {
        let t = frame.time
        fireTimers(upTo: t)
        scrollView.advance(to: t)
        drainScrollView(at: t)
        for id in frame.began {
            guard let contact = frame.contacts.first(where: { $0.id == id }) ?? frame.ended.first(where: { $0.id == id })
            else { continue }
            fingerDown(contact, contacts: frame.contacts, at: t)
        }
        // A finger that turns into a palm mid-touch leaves the gesture as if cancelled.
        for contact in frame.contacts where contact.tool == .palm && isFollowed(contact.id) {
            fingerUp(contact, cancelled: true, remaining: frame.contacts, at: t)
        }
        motion(frame.contacts, at: t)
        for contact in frame.ended {
            if ignored.remove(contact.id) != nil { continue }
            guard isFollowed(contact.id) else { continue }
            fingerUp(contact, cancelled: frame.cancelled.contains(contact.id), remaining: frame.contacts, at: t)
        }
        drainScrollView(at: t)
    }

    private func isFollowed(_ id: ContactID) -> Bool {
        primary == id || pinch?.contains(id) == true
    }

    private mutating func fingerDown(_ contact: Contact, contacts: [Contact], at t: Instant) {
        guard contact.tool != .palm, contact.position.isFinite else {
            ignored.insert(contact.id)
            return
        }
        guard let primary else {
            // A new gesture. A touch while content moves stops it and is never a tap.
            stoppedMotion = scrollView.isAnimating
            inTopStrip = contact.position.y < configuration.scrollToTopStripHeight
            self.primary = contact.id
            touchDownTime = t
            panAnchor = contact.position
            panTravel = .zero
            velocity.reset()
            velocity.add(panTravel, at: t)
            scrollView.touchDown(at: t)
            drainScrollView(at: t)
            classify(.down(contact.position, stopsMotion: stoppedMotion), at: t)
            return
        }
        guard pinch == nil, configuration.pinchEnabled,
              let first = contacts.first(where: { $0.id == primary })?.position else {
            ignored.insert(contact.id)
            return
        }
        classify(.secondFinger, at: t)
        guard case .dragging = classifier.state else {
            // The content owns the touch: the second finger is just resting.
            ignored.insert(contact.id)
            return
        }
        let tracker = PinchTracker(Contact(id: primary, position: first), contact)
        pinch = tracker
        pinchStartScale = scrollView.zoomScale
        panAnchor = tracker.centroid
        scrollView.beginZooming(focus: tracker.centroid, at: t)
        drainScrollView(at: t)
    }

    private mutating func motion(_ contacts: [Contact], at t: Instant) {
        guard let primary else { return }
        if var tracker = pinch {
            guard let a = contacts.first(where: { $0.id == tracker.first })?.position,
                  let b = contacts.first(where: { $0.id == tracker.second })?.position else { return }
            let change = tracker.update(a, b)
            pinch = tracker
            scrollView.pinch(by: change.factor, focus: change.focus, at: t)
            scrollView.drag(by: change.translation, at: t)
            pan(to: change.focus, at: t)
            return
        }
        guard let p = contacts.first(where: { $0.id == primary })?.position else { return }
        let wasDragging = classifier.state == .dragging
        classify(.move(p), at: t)
        if wasDragging { scrollView.drag(by: p - panAnchor, at: t) }
        pan(to: p, at: t)
    }

    /// Moves the pan point, tracking its velocity.
    private mutating func pan(to p: Point, at t: Instant) {
        guard p.isFinite else { return }
        if reanchorPan {
            reanchorPan = false
            panAnchor = p
        }
        panTravel = panTravel + (p - panAnchor)
        panAnchor = p
        velocity.add(panTravel, at: t)
    }

    private mutating func fingerUp(_ contact: Contact, cancelled: Bool, remaining: [Contact], at t: Instant) {
        if let tracker = pinch {
            // One finger of the pinch left: the zoom ends, the other finger carries on panning
            // from where it is, so nothing jumps.
            pinch = nil
            let other = tracker.partner(of: contact.id)
            scrollView.endZooming(at: t)
            emit(.gesture(.pinch(fromScale: pinchStartScale, toScale: scrollView.zoomScale)), at: t)
            primary = other
            if let p = remaining.first(where: { $0.id == other })?.position {
                panAnchor = p
            } else {
                // Both fingers lifted in one frame: the partner's lift must not read as a jump
                // from the centroid to that finger (a phantom flick).
                reanchorPan = true
            }
            drainScrollView(at: t)
            return
        }
        let wasDragging = classifier.state == .dragging
        if cancelled {
            classify(.cancel, at: t)
        } else {
            pan(to: contact.position, at: t)
            classify(.lift(contact.position), at: t)
        }
        if wasDragging {
            if cancelled {
                scrollView.cancelTouch(at: t)
                emit(.gesture(.cancelled), at: t)
            } else {
                let v = velocity.velocity(at: t)
                scrollView.release(velocity: v, at: t)
                if let rest = scrollView.momentumRest, scrollView.isDecelerating {
                    emit(.gesture(.flick(velocity: v, restOffset: rest.offset, duration: rest.duration)), at: t)
                } else {
                    emit(.gesture(.drag(translation: Vector(dx: panTravel.x, dy: panTravel.y))), at: t)
                }
            }
        } else {
            if cancelled { scrollView.cancelTouch(at: t) } else { scrollView.release(velocity: .zero, at: t) }
            if stoppedMotion { emit(.gesture(.stop(at: contentPoint(contact.position))), at: t) }
        }
        primary = nil
        reanchorPan = false
        velocity.reset()
        drainScrollView(at: t)
    }

    // MARK: Classifier actions

    private mutating func classify(_ event: TapDragClassifier.Event, at t: Instant) {
        let (actions, invalid) = classifier.handle(event, at: t)
        if invalid { diagnostics.append("invalid tap event \(event) in state \(classifier.state)") }
        for action in actions {
            if inTopStrip {
                topStrip(action, at: t)
                continue
            }
            switch action {
            case let .contentDown(p):
                emit(.content(.down(contentPoint(p))), at: t)
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
                scrollView.drag(by: excess, at: t)
                drainScrollView(at: t)
            }
        }
    }

    /// A touch in the top strip: a tap scrolls to the top; the content gets nothing, as a
    /// phone's status bar keeps its taps from the app. A drag from there scrolls as usual.
    private mutating func topStrip(_ action: TapDragClassifier.Action, at t: Instant) {
        switch action {
        case .quickTap, .tap:
            lastTap = nil
            if scrollView.scrollToTop(at: t) { emit(.gesture(.scrollToTop), at: t) }
        case let .beginDrag(excess):
            scrollView.drag(by: excess, at: t)
            drainScrollView(at: t)
        case .contentDown, .contentUp, .contentCancel, .longPress:
            break
        }
    }

    private mutating func tap(at p: Point, time t: Instant) {
        emit(.content(.tap(contentPoint(p))), at: t)
        emit(.gesture(.tap(contentPoint(p))), at: t)
        lastTap = (t, p)
    }

    /// Whether a tap that went down at `touchDownTime` near `p` completes a double tap.
    private func isDoubleTap(at p: Point) -> Bool {
        guard let last = lastTap else { return false }
        let gap = touchDownTime - last.time
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
        case .zoomToggle where scrollView.zoomScale > scrollView.minimumZoomScale * 1.000_001:
            zoomedTo = scrollView.minimumZoomScale
            try? scrollView.setZoomScale(scrollView.minimumZoomScale, animated: true, at: t)
        case let .zoomToggle(scale), let .zoomIn(scale):
            let s = Swift.min(Swift.max(scale, scrollView.minimumZoomScale), scrollView.maximumZoomScale)
            zoomedTo = s
            let size = Size(width: scrollView.boundsSize.width / s, height: scrollView.boundsSize.height / s)
            let rect = Rect(x: point.x - size.width / 2, y: point.y - size.height / 2, width: size.width, height: size.height)
            try? scrollView.zoom(to: rect, animated: true, at: t)
        }
        emit(.gesture(.doubleTap(point, zoomedTo: zoomedTo)), at: t)
        drainScrollView(at: t)
    }

    // MARK: Output

    /// A screen point in content coordinates (zoom and offset applied).
    public func contentPoint(_ p: Point) -> Point {
        Point(x: (p.x + scrollView.contentOffset.x) / scrollView.zoomScale,
              y: (p.y + scrollView.contentOffset.y) / scrollView.zoomScale)
    }

    private mutating func emit(_ kind: GestureOutput.Kind, at t: Instant) {
        drainScrollView(at: t)
        outputs.append(GestureOutput(time: t, kind: kind))
    }

    private mutating func drainScrollView(at t: Instant) {
        let events = scrollView.takeEvents()
        for event in events {
            outputs.append(GestureOutput(time: t, kind: .scroll(event)))
        }
        for gesture in motion.observe(events, view: scrollView) {
            outputs.append(GestureOutput(time: t, kind: .gesture(gesture)))
        }
    }
}
