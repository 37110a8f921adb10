/// Turns touch frames into exactly one meaning per touch — a tap for the content, or motion of
/// the content — and drives the `ScrollView` with it.
///
/// Which fingers make the gesture is a state machine (`Phase`; its table is `### gesture` in
/// docs/gesture-recognizer.md, which `GestureTableTests` holds the code to): nothing down, one
/// finger followed, or two fingers pinching. What one touch means is the tap/drag classifier's
/// machine, and the scroll view has its own two.
///
/// It is synchronous and never reads a clock. Every call that drives it — a frame
/// (`handle(_:)`), the timer it asked for (`fireTimers(upTo:)`), a frame of the display
/// (`advance(to:)`), a programmatic change (`update(at:_:)`) — returns everything that call
/// caused, in order, once: content touches, delegate messages, gestures for the journal,
/// diagnostics and, while `tracing`, the machines' steps. Timers due at or before a frame's time
/// fire before the frame (libinput's flush by event time), so a replay decides exactly as the
/// live run did.
public struct GestureRecognizer: Sendable {
    /// The scroll view it drives. Change it through `update(at:_:)` so its messages keep their
    /// place in the output.
    public private(set) var scrollView: ScrollView
    /// The tunables.
    public private(set) var configuration: GestureConfiguration
    /// Whether every machine's steps are reported (`Transition`s in the output).
    public var tracing = false {
        didSet { scrollView.tracing = tracing }
    }

    /// Which fingers make the gesture.
    enum Phase: Hashable, Sendable {
        /// No finger is followed.
        case idle
        /// One finger is followed; the classifier decides whether it taps or scrolls.
        case following(Touch)
        /// Two fingers pinch, and pan with their centroid.
        case pinching(Touch, Pinch)

        var name: String {
            switch self {
            case .idle: "idle"
            case .following: "following"
            case .pinching: "pinching"
            }
        }
    }

    /// The machine's alphabet: what a frame says of one finger (the columns of its table).
    enum Event: String, Sendable {
        /// It began.
        case down
        /// It moved.
        case move
        /// It ended.
        case lift
        /// It ended cancelled (device removed, events dropped).
        case cancel
        /// A followed finger became a palm.
        case palm
    }

    /// What a gesture remembers from its first finger down to its last lift.
    struct Touch: Hashable, Sendable {
        /// The finger the gesture follows (after a pinch, the one that stayed).
        var primary: ContactID
        /// When the gesture began (for double taps).
        var since: Instant
        /// The gesture began by stopping moving content: it is never a tap.
        var stoppedMotion: Bool
        /// The gesture began in the scroll-to-top strip: the content never hears of it.
        var inTopStrip: Bool
        /// The last pan point (the finger, or the pinch's centroid), screen pixels; nil when the
        /// pan point moved to a finger whose position is not known yet (both pinch fingers
        /// lifted in one frame): its next position is taken as is, so nothing jumps.
        var anchor: Point?
        /// The pan point's travel since touch-down, continuous across finger changes; the
        /// velocity tracker follows it.
        var travel: Point
    }

    /// The two fingers of a pinch and the scale it started from.
    struct Pinch: Hashable, Sendable {
        var tracker: PinchTracker
        var startScale: Double
    }

    /// The current phase.
    private(set) var phase: Phase = .idle
    /// One touch: the content's or the scroll's (its own machine).
    var classifier: TapDragClassifier
    private var velocity: VelocityTracker
    /// Fingers that are down and not followed (palms, fingers beyond the gesture's needs); they
    /// are forgotten when they lift.
    private var ignored: Set<ContactID> = []
    /// The last tap, for double taps.
    var lastTap: (time: Instant, point: Point)?
    /// The links of the content on screen (a document's): a tap on one follows it.
    public var links = DocumentLinks()
    /// What a motion amounted to, for the journal (it spans gestures: momentum outlives a lift).
    private var motion = MotionSummary()
    /// The pointer's touchpad gesture (its own machine, `PointerPhase`).
    var pointer = PointerPhase.idle
    /// What the current call caused so far.
    var outbox: [GestureOutput] = []
    /// The outputs' clock: what a call hands out is stamped no earlier than what came before.
    private var clock = OutputClock()

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
    public var isTouching: Bool { phase != .idle }

