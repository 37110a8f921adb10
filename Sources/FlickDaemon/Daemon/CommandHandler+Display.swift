import FlickControl
import FlickCore

extension CommandHandler {
    /// `display on|off|dim`: the panel's power now; the timers and the hours go on from there.
    func display(_ state: ControlCommand.DisplayState, at now: Instant) throws(ControlError) {
        guard let power = pipeline.power else {
            throw .failed("display power is off: set power.dim_after_s, power.off_after_s or power.on_hours")
        }
        let event: DisplayPower.Event = switch state {
        case .on: .on
        case .off: .off
        case .dim: .dim
        }
        guard pipeline.setDisplay(event, at: now) else {
            throw .failed(power.backlight == nil ? "the panel has no backlight to dim" : "the panel cannot do that")
        }
    }
}
