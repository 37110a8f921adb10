/// The panel's power: on, dimmed or off, by the idle timers (`power.dim_after_s`,
/// `power.off_after_s`), the daily schedule (`power.on_hours`), touches and `flickctl display`.
/// Its table (`### power` in docs/power.md) is the spec: every change to this machine changes it
/// in the same commit, and `PowerTableTests` holds the two together and takes every edge.
///
/// Pure: it is told the time with each event and says when it wants the next `timer`
/// (`nextDeadline`), nil when nothing is due — an idle panel that is off waits for nothing but
/// the schedule's next boundary. Activity (a real touch's first report, a command) restarts the
/// idle timers. It also keeps what the wake guard needs: when the panel was last lit from off
/// (`litAt`); which touches are swallowed is the pipeline's to apply (`swallowsTouch(at:)`).
public struct DisplayPower: Sendable {
    /// What the panel shows.
    public enum State: String, Hashable, Sendable {
        /// Before the first `start`.
        case starting
        /// Lit at its full brightness.
        case on
        /// Lit at `power.dim_brightness` (only with a backlight).
        case dim
        /// Dark: nothing is drawn.
        case off
    }

    /// What happens to the panel.
    public enum Event: String, Hashable, Sendable {
        /// The daemon started.
        case start
        /// A real touch began (phantoms never reach the machine).
        case touch
        /// `flickctl display on`.
        case on
        /// `flickctl display dim`.
        case dim
        /// `flickctl display off`.
        case off
        /// The deadline the machine asked for came.
        case timer
    }

    /// Why the state changed, as the `power` event says it.
    public enum Reason: String, Hashable, Sendable {
        case idle, schedule, touch, command, start
    }

    /// A change of state the panel must follow.
    public struct Change: Hashable, Sendable {
        /// The new state (never `starting`).
        public var state: State
        /// Why.
        public var reason: Reason
        /// When.
        public var time: Instant
    }

    /// The tunables, as the config gives them.
    public struct Settings: Hashable, Sendable {
        /// Idle time before dimming; nil never dims.
        public var dimAfter: Duration?
        /// Idle time before going off; nil never (within the hours).
        public var offAfter: Duration?
        /// Whether a touch lights the panel outside the hours.
        public var wakeOutsideHours = true
        /// How long a panel woken outside the hours stays on when `offAfter` is nil.
        public var outsideHoursTimeout: Duration = .seconds(60)
        /// How long after the panel is lit from off a new touch is still swallowed.
        public var wakeGuard: Duration = .milliseconds(300)
        /// Whether the panel can dim (it has a backlight).
        public var canDim = true

        /// Settings that never dim and never go off: power management off.
        public init(dimAfter: Duration? = nil, offAfter: Duration? = nil) {
            self.dimAfter = dimAfter
            self.offAfter = offAfter
        }
    }

    /// Where the panel stands.
    public private(set) var state = State.starting
    /// The last touch or command (or the last change by the schedule or the start).
    public private(set) var lastActivity: Instant
    /// When the panel was last lit from off, for the wake guard.
    public private(set) var litAt: Instant?
    /// When the machine wants its next `timer`, if ever.
    public private(set) var nextDeadline: Instant?
    /// The tunables.
    public var settings: Settings
    /// The daily schedule, if there is one.
    public private(set) var schedule: PowerSchedule?

    /// Whether the time at the last event was within the hours.
    private var inHours = true
    /// The schedule's next boundary, worked out again only once it has passed or the schedule
    /// changed (not at every touch report).
    private var boundary: Instant?
    /// Whether `boundary` is known for the schedule in force.
    private var boundaryKnown = false

    /// Creates the machine in `starting`.
    public init(settings: Settings, schedule: PowerSchedule? = nil, at t: Instant) {
        self.settings = settings
        self.schedule = schedule
        lastActivity = t
    }

    /// Replaces the tunables and the schedule (a reload), keeping the state; the deadline
    /// follows from `t`. A panel the new settings would have switched goes at its next timer.
    public mutating func reconfigure(_ settings: Settings, schedule: PowerSchedule?, at t: Instant) {
        self.settings = settings
        self.schedule = schedule
        if let schedule { inHours = schedule.isOn(at: t) }
        boundaryKnown = false
        plan(at: t)
    }