    /// Consumes one frame: timers due before it fire first, then new fingers, motion, lifts.
    /// - Returns: everything it caused, in order.
    public mutating func handle(_ frame: TouchFrame) -> [GestureOutput] {
        let t = frame.time
        fire(upTo: t)
        // A finger that touches down ends a touchpad's scroll or pinch first.
        if !frame.began.isEmpty { pointerYields(at: t) }
        for id in frame.began {
            guard let contact = frame.contacts.first(where: { $0.id == id }) ?? frame.ended.first(where: { $0.id == id })
            else { continue }
            fingerDown(contact, contacts: frame.contacts, at: t)
        }
        // A finger that turns into a palm mid-touch leaves the gesture as if cancelled.
        for contact in frame.contacts where contact.tool == .palm && isFollowed(contact.id) {
            fingerUp(contact, on: .palm, remaining: frame.contacts, at: t)
        }
        motion(frame.contacts, at: t)
        for contact in frame.ended {
            if ignored.remove(contact.id) != nil { continue }
            guard isFollowed(contact.id) else { continue }
            let cancelled = frame.cancelled.contains(contact.id)
            fingerUp(contact, on: cancelled ? .cancel : .lift, remaining: frame.contacts, at: t)
        }
        return takeOutbox()
    }

    /// Fires every timer due at or before `t`, each at its own deadline.
    /// - Returns: everything it caused, in order.
    public mutating func fireTimers(upTo t: Instant) -> [GestureOutput] {
        fire(upTo: t)
        return takeOutbox()
    }

    /// Steps the scroll view's animations to `t`, the time the frame being prepared will be
    /// shown. The frame presenter calls it once per frame.
    /// - Returns: everything it caused, in order.
    public mutating func advance(to t: Instant) -> [GestureOutput] {
        drive(at: t) { $0.advance(to: t) }
        return takeOutbox()
    }

    /// Applies a programmatic change to the scroll view (set offset, zoom, scroll to top, …) at
    /// `t`, keeping its delegate messages in order with the gestures'.
    /// - Returns: everything it caused, in order.
    public mutating func update(at t: Instant, _ body: (inout ScrollView) throws -> Void) rethrows -> [GestureOutput] {
        try drive(at: t, body)
        return takeOutbox()
    }

    /// The scroll view as it would be had `frame` (moves of the fingers that are down) been
    /// reported: what a frame shows when the fingers are resampled to its presentation time
    /// (`TouchPrediction` asks). The recogniser itself is left as it is, and what the move
    /// would cause is not said.
    public func projected(_ frame: TouchFrame) -> ScrollView {
        var copy = self
        copy.tracing = false
        _ = copy.handle(frame)
        return copy.scrollView
    }

    /// Replaces the tunables. A gesture in progress keeps the ones it started with.
    public mutating func setConfiguration(_ configuration: GestureConfiguration) {
        // The classifier is made from it when the next gesture begins (`fingerDown`).
        self.configuration = configuration
    }

    mutating func fire(upTo t: Instant) {
        while let deadline = classifier.deadline, deadline <= t {
            classify(.timer, at: deadline)
        }
    }

    // MARK: Fingers

    private func isFollowed(_ id: ContactID) -> Bool {
        switch phase {
        case .idle: false
        case let .following(touch): touch.primary == id
        case let .pinching(touch, pinch): touch.primary == id || pinch.tracker.contains(id)
        }
    }

    private mutating func fingerDown(_ contact: Contact, contacts: [Contact], at t: Instant) {
        guard contact.tool != .palm, contact.position.isFinite else {
            ignored.insert(contact.id)
            return
        }
        switch phase {
        case .idle:
            // A new gesture. A touch while content visibly moves stops it and is never the
            // content's (UIKit); on content creeping slower than the eye follows it stops it
            // and is an ordinary touch (docs/ARCHITECTURE.md, differences from UIKit).
            let catches = scrollView.isAnimating(at: t) && scrollView.visibleSpeed(at: t) >= configuration.imperceptibleSpeed
            // With scrollsToTop off the strip is content like the rest (UIKit's status bar tap
            // does nothing then).
            let touch = Touch(primary: contact.id, since: t, stoppedMotion: catches,
                              inTopStrip: scrollView.scrollsToTop && contact.position.y < configuration.scrollToTopStripHeight,
                              anchor: contact.position, travel: .zero)
            enter(.following(touch), on: .down, at: t)
            // Each gesture decides with the tunables in force when it began.
            classifier = TapDragClassifier(configuration: configuration)
            velocity.reset()
            velocity.add(touch.travel, at: t)
            // A touch that does not catch the motion finishes a bounce whose tail it cannot see.
            let unseen = configuration.imperceptibleSpeed
            drive(at: t) { $0.touchDown(at: t, unseenSpeed: unseen) }
            classify(.down(contact.position, stopsMotion: touch.stoppedMotion, scrolls: scrollableAxes), at: t)
        case var .following(touch):
            guard configuration.pinchEnabled,
                  let first = contacts.first(where: { $0.id == touch.primary })?.position else {
                ignored.insert(contact.id)
                return
            }
            classify(.secondFinger, at: t)
            guard case .dragging = classifier.state else {
                // The content owns the touch: the second finger is just resting.
                ignored.insert(contact.id)
                return
            }
            let tracker = PinchTracker(Contact(id: touch.primary, position: first), contact)
            touch.anchor = tracker.centroid
            enter(.pinching(touch, Pinch(tracker: tracker, startScale: scrollView.zoomScale)), on: .down, at: t)
            drive(at: t) { $0.beginZooming(focus: tracker.centroid, at: t) }
        case .pinching:
            ignored.insert(contact.id)
        }
    }

