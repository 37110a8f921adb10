import FlickControl
import FlickCore
import FlickDisplay
import FlickWayland
import Logging

/// Display power's side of the daemon (docs/power.md): what the pipeline's power needs from the
/// machine (the panel's backlight, the system's zone, the wall clock), and each change said
/// everywhere: the journal, `STATUS=`, and a `power` event to the subscribers.
extension Daemon {
    /// The environment for `[power]` on `output`: the backlight found (only when power is on:
    /// a daemon without `[power]` never touches sysfs) and the system's zone.
    /// - Throws: `BacklightError` for a `power.backlight` that is no backlight.
    static func powerEnvironment(_ configuration: PowerConfiguration, output: any Output, at t: Instant,
                                 logger: Logger) throws -> PowerEnvironment {
        var environment = PowerEnvironment.system(at: t)
        // A compositor's client owns no monitor: the laptop's or board's backlight is the
        // compositor's to dim, and DPMS is refused (`auto` then shows a black frame).
        if output is WaylandOutput {
            guard configuration.isActive else { return environment }
            let dpms = configuration.method == .dpms || configuration.method == .backlight
                ? " (power.method = \"\(configuration.method.rawValue)\" turns nothing off here: use \"auto\" or \"black\")" : ""
            logger.notice("power: under Wayland the monitor is the compositor's: off shows a black frame, dimming is unavailable\(dpms)")
            return environment
        }
        guard configuration.isActive, configuration.method != .dpms || configuration.dimAfterSeconds > 0 || !configuration.backlight.isEmpty,
              configuration.method != .black || configuration.dimAfterSeconds > 0 || !configuration.backlight.isEmpty else {
            return environment
        }
        // The backlight under the panel's card: the card's sysfs folder, resolved.
        let card = (output as? DRMOutput).map { "/sys/class/drm/" + ($0.cardPath.split(separator: "/").last.map(String.init) ?? "") }
        let found = Result { () throws(BacklightError) in try Backlight.find(named: configuration.backlight, cardDevice: card) }
        switch found {
        case .success(let backlight):
            environment.backlight = backlight
        case .failure(let error):
            // Several and none the card's: run without (no dimming), and say which to name.
            guard case .ambiguous = error else { throw error }
            logger.warning("power: \(error); none used")
        }
        if let backlight = environment.backlight {
            logger.info("power: backlight \(backlight.path), brightness \(backlight.brightnessAtStart) of \(backlight.maximum)")
        } else if configuration.method == .backlight {
            logger.warning("power: method \"backlight\" but no backlight in \(Backlight.defaultRoot): the panel goes off by DPMS")
        }
        return environment
    }

    /// Hears the wall clock being set, and hands each new reading to the pipeline (which reads
    /// the hours on it at once and notes the jump); nil, said, when the kernel refuses the watch:
    /// the hours then stay on the start's reading until a restart.
    func watchWallClock() -> WallClockWatch? {
        do {
            return try WallClockWatch(loop: loop) { [unowned self] in
                // Both clocks read together: the loop's `now` is this wake-up's, a moment older.
                let t = EventLoop.monotonicNow()
                pipeline.wallClockSet(SystemTimeZone.anchor(at: t), at: loop.now)
                runner.rearm()
            }
        } catch {
            logger.report(.warning, "wall clock: not told when it is set, power.on_hours keeps the start's reading: ", error)
            return nil
        }
    }

    /// Says the wall clock set: a notice, with the jump in seconds (negative: back) and the
    /// new time as fields.
    static func said(_ jump: WallClockJump, _ notice: Pipeline.Notice, logger: Logger) {
        logger.notice("\(notice)", metadata: ["wall_clock_jump_s": .string(jump.seconds.fixed(3)),
                                              "wall_clock_utc": .string(CivilTime.text(utc: jump.toSeconds))])
    }

    /// Says a change of the panel's power: a journal line, `STATUS=`, the `power` event.
    static func said(_ notice: Pipeline.Notice, view: ScrollView, logger: Logger, notifier: Notifier, server: ControlServer?) {
        guard case let .power(state, reason, time, _) = notice else { return }
        logger.notice("\(notice)")
        notifier.status("\(notice)")
        if server?.hasSubscribers == true {
            server?.broadcast(.power(state: state, reason: reason, at: time.seconds, view: view.state))
        }
    }
}