    /// The wall clock was set (`anchor` is its new reading): the hours are read anew at `t` and
    /// the panel follows them at once, as at a boundary of theirs (a `timer`, which nothing
    /// else about the panel moves: the idle timers keep their instants); the next boundary is
    /// worked out again.
    /// - Returns: what `handle(.timer, at: t)` returns (nothing before the start).
    public mutating func wallClockSet(_ anchor: WallClockAnchor, at t: Instant) -> (change: Change?, transition: Transition?) {
        schedule?.anchor = anchor
        boundaryKnown = false
        // Not started: `start` reads the hours.
        guard state != .starting else { return (nil, nil) }
        return handle(.timer, at: t)
    }

    /// Whether a touch beginning at `t` must be swallowed: the panel is dark (the touch wakes
    /// it, or not, and is nobody's), or it was lit from dark less than the wake guard ago.
    public func swallowsTouch(at t: Instant) -> Bool {
        if state == .off { return true }
        guard let litAt else { return false }
        return t >= litAt && t - litAt < settings.wakeGuard
    }

    /// Feeds one event at `t`.
    /// - Returns: the change the panel must follow (nil when the state stays), and the step for
    ///   the trace (nil when the state stays and the pair is valid).
    public mutating func handle(_ event: Event, at t: Instant) -> (change: Change?, transition: Transition?) {
        let before = state
        var reason: Reason?
        var invalid = false
        let hoursNow = schedule?.isOn(at: t) ?? true
        switch (state, event) {
        case (.starting, .start):
            reason = .start
            lastActivity = t
            state = hoursNow ? .on : .off
        case (.starting, .touch), (.starting, .on), (.starting, .dim), (.starting, .off), (.starting, .timer),
             (.on, .start), (.dim, .start), (.off, .start):
            invalid = true
        case (.on, .touch):
            lastActivity = t
        case (.dim, .touch):
            lastActivity = t
            (state, reason) = (.on, .touch)
        case (.off, .touch):
            if hoursNow || settings.wakeOutsideHours {
                lastActivity = t
                (state, reason) = (.on, .touch)
            }
        case (.on, .on), (.dim, .dim), (.off, .off):
            lastActivity = t
        case (.on, .dim), (.off, .dim):
            lastActivity = t
            if settings.canDim { (state, reason) = (.dim, .command) }
        case (.dim, .on), (.off, .on):
            lastActivity = t
            (state, reason) = (.on, .command)
        case (.on, .off), (.dim, .off):
            lastActivity = t
            (state, reason) = (.off, .command)
        case (.on, .timer), (.dim, .timer), (.off, .timer):
            if hoursNow != inHours {
                // A boundary of the hours: they began (lit, timers from now) or ended (off).
                lastActivity = t
                if hoursNow, state != .on {
                    (state, reason) = (.on, .schedule)
                } else if !hoursNow, state != .off {
                    (state, reason) = (.off, .schedule)
                }
            } else if state != .off, let due = offDue(inHours: hoursNow), due <= t {
                (state, reason) = (.off, .idle)
            } else if state == .on, let due = dimDue, due <= t {
                (state, reason) = (.dim, .idle)
            }
        }
        inHours = hoursNow
        if before == .off, state != .off { litAt = t }
        plan(at: t)
        let transition = state != before || invalid
            ? Transition(.power, at: t, from: before.rawValue, on: event.rawValue, to: state.rawValue, invalid: invalid) : nil
        return (reason.map { Change(state: state, reason: $0, time: t) }, transition)
    }

    /// When the idle timer sends a lit panel off: `offAfter` after the last activity, or outside
    /// the hours (woken by a touch or a command) `offAfter` or the short timeout.
    private func offDue(inHours: Bool) -> Instant? {
        if let off = settings.offAfter { return lastActivity + off }
        return inHours ? nil : lastActivity + settings.outsideHoursTimeout
    }

    /// When the idle timer dims the panel, if it can.
    private var dimDue: Instant? {
        guard settings.canDim, let dim = settings.dimAfter else { return nil }
        return lastActivity + dim
    }

    /// Works out the next deadline after an event at `t`.
    private mutating func plan(at t: Instant) {
        if !boundaryKnown || boundary.map({ $0 <= t }) == true {
            boundary = schedule?.nextBoundary(after: t)
            boundaryKnown = true
        }
        var due: [Instant?] = [boundary]
        switch state {
        case .starting, .off: break
        case .on: due += [offDue(inHours: inHours), dimDue]
        case .dim: due.append(offDue(inHours: inHours))
        }
        nextDeadline = due.compactMap { $0 }.min()
    }
}
