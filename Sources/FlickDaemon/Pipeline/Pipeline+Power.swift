import FlickCore
import FlickDisplay

/// Display power in the pipeline (docs/power.md): the wake guard before the recogniser, the
/// machine's timers, `flickctl display`, and the panel following each change — nothing drawn
/// and no wake-up while it is off, attract mode's reset done at once as it goes off.
extension Pipeline {
    /// Whether the power swallows `raw` (the wake guard), telling the machine of the touch.
    /// A touch is swallowed whole: from its first report to the lift of its last finger.
    func powerSwallows(_ raw: TouchFrame) -> Bool {
        guard let power else { return false }
        let begins = !raw.began.isEmpty && raw.contacts.count == raw.began.count
        if begins, !power.swallowing, power.machine.swallowsTouch(at: raw.time) {
            power.swallowing = true
            if power.isOff { power.lastWake = (raw.time, nil) }
        }
        let swallowed = power.swallowing
        follow(power.machine.handle(.touch, at: raw.time), in: power)
        if swallowed, raw.contacts.isEmpty { power.swallowing = false }
        return swallowed
    }

    /// Fires the machine's timers due by now.
    func powerTimers() {
        guard let power else { return }
        // Each timer moves the deadline on; a few are plenty for one dispatch.
        for _ in 0..<4 {
            guard let due = power.nextDeadline, due <= now else { return }
            follow(power.machine.handle(.timer, at: due), in: power)
        }
    }

    /// Maps `[power]` onto the pipeline: made when it turns on (started at once on a reload;
    /// `start()` starts it otherwise), its timers and hours replaced on a reload, and gone —
    /// the panel lit first — when it turns off.
    func configurePower(_ configuration: PowerConfiguration, reload: Bool, at t: Instant) {
        guard configuration.isActive else {
            if let power, power.state != .on { follow(power.machine.handle(.on, at: t), in: power) }
            power = nil
            return
        }
        // Kept: a later reload reads the hours on the same wall clock (and a replay's stays fixed).
        let environment = powerEnvironment ?? .withoutBacklight(at: t)
        powerEnvironment = environment
        let schedule = configuration.onHours.isEmpty ? nil
            : PowerSchedule(windows: configuration.onHours, zone: environment.zone, anchor: environment.anchor)
        if let power {
            power.dimBrightness = configuration.dimBrightness
            power.machine.reconfigure(configuration.settings(canDim: power.backlight != nil), schedule: schedule, at: t)
            return
        }
        let made = PanelPower(configuration, backlight: environment.backlight, schedule: schedule, at: t)
        power = made
        if let note = made.startNote { sink?.pipeline(self, noted: .display(note)) }
        if reload { startPower() }
    }

    /// The wall clock was set (NTP's first sync on a board without a real-time clock): its new
    /// reading `anchor` replaces the one the hours were read on, the panel follows the hours at
    /// once (on or off by the schedule, its next boundary worked out again), and the jump is
    /// noted once. Nothing on the monotonic clock moves: motion, the idle timers, attract mode.
    public func wallClockSet(_ anchor: WallClockAnchor, at t: Instant) {
        let old = powerEnvironment?.anchor ?? anchor
        powerEnvironment?.anchor = anchor
        let jump = WallClockJump(from: old, to: anchor)
        let schedule = power?.machine.schedule != nil
        if let power {
            follow(power.machine.wallClockSet(anchor, at: max(t, now)), in: power)
            flush()
        }
        if !jump.isNegligible { sink?.pipeline(self, noted: .wallClock(jump, scheduleReread: schedule)) }
    }

    /// `flickctl display on|off|dim` at `t`.
    /// - Returns: false when the panel cannot do it (dim without a backlight, or no power at all).
    @discardableResult
    public func setDisplay(_ event: DisplayPower.Event, at t: Instant) -> Bool {
        guard let power, event == .on || event == .off || event == .dim else { return false }
        if event == .dim && power.backlight == nil { return false }
        follow(power.machine.handle(event, at: max(t, now)), in: power)
        flush()
        return true
    }

    /// A command other than `display` is activity: the idle timers start again.
    func powerActivity(at t: Instant) {
        guard let power, power.state == .on || power.state == .dim else { return }
        follow(power.machine.handle(power.state == .on ? .on : .dim, at: t), in: power)
    }

    /// The start: the hours may say off from the first moment.
    func startPower() {
        guard let power else { return }
        follow(power.machine.handle(.start, at: now), in: power)
    }

