import FlickCore

/// Europe/Berlin's rule since 1996, written out so schedule tests cross a DST change without
/// touching the process's TZ (tests run in parallel): CET (+1 h), and CEST (+2 h) from the last
/// Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC.
public struct CentralEuropeanZone: UTCOffsetRule {
    public init() {}

    public func utcOffset(atUTC utc: Int64) -> Int64 {
        let year = CivilTime.civil(days: Self.floorDiv(utc, 86_400)).year
        let begins = Self.lastSunday(year: year, month: 3) * 86_400 + 3600
        let ends = Self.lastSunday(year: year, month: 10) * 86_400 + 3600
        return utc >= begins && utc < ends ? 7200 : 3600
    }

    /// Seconds since 1970 (UTC) of a local date and time in this zone, read with `offset`.
    public static func utc(_ year: Int64, _ month: Int64, _ day: Int64, _ hour: Int64, _ minute: Int64, offset: Int64) -> Int64 {
        days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 - offset
    }

    /// Days since 1970-01-01 of a civil date (FlickCore's own calendar arithmetic).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilTime.days(year: year, month: month, day: day)
    }

    static func lastSunday(year: Int64, month: Int64) -> Int64 {
        let last = days(year: year, month: month + 1, day: 1) - 1
        // 1970-01-01 was a Thursday: weekday 0 = Sunday is (days + 4) mod 7.
        return last - ((last + 4) % 7 + 7) % 7
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
