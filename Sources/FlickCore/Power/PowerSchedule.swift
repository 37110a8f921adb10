/// A time zone as the schedule needs it: the offset from UTC in force at a moment. The daemon's
/// reads the system's (`localtime_r`'s `tm_gmtoff`: TZ, /etc/localtime); tests hand in a rule
/// of their own, so a DST change is crossed without touching the process's environment.
public protocol UTCOffsetRule: Sendable {
    /// The offset of local time from UTC, in seconds, at `utc` (seconds since 1970, UTC).
    func utcOffset(atUTC utc: Int64) -> Int64
}

/// Where the monotonic clock stands against the wall clock: the one reading taken when the
/// pipeline starts (or the replay's virtual start). Local time at an `Instant` follows from it,
/// so a schedule needs no clock of its own.
public struct WallClockAnchor: Hashable, Sendable {
    /// A monotonic instant.
    public var instant: Instant
    /// The wall clock at `instant`, in nanoseconds since 1970 (UTC).
    public var utcNanoseconds: Int64

    /// Creates an anchor: `instant` was `utcNanoseconds` on the wall clock.
    public init(instant: Instant, utcNanoseconds: Int64) {
        self.instant = instant
        self.utcNanoseconds = utcNanoseconds
    }

    /// The wall clock at `t`, in whole seconds since 1970 (rounded down).
    public func utcSeconds(at t: Instant) -> Int64 {
        let ns = utcNanoseconds.addingReportingOverflow((t - instant).nanoseconds).partialValue
        return ns >= 0 ? ns / 1_000_000_000 : (ns - 999_999_999) / 1_000_000_000
    }

    /// The monotonic instant at which the wall clock reads `utc` seconds.
    public func instant(atUTC utc: Int64) -> Instant {
        let (ns, overflow) = utc.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return utc < 0 ? Instant(nanoseconds: .min) : Instant(nanoseconds: .max) }
        return instant + .nanoseconds(ns.subtractingReportingOverflow(utcNanoseconds).partialValue)
    }
}

/// One window of the daily schedule, `"HH:MM-HH:MM"` in local time: on from the first minute
/// until (not including) the second. A window whose end is earlier than its start crosses
/// midnight (`"22:00-06:00"`); `24:00` may end one.
public struct OnHoursWindow: Hashable, Sendable, CustomStringConvertible {
    /// The first minute of the day that is on (0…1439).
    public var start: Int
    /// The first minute after it that is off again (1…1440; less than `start` past midnight).
    public var end: Int

    /// Parses `"07:30-22:00"`; nil for anything else, and for a window that is empty (its start
    /// and end the same minute).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minute(parts[0]), let end = Self.minute(parts[1]),
              start < 1440, start != end, !(start == 0 && end == 0) else { return nil }
        self.start = start
        self.end = end
    }

    /// The window's minutes as at most two ranges within one day.
    public var ranges: [Range<Int>] {
        start < end ? [start..<end] : [start..<1440, 0..<end].filter { !$0.isEmpty }
    }

    /// Whether the minute of the day `minute` (0…1439) is inside.
    public func contains(minute: Int) -> Bool { ranges.contains { $0.contains(minute) } }

    /// Whether the two windows share a minute.
    public func overlaps(_ other: OnHoursWindow) -> Bool {
        ranges.contains { a in other.ranges.contains { b in a.overlaps(b) } }
    }

    public var description: String { Self.text(start) + "-" + Self.text(end) }

    /// `"HH:MM"` with HH 0…24 (24 only as `24:00`), MM 0…59.
    private static func minute(_ s: Substring) -> Int? {
        let hm = s.split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, hm.allSatisfy({ $0.allSatisfy(\.isASCII) }),
              let h = Int(hm[0]), let m = Int(hm[1]), (0...24).contains(h), (0...59).contains(m), h < 24 || m == 0 else { return nil }
        return h * 60 + m
    }

    static func text(_ minute: Int) -> String {
        let h = minute / 60, m = minute % 60
        return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }
}

/// The hours when the panel is on (`power.on_hours`), in local time: outside every window it is
/// off. Local time comes from a zone's UTC offset at each moment, so a DST change moves the
/// boundaries with the clocks on the wall: on the spring-forward night a boundary in the hour
/// that does not exist falls at the change itself; on the fall-back night a boundary in the
/// repeated hour falls at its first pass.
public struct PowerSchedule: Sendable {
    /// Why windows cannot make a schedule.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        /// A window that is not `"HH:MM-HH:MM"` (or is empty).
        case unparsable(String)
        /// Two windows share minutes.
        case overlapping(String, String)