    /// Notes a presentation: the first lit frame after a wake, and the black frame that ends
    /// drawing with the `black` method.
    func powerPresented(at vblank: Instant) {
        guard let power else { return }
        if power.isOff, power.way == .black, !presenter.isSuspended { presenter.isSuspended = true }
        if let wake = power.lastWake, wake.firstLitFrame == nil, !power.isOff { power.lastWake?.firstLitFrame = vblank }
    }

    /// Whether frames show black (the `black` method while off).
    var showsBlack: Bool { power.map { $0.isOff && $0.way == .black } ?? false }

    /// Follows one step of the machine: the panel, the presenter, the sink.
    private func follow(_ step: (change: DisplayPower.Change?, transition: Transition?), in power: PanelPower) {
        if let transition = step.transition, tracing || transition.isInvalid {
            emit([GestureOutput(time: transition.time, kind: .transition(transition))])
        }
        guard let change = step.change else { return }
        switch change.state {
        case .starting: return
        case .off: goDark(power)
        case .dim, .on: light(power, dimmed: change.state == .dim)
        }
        // On the stream's clock, which never goes back (a frame may have been stamped at its vblank).
        let time = max(change.time, streamTime ?? change.time)
        // Off outside the hours says until when: a panel dark at start is otherwise a mystery.
        let why = change.state == .off ? power.machine.schedule?.offReason(at: change.time) : nil
        sink?.pipeline(self, noted: .power(state: change.state.rawValue, reason: change.reason.rawValue, time: time, why: why))
    }

    private func goDark(_ power: PanelPower) {
        // The view is not seen: attract mode's reset needs no animation.
        if let reset = attractMode {
            emit(recognizer.update(at: now) { [now] v in
                v.stopScrollingAndZooming(at: now)
                let home = reset.home(of: v)
                try? v.setZoomScale(home.zoomScale, contentOffset: home.offset, animated: false, at: now)
            })
        } else if scrollView.isAnimating {
            // Motion nobody sees would resume at the wake as a jump: it stops where it is, inside
            // the edges (no bounce back left to run).
            emit(recognizer.update(at: now) { [now] v in
                v.stopScrollingAndZooming(at: now)
                try? v.setContentOffset(v.clampedOffset(v.contentOffset), animated: false, at: now)
            })
        }
        switch power.way {
        case .black:
            presenter.setNeedsDisplay(at: now, redraw: true)
            return
        case .backlight:
            do {
                try power.backlight?.off()
            } catch {
                // A backlight that cannot be written (sysfs read-only under the unit's
                // ProtectKernelTunables, no write permission) must not leave a lit panel that
                // says it is off: auto falls back to DPMS from now on.
                sink?.pipeline(self, noted: .display("power: backlight off refused (\(error))"
                    + (power.automatic ? ": DPMS from now on" : "")))
                if power.automatic {
                    power.way = .dpms
                    goDark(power)
                    return
                }
            }
        case .dpms:
            do {
                try presenter.output.setActive(false)
            } catch OutputError.unsupported {
                // A display without DPMS at all (a compositor's window) is no fault: said once.
                if !power.dpmsUnavailableSaid {
                    power.dpmsUnavailableSaid = true
                    sink?.pipeline(self, noted: .unavailable("power: this display has no DPMS (a compositor's window: the monitor is the "
                        + "compositor's): " + (power.automatic ? "off shows a black frame" : "power.method = \"dpms\" turns nothing off, "
                        + "the last frame stays (\"auto\" or \"black\" show a black frame)")))
                }
                if power.automatic {
                    power.way = .black
                    presenter.setNeedsDisplay(at: now, redraw: true)
                    return
                }
            } catch {
                sink?.pipeline(self, noted: .display("power: DPMS off refused (\(error))"
                    + (power.automatic ? ": a black frame instead" : "")))
                if power.automatic {
                    power.way = .black
                    presenter.setNeedsDisplay(at: now, redraw: true)
                    return
                }
            }
        }
        presenter.isSuspended = true
    }

    private func light(_ power: PanelPower, dimmed: Bool) {
        if presenter.isSuspended || power.way == .black {
            if power.way == .dpms {
                do {
                    try presenter.output.setActive(true)
                } catch OutputError.unsupported {
                    // Said when it went off.
                } catch {
                    sink?.pipeline(self, noted: .display("power: DPMS on refused (\(error))"))
                }
            }
            presenter.isSuspended = false
            presenter.setNeedsDisplay(at: now, redraw: true)
        }
        guard let backlight = power.backlight else { return }
        do {
            if dimmed { try backlight.dim(percent: power.dimBrightness) } else { try backlight.on() }
        } catch {
            sink?.pipeline(self, noted: .display("power: \(error)"))
        }
    }
}
