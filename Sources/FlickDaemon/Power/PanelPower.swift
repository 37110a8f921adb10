import FlickCore
import FlickDisplay

/// The panel's power as the pipeline runs it: the machine (`DisplayPower`), how off and dim are
/// done (DPMS, the backlight, a black frame), and the wake guard's hold on the touch in
/// progress. The pipeline hands it every real touch frame and its timers, and follows the
/// changes it returns (`Pipeline+Power.swift`).
public final class PanelPower {
    /// How off is done, as resolved from `power.method` at start.
    public enum Way: String, Hashable, Sendable {
        case dpms, backlight, black
    }

    /// The machine.
    public internal(set) var machine: DisplayPower
    /// How off is done now (`auto` may fall from DPMS to black on a display without it).
    public internal(set) var way: Way
    /// The backlight, when the panel has one.
    public let backlight: Backlight?
    /// The dimmed brightness, percent.
    public var dimBrightness: Int
    /// What was said once at start (dimming skipped without a backlight), for the journal and
    /// `status`; nil when there is nothing to say.
    public let startNote: String?
    /// When the last touch that woke the panel arrived, and the first lit frame's presentation
    /// after it (for the wake latency benchmark).
    public internal(set) var lastWake: (touch: Instant, firstLitFrame: Instant?)?

    /// Whether the touch in progress is swallowed, to the lift of its last finger.
    var swallowing = false
    /// Whether a display without DPMS was said to be one (once per run).
    var dpmsUnavailableSaid = false
    /// Whether the method asked for `auto` (DPMS may then fall back to black).
    let automatic: Bool

    /// Sets up power as `configuration` asks, with the backlight found (or nil).
    public init(_ configuration: PowerConfiguration, backlight: Backlight?, schedule: PowerSchedule?, at t: Instant) {
        self.backlight = backlight
        dimBrightness = configuration.dimBrightness
        automatic = configuration.method == .auto
        switch configuration.method {
        case .auto: way = backlight != nil ? .backlight : .dpms
        case .dpms: way = .dpms
        case .backlight: way = backlight != nil ? .backlight : .dpms
        case .black: way = .black
        }
        machine = DisplayPower(settings: configuration.settings(canDim: backlight != nil), schedule: schedule, at: t)
        startNote = backlight == nil && configuration.dimAfterSeconds > 0
            ? "power: no backlight: dimming skipped (power.dim_after_s is \(configuration.dimAfterSeconds.brief) s)" : nil
    }

    /// The machine's state.
    public var state: DisplayPower.State { machine.state }
    /// When the machine wants its next timer.
    public var nextDeadline: Instant? { machine.nextDeadline }
    /// Whether the panel is dark.
    public var isOff: Bool { machine.state == .off }
}