        public var description: String {
            switch self {
            case let .unparsable(s): "\"\(s)\" is not a window \"HH:MM-HH:MM\" (start and end differ)"
            case let .overlapping(a, b): "the windows \"\(a)\" and \"\(b)\" overlap"
            }
        }
    }

    /// The windows, as given.
    public let windows: [OnHoursWindow]
    /// The zone local time is read in.
    public let zone: any UTCOffsetRule
    /// The wall clock against the monotonic one.
    public var anchor: WallClockAnchor

    /// Parses the windows and checks that none overlap.
    /// - Throws: `Problem` naming the first window at fault.
    public static func windows(_ texts: [String]) throws(Problem) -> [OnHoursWindow] {
        var windows: [OnHoursWindow] = []
        for text in texts {
            guard let w = OnHoursWindow(text) else { throw .unparsable(text) }
            if let other = windows.first(where: { $0.overlaps(w) }) { throw .overlapping(other.description, text) }
            windows.append(w)
        }
        return windows
    }

    /// Creates a schedule of `windows` (non-empty, not overlapping) read in `zone`.
    public init(windows: [OnHoursWindow], zone: any UTCOffsetRule, anchor: WallClockAnchor) {
        self.windows = windows
        self.zone = zone
        self.anchor = anchor
    }

    /// Whether `t` falls within the hours.
    public func isOn(at t: Instant) -> Bool { isOn(utc: anchor.utcSeconds(at: t)) }

    /// The first instant after `t` at which the panel goes from on to off or off to on by the
    /// schedule; nil when that never happens (the windows cover the whole day).
    public func nextBoundary(after t: Instant) -> Instant? {
        let now = anchor.utcSeconds(at: t)
        let state = isOn(utc: now)
        // Candidates: each window edge on the local days around now, read with every offset
        // in force over the next two days, and the moments those offsets change (an edge in a
        // skipped hour takes effect there).
        let horizon = now + 3 * 86_400
        var offsets = Set([zone.utcOffset(atUTC: now)])
        var changes: [Int64] = []
        var from = now
        while from < horizon, let change = nextOffsetChange(after: from, before: horizon) {
            offsets.insert(zone.utcOffset(atUTC: change))
            changes.append(change)
            from = change
        }
        var candidates = changes
        for offset in offsets {
            let localDay = Self.floorDiv(now + offset, 86_400)
            for day in (localDay - 1)...(localDay + 2) {
                for w in windows {
                    for minute in [w.start, w.end] {
                        candidates.append(day * 86_400 + Int64(minute) * 60 - offset)
                    }
                }
            }
        }
        let first = candidates.filter { $0 > now && isOn(utc: $0) != state && isOn(utc: $0 - 1) == state }.min()
        return first.map { anchor.instant(atUTC: $0) }
    }

    /// The wall clock at `t` as the hours are written, `"HH:MM"` in local time (the minute it is
    /// in): what an integrator reads against `power.on_hours`.
    public func localTime(at t: Instant) -> String {
        let utc = anchor.utcSeconds(at: t)
        return OnHoursWindow.text(Int(Self.floorMod(utc + zone.utcOffset(atUTC: utc), 86_400) / 60))
    }

    /// Why the panel is off at `t` by the schedule, and until when: `outside power.on_hours
    /// until 07:30` (local time); nil within the hours.
    public func offReason(at t: Instant) -> String? {
        guard !isOn(at: t) else { return nil }
        return "outside power.on_hours" + (nextBoundary(after: t).map { " until " + localTime(at: $0) } ?? "")
    }

    private func isOn(utc: Int64) -> Bool {
        let local = utc + zone.utcOffset(atUTC: utc)
        let minute = Int(Self.floorMod(local, 86_400) / 60)
        return windows.contains { $0.contains(minute: minute) }
    }

    /// The first second after `from` (before `limit`) whose offset differs from the one at
    /// `from`, found by halving: zones change offset at most a few times a year.
    private func nextOffsetChange(after from: Int64, before limit: Int64) -> Int64? {
        let offset = zone.utcOffset(atUTC: from)
        guard zone.utcOffset(atUTC: limit) != offset else { return nil }
        var low = from, high = limit
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if zone.utcOffset(atUTC: mid) == offset { low = mid } else { high = mid }
        }
        return high
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
}
