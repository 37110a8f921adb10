/// `flickd calibrate`'s machine: asks for one touch on each target in turn and keeps where it
/// landed. Touch frames and the clock go in; what to show and say comes out. No I/O, no clock
/// of its own, so tests drive it with synthetic frames on a virtual clock. Its table is
/// `### calibrate` in docs/calibrate.md (the spec; `CalibrationTableTests` takes every edge).
///
///     waiting  ──one finger down──────────────▶ touching
///     waiting  ──two fingers, or far outside──▶ refusing      (said why)
///     waiting  ──down and up in one frame─────▶ waiting       (too short: ignored)
///     touching ──moves────────────────────────▶ touching      (a sample more)
///     touching ──lifts, held ≥ minimum────────▶ waiting next  (accepted: the samples' median)
///     touching ──lifts sooner─────────────────▶ waiting       (too short: ignored)
///     touching ──a second finger, far outside▶ refusing      (said why)
///     touching ──cancelled (device gone)──────▶ waiting / refusing while fingers stay down
///     refusing ──every finger up──────────────▶ waiting       (the same target asked again)
///     any but finished/failed ──deadline──────▶ failed        (timed out)
///     touching ──last target accepted─────────▶ finished
///
/// The deadline runs from when a target is first shown, so a finger resting on the panel
/// cannot hold the command forever.
public struct CalibrationSession: Sendable {
    /// The tunables.
    public struct Settings: Hashable, Sendable {
        /// Touches held for less are ignored (a bounce, a brush).
        public var minimumTouch = Duration.milliseconds(10)
        /// How long each target waits for its touch.
        public var timeout = Duration.seconds(30)
        /// How far beyond an edge, as a fraction of the screen, a touch is refused as outside it.
        public var outsideMargin = 0.1

        /// The defaults.
        public init() {}
    }

    /// Where the session stands.
    public enum State: Hashable, Sendable {
        /// Target `target` is shown; no finger is on it.
        case waiting(target: Int, deadline: Instant)
        /// One finger is down for `target`, with its positions so far.
        case touching(target: Int, deadline: Instant, contact: ContactID, since: Instant, samples: [Point])
        /// A touch was refused; the target is asked again once every finger is up.
        case refusing(target: Int, deadline: Instant)
        /// Every target has its touch.
        case finished
        /// A target timed out.
        case failed
    }

    /// What happens.
    public enum Event: Hashable, Sendable {
        /// A frame from the panel.
        case frame(TouchFrame)
        /// The clock reached `nextDeadline` (or later).
        case timer(Instant)
    }

    /// What the caller shows and says.
    public enum Step: Hashable, Sendable {
        /// Draw and announce target `target` (first time, or again after a refusal).
        case show(target: Int)
        /// Target `target` has its touch, at `touch` (screen px, as the panel reports it).
        case accepted(target: Int, touch: Point)
        /// A touch was ignored (too short); the target still waits.
        case ignored(target: Int, why: String)
        /// A touch was refused; the target is asked again once every finger is up.
        case refused(target: Int, why: String)
        /// Every target has its touch, in target order.
        case finished(touches: [Point])
        /// No touch came for `target` in time.
        case timedOut(target: Int)
    }

    /// The number of targets.
    public let count: Int
    /// The screen the touches are reported on, px.
    public let screen: Size
    /// The tunables.
    public let settings: Settings
    /// Where it stands.
    public private(set) var state: State
    /// The touches accepted so far, in target order.
    public private(set) var touches: [Point] = []
    /// Whether changes of state are kept for the trace (`takeTransitions`).
    public var tracing = false
    private var transitions: [Transition] = []

    /// Creates a session; `start(at:)` shows the first target.
    public init(count: Int, screen: Size, settings: Settings = Settings()) {
        self.count = count
        self.screen = screen
        self.settings = settings
        state = .waiting(target: 0, deadline: .zero)
    }

    /// Shows the first target; its deadline runs from `t`.
    public mutating func start(at t: Instant) -> [Step] {
        touches = []
        state = .waiting(target: 0, deadline: t + settings.timeout)
        return [.show(target: 0)]
    }

    /// When the caller must send `.timer`, if ever.
    public var nextDeadline: Instant? {
        switch state {
        case .waiting(_, let deadline), .touching(_, let deadline, _, _, _), .refusing(_, let deadline): deadline
        case .finished, .failed: nil
        }
    }

    /// The changes of state since the last call (only while `tracing`).
    public mutating func takeTransitions() -> [Transition] {
        defer { transitions.removeAll() }
        return transitions
    }

