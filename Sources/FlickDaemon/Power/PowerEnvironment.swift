import FlickCore
import FlickDisplay
import Glibc

/// What display power needs from the world, handed to the pipeline by whoever runs it: the
/// panel's backlight (a live run's; never a replay's, which must not touch the machine's
/// panel), the time zone the hours are read in, and where the wall clock stands.
public struct PowerEnvironment {
    /// The backlight, if the panel has one.
    public var backlight: Backlight?
    /// The zone `power.on_hours` is read in.
    public var zone: any UTCOffsetRule
    /// The wall clock against the pipeline's.
    public var anchor: WallClockAnchor

    /// Creates an environment.
    public init(backlight: Backlight?, zone: any UTCOffsetRule, anchor: WallClockAnchor) {
        self.backlight = backlight
        self.zone = zone
        self.anchor = anchor
    }

    /// No backlight, and a wall clock and zone of the caller's, never the machine's: a
    /// replay's, a test's. `wallClock` is where the wall clock stands at `t`; by default
    /// `defaultWallClock` in UTC, so the same recording and config play the same anywhere, at
    /// any hour.
    public static func withoutBacklight(at t: Instant, wallClock: Int64 = defaultWallClock,
                                        zone: FixedOffsetZone = .utc) -> PowerEnvironment {
        PowerEnvironment(backlight: nil, zone: zone, anchor: WallClockAnchor(instant: t, utcNanoseconds: wallClock &* 1_000_000_000))
    }

    /// A replay's wall clock at its first event unless told otherwise: 2000-01-01 12:00 UTC, a
    /// Saturday noon, within the hours of a kiosk's usual day.
    public static let defaultWallClock = CivilTime.utc(year: 2000, month: 1, day: 1, hour: 12)

    /// The machine's: no backlight yet, the system's zone, the wall clock read now as standing
    /// at `t` (the live daemon's; read again when the wall clock is set).
    public static func system(at t: Instant) -> PowerEnvironment {
        PowerEnvironment(backlight: nil, zone: SystemTimeZone(), anchor: SystemTimeZone.anchor(at: t))
    }
}

/// The system's time zone (TZ, else /etc/localtime) through `localtime_r`, which reads it
/// once per process (`tzset`): a changed /etc/localtime takes effect at the next start.
public struct SystemTimeZone: UTCOffsetRule {
    /// Creates the system's zone.
    public init() {}

    public func utcOffset(atUTC utc: Int64) -> Int64 {
        var t = time_t(utc)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }

    /// The wall clock read now, standing at `t`.
    public static func anchor(at t: Instant) -> WallClockAnchor {
        WallClockAnchor(instant: t, utcNanoseconds: utcNow())
    }

    /// The wall clock now, nanoseconds since 1970 (UTC).
    public static func utcNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }
}