    private mutating func motion(_ contacts: [Contact], at t: Instant) {
        switch phase {
        case .idle:
            break
        case .pinching(let touch, var pinch):
            guard let a = contacts.first(where: { $0.id == pinch.tracker.first })?.position,
                  let b = contacts.first(where: { $0.id == pinch.tracker.second })?.position else { return }
            let change = pinch.tracker.update(a, b)
            phase = .pinching(touch, pinch)
            // A pinch is also a pan: the scale about where the centroid was, then the pan to
            // where it is, keeps the content that began under the fingers under them.
            drive(at: t) { $0.pinch(by: change.factor, from: change.from, to: change.to, at: t) }
            pan(to: change.to, at: t)
        case let .following(touch):
            guard let p = contacts.first(where: { $0.id == touch.primary })?.position else { return }
            let wasDragging = classifier.state == .dragging
            // A drag's moves skip the classifier (its table says "—" there, with no action) and
            // go straight to the content; every other move is the classifier's to decide on or
            // to hand to the content. A report that leaves the finger where it was (its down's
            // own frame, another finger's motion) is no move: the content hears motion only.
            if classifier.hearsMoves, p != touch.anchor { classify(.move(p), at: t) }
            if wasDragging, let anchor = touch.anchor { drive(at: t) { $0.drag(by: p - anchor, at: t) } }
            pan(to: p, at: t)
        }
    }

    /// Moves the pan point, tracking its velocity.
    private mutating func pan(to p: Point, at t: Instant) {
        guard p.isFinite else { return }
        func moved(_ touch: inout Touch) {
            let anchor = touch.anchor ?? p
            touch.travel = touch.travel + (p - anchor)
            touch.anchor = p
            velocity.add(touch.travel, at: t)
        }
        switch phase {
        case .idle: break
        case var .following(touch): moved(&touch); phase = .following(touch)
        case .pinching(var touch, let pinch): moved(&touch); phase = .pinching(touch, pinch)
        }
    }

    private mutating func fingerUp(_ contact: Contact, on event: Event, remaining: [Contact], at t: Instant) {
        // A palm ends the touch as a cancel does: no tap, no flick.
        let cancelled = event != .lift
        switch phase {
        case .idle:
            return
        case .pinching(var touch, let pinch):
            // One finger of the pinch left: the zoom ends, the other finger carries on panning
            // from where it is, so nothing jumps. When both lifted in one frame, the partner's
            // lift must not read as a jump from the centroid to that finger (a phantom flick).
            touch.primary = pinch.tracker.partner(of: contact.id)
            touch.anchor = remaining.first(where: { $0.id == touch.primary })?.position
            enter(.following(touch), on: event, at: t)
            drive(at: t) { $0.endZooming(at: t) }
            emit(.gesture(.pinch(fromScale: pinch.startScale, toScale: scrollView.zoomScale)), at: t)
        case let .following(touch):
            let wasDragging = classifier.state == .dragging
            if cancelled {
                classify(.cancel, at: t)
            } else {
                pan(to: contact.position, at: t)
                // A touch that did not drag leaves the scroll view before its tap acts, as
                // UIKit's tap recognisers fire after touchesEnded: a double tap's zoom or the
                // strip's scroll to top then animates, where under a finger it would jump.
                // Content the touch held out of bounds goes back after the tap, unless the
                // tap's animation already takes it.
                if !wasDragging { drive(at: t) { $0.liftForTap(at: t) } }
                classify(.lift(contact.position), at: t)
                if !wasDragging { drive(at: t) { $0.settle(at: t) } }
            }
            let travel = followedTouch?.travel ?? touch.travel
            enter(.idle, on: event, at: t)
            if wasDragging {
                if cancelled {
                    drive(at: t) { $0.cancelTouch(at: t) }
                    emit(.gesture(.cancelled), at: t)
                } else {
                    let v = velocity.velocity(at: t)
                    let released = outbox.count
                    drive(at: t) { $0.release(velocity: v, at: t) }
                    if let applied = Self.momentum(outbox[released...]), let rest = scrollView.momentumRest, scrollView.isDecelerating {
                        emit(.gesture(.flick(velocity: applied, restOffset: rest.offset, duration: rest.duration)), at: t)
                    } else {
                        emit(.gesture(.drag(translation: Vector(dx: travel.x, dy: travel.y))), at: t)
                    }
                }
            } else {
                if cancelled { drive(at: t) { $0.cancelTouch(at: t) } }
                if touch.stoppedMotion { emit(.gesture(.stop(at: contentPoint(contact.position))), at: t) }
            }
            velocity.reset()
        }
    }