    /// Handles one event.
    public mutating func handle(_ event: Event) -> [Step] {
        let before = state
        defer {
            if tracing, Self.name(of: state) != Self.name(of: before) {
                let (name, t): (String, Instant) = switch event {
                case .frame(let frame): ("frame", frame.time)
                case .timer(let t): ("timer", t)
                }
                transitions.append(Transition(.calibrate, at: t, from: Self.name(of: before), on: name, to: Self.name(of: state)))
            }
        }
        switch (state, event) {
        case let (.waiting(target, deadline), .frame(frame)):
            return waiting(target, deadline, frame)
        case let (.touching(target, deadline, contact, since, samples), .frame(frame)):
            return touching(target, deadline, contact, since, samples, frame)
        case let (.refusing(target, deadline), .frame(frame)):
            guard frame.contacts.isEmpty else { return [] }
            state = .waiting(target: target, deadline: deadline)
            return [.show(target: target)]
        case let (.waiting(target, deadline), .timer(t)),
             let (.touching(target, deadline, _, _, _), .timer(t)),
             let (.refusing(target, deadline), .timer(t)):
            guard t >= deadline else { return [] }
            state = .failed
            return [.timedOut(target: target)]
        case (.finished, .frame), (.finished, .timer), (.failed, .frame), (.failed, .timer):
            return []
        }
    }

    private mutating func waiting(_ target: Int, _ deadline: Instant, _ frame: TouchFrame) -> [Step] {
        if frame.contacts.count > 1 {
            state = .refusing(target: target, deadline: deadline)
            return [.refused(target: target, why: "\(frame.contacts.count) fingers down: touch the target with one")]
        }
        if let contact = frame.contacts.first {
            if let why = outside(contact.position) {
                state = .refusing(target: target, deadline: deadline)
                return [.refused(target: target, why: why)]
            }
            state = .touching(target: target, deadline: deadline, contact: contact.id, since: frame.time,
                              samples: [contact.position])
            return []
        }
        // Down and up within one report: no time held at all.
        return frame.ended.isEmpty ? [] : [.ignored(target: target, why: "a touch too short to be meant (down and up at once)")]
    }

    private mutating func touching(_ target: Int, _ deadline: Instant, _ contact: ContactID, _ since: Instant,
                                   _ samples: [Point], _ frame: TouchFrame) -> [Step] {
        if frame.cancelled.contains(contact) {
            state = frame.contacts.isEmpty ? .waiting(target: target, deadline: deadline) : .refusing(target: target, deadline: deadline)
            return [.refused(target: target, why: "the touch was cancelled (device removed or events dropped)")]
        }
        let others = frame.contacts.filter { $0.id != contact }.count
            + frame.ended.filter { $0.id != contact && frame.began.contains($0.id) }.count
        if others > 0 {
            state = .refusing(target: target, deadline: deadline)
            return [.refused(target: target, why: "a second finger touched: touch the target with one")]
        }
        let lifted = frame.ended.first { $0.id == contact }
        guard let position = lifted?.position ?? frame.contacts.first(where: { $0.id == contact })?.position else {
            return []
        }
        if let why = outside(position) {
            state = lifted == nil ? .refusing(target: target, deadline: deadline) : .waiting(target: target, deadline: deadline)
            return [.refused(target: target, why: why)] + (lifted == nil ? [] : [.show(target: target)])
        }
        let all = samples + [position]
        guard lifted != nil else {
            state = .touching(target: target, deadline: deadline, contact: contact, since: since, samples: all)
            return []
        }
        let held = frame.time - since
        guard held >= settings.minimumTouch else {
            state = .waiting(target: target, deadline: deadline)
            return [.ignored(target: target, why: "a touch of \(held.inMilliseconds.brief) ms, shorter than "
                                + "\(settings.minimumTouch.inMilliseconds.brief) ms: not counted")]
        }
        let touch = Self.median(all)
        touches.append(touch)
        var steps = [Step.accepted(target: target, touch: touch)]
        if target + 1 < count {
            state = .waiting(target: target + 1, deadline: frame.time + settings.timeout)
            steps.append(.show(target: target + 1))
        } else {
            state = .finished
            steps.append(.finished(touches: touches))
        }
        return steps
    }

    /// A state's name in the table.
    static func name(of state: State) -> String {
        switch state {
        case .waiting: "waiting"
        case .touching: "touching"
        case .refusing: "refusing"
        case .finished: "finished"
        case .failed: "failed"
        }
    }

    /// Why a point is refused as far outside the screen, or nil when it is on it (or near).
    private func outside(_ p: Point) -> String? {
        let mx = settings.outsideMargin * screen.width, my = settings.outsideMargin * screen.height
        guard p.x.isFinite, p.y.isFinite else { return "a touch with no finite position" }
        if p.x < -mx || p.x > screen.width + mx || p.y < -my || p.y > screen.height + my {
            return "a touch at (\(p.x.brief), \(p.y.brief)), far outside the "
                + "\(screen.width.brief)x\(screen.height.brief) screen"
        }
        return nil
    }

    /// The per-axis median: one stray report does not move the touch.
    static func median(_ points: [Point]) -> Point {
        func mid(_ values: [Double]) -> Double {
            let v = values.sorted()
            guard !v.isEmpty else { return 0 }
            return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
        }
        return Point(x: mid(points.map(\.x)), y: mid(points.map(\.y)))
    }
}
