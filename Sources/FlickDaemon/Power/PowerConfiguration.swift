import FlickCore

/// `[power]`: when the panel dims and goes off, and how (docs/power.md). The defaults turn
/// power management off: both timers 0 (never), no schedule.
public struct PowerConfiguration: Hashable, Sendable {
    /// How the panel is turned off.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// The backlight when there is one, else DPMS, else a black frame.
        case auto
        /// The CRTC inactive (KMS).
        case dpms
        /// The backlight off through sysfs.
        case backlight
        /// One black frame, the backlight left alone.
        case black
    }

    /// Idle seconds before dimming; 0 never.
    public var dimAfterSeconds = 0.0
    /// The dimmed brightness, percent of `max_brightness` (1…100).
    public var dimBrightness = 30
    /// Idle seconds before going off; 0 never (within the hours).
    public var offAfterSeconds = 0.0
    /// The daily windows when the panel is on; empty: always.
    public var onHours: [OnHoursWindow] = []
    /// Whether a touch lights the panel outside the hours.
    public var wakeOutsideHours = true
    /// How off is done.
    public var method = Method.auto
    /// The backlight's name under /sys/class/backlight (or a path); "" finds it.
    public var backlight = ""
    /// Touches that begin this soon after the panel is lit from off are swallowed too.
    public var wakeGuard: Duration = .milliseconds(300)

    /// Creates the defaults.
    public init() {}

    /// Whether any of it is on: without timers or hours the machine never switches the panel.
    public var isActive: Bool { dimAfterSeconds > 0 || offAfterSeconds > 0 || !onHours.isEmpty }

    /// The machine's settings; `canDim` says whether a backlight was found.
    public func settings(canDim: Bool) -> DisplayPower.Settings {
        var s = DisplayPower.Settings(dimAfter: dimAfterSeconds > 0 ? .seconds(double: dimAfterSeconds) : nil,
                                      offAfter: offAfterSeconds > 0 ? .seconds(double: offAfterSeconds) : nil)
        s.wakeOutsideHours = wakeOutsideHours
        s.wakeGuard = wakeGuard
        s.canDim = canDim
        return s
    }
}