    /// The axes a drag starting now could scroll along (UIKit's pan recogniser only begins
    /// along them).
    private var scrollableAxes: TapDragClassifier.Axes {
        var axes: TapDragClassifier.Axes = []
        if scrollView.canScroll(.horizontal) { axes.insert(.horizontal) }
        if scrollView.canScroll(.vertical) { axes.insert(.vertical) }
        return axes
    }

    /// The touch of the gesture in progress, if any.
    var followedTouch: Touch? {
        switch phase {
        case .idle: nil
        case let .following(touch), let .pinching(touch, _): touch
        }
    }

    /// Moves to `next`, traced when the machine's state changes.
    private mutating func enter(_ next: Phase, on event: Event, at t: Instant) {
        if tracing, next.name != phase.name {
            outbox.append(GestureOutput(time: t, kind: .transition(Transition(.gesture, at: t, from: phase.name, on: event.rawValue,
                                                                              to: next.name))))
        }
        phase = next
    }

    // MARK: The outbox

    /// Changes the scroll view and hands on what it reported at once, in order. It is the only
    /// way the recogniser touches its model, so nothing the model says waits for a later drain.
    mutating func drive<T>(at t: Instant, _ body: (inout ScrollView) throws -> T) rethrows -> T {
        defer { collect(at: t) }
        return try body(&scrollView)
    }

    /// Appends one output of the recogniser's own, with the scroll view's state now. A content
    /// touch carries the id of the finger it belongs to (the followed one: the content never
    /// has a pinch's second finger).
    mutating func emit(_ kind: GestureOutput.Kind, at t: Instant) {
        var output = GestureOutput(time: t, kind: kind, state: scrollView.state)
        if case .content = kind { output.contact = followedTouch?.primary }
        outbox.append(output)
    }

    /// The model's reports as outputs, and what its motion amounted to once it rests.
    private mutating func collect(at t: Instant) {
        let reports = scrollView.takeReports()
        guard !reports.isEmpty else { return }
        var events: [ScrollEvent] = []
        for report in reports {
            switch report {
            case let .event(event, time, state):
                // The message keeps the time and state it was sent with, not the call's end.
                events.append(event)
                outbox.append(GestureOutput(time: time, kind: .scroll(event), state: state))
            case let .state(state, time):
                outbox.append(GestureOutput(time: time, kind: .state(state), state: state))
            case let .transition(step):
                emit(.transition(step), at: t)
            case let .diagnostic(note):
                emit(.diagnostic(note), at: t)
            }
        }
        for gesture in motion.observe(events, view: scrollView) { emit(.gesture(gesture), at: t) }
    }

    /// The momentum a lift gave the content, in the finger's direction (`Gesture.flick`'s
    /// velocity), or nil when it gave none (`Gesture`'s rule): the model's own `willEndDragging`
    /// among what the lift caused carries the velocity it applied — the finger's reversed, only
    /// along the axes that scroll, clamped to `maximum_fling_velocity` — zero when the finger was
    /// slower than the fling minimum. A spring or page snap after a still lift decelerates too,
    /// but with none of the finger's momentum.
    static func momentum(_ outputs: ArraySlice<GestureOutput>) -> Vector? {
        for output in outputs {
            if case let .scroll(.willEndDragging(velocity, _)) = output.kind { return velocity == .zero ? nil : -velocity }
        }
        return nil
    }

    /// Hands out what the call caused, each output stamped no earlier than the one before
    /// (`OutputClock`).
    mutating func takeOutbox() -> [GestureOutput] {
        defer { outbox.removeAll(keepingCapacity: true) }
        clock.stamp(&outbox)
        return outbox
    }
}
