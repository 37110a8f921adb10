/// The wall clock set while flickd runs (NTP's first sync on a board without a real-time clock,
/// an operator's `date -s`): where it stood by the reading taken before, and where it stands
/// now. The monotonic clock does not move: only what is read on the wall clock follows.
public struct WallClockJump: Hashable, Sendable, CustomStringConvertible {
    /// The wall clock by the old anchor, nanoseconds since 1970 (UTC).
    public var from: Int64
    /// The wall clock now, nanoseconds since 1970 (UTC).
    public var to: Int64

    /// The jump from what `old` says at `new.instant` to what `new` says there.
    public init(from old: WallClockAnchor, to new: WallClockAnchor) {
        from = old.utcNanoseconds.addingReportingOverflow((new.instant - old.instant).nanoseconds).partialValue
        to = new.utcNanoseconds
    }

    /// The size, seconds: positive forward, negative back.
    public var seconds: Double { Double(to.subtractingReportingOverflow(from).partialValue) / 1e9 }

    /// The wall clock now, whole seconds since 1970 (UTC).
    public var toSeconds: Int64 { Self.wholeSeconds(to) }

    /// Whether the clock did not move by as much as a millisecond: a setting to the time it
    /// already had, nothing to say.
    public var isNegligible: Bool { abs(seconds) < 0.001 }

    /// `wall clock set forward 56 years (1970-01-01 00:00 → 2026-11-29 11:20 UTC)`.
    public var description: String {
        "wall clock set \(seconds < 0 ? "back" : "forward") \(Self.size(abs(seconds))) "
            + "(\(CivilTime.text(utc: Self.wholeSeconds(from))) → \(CivilTime.text(utc: Self.wholeSeconds(to))) UTC)"
    }

    /// A size in its largest units, coarse enough to read at a glance: `56 years`, `1 day 2 h`,
    /// `3 h 5 min`, `4 min 10 s`, `0.25 s`.
    static func size(_ seconds: Double) -> String {
        let whole = Int64(seconds.rounded(.down))
        let year: Int64 = 31_556_952   // the Gregorian calendar's mean year
        switch whole {
        case year...: let n = whole / year; return "\(n) year" + (n == 1 ? "" : "s")
        case 86_400...: let n = whole / 86_400; return "\(n) day" + (n == 1 ? "" : "s") + part(whole % 86_400 / 3600, "h")
        case 3600...: return "\(whole / 3600) h" + part(whole % 3600 / 60, "min")
        case 60...: return "\(whole / 60) min" + part(whole % 60, "s")
        default: return "\(((seconds * 1000).rounded() / 1000).brief) s"
        }
    }

    private static func part(_ n: Int64, _ unit: String) -> String { n == 0 ? "" : " \(n) \(unit)" }

    private static func wholeSeconds(_ ns: Int64) -> Int64 { PowerSchedule.floorDiv(ns, 1_000_000_000) }
}
