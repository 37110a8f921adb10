/// Dates and times of day on the Gregorian calendar in UTC, for what flickd says and is told
/// about the wall clock (a jump's journal line, `flickd replay --wall-clock`): no C library and
/// no time zone database behind it, so a replay reads the same on every machine.
public enum CivilTime {
    /// Seconds since 1970 (UTC) of a date and time of day in UTC.
    public static func utc(year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0) -> Int64 {
        days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// `"2026-11-29 11:20"`: the minute `utc` (seconds since 1970) is in, in UTC.
    public static func text(utc: Int64) -> String {
        let day = PowerSchedule.floorDiv(utc, 86_400)
        let (y, m, d) = civil(days: day)
        let minute = Int(PowerSchedule.floorMod(utc, 86_400) / 60)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + " " + OnHoursWindow.text(minute)
    }

    /// Parses `"2026-01-01T12:00"` (or a space for the `T`, seconds optional, a trailing `Z`
    /// allowed) as a time in UTC; nil for anything else, a 31 February included.
    public static func parse(_ text: String) -> Int64? {
        var s = Substring(text)
        if s.hasSuffix("Z") { s = s.dropLast() }
        let halves = s.split(omittingEmptySubsequences: false) { $0 == "T" || $0 == " " }
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2, (2...3).contains(time.count),
              time.allSatisfy({ $0.count == 2 }), (date + time).allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let y = Int64(date[0]), let mo = Int64(date[1]), let d = Int64(date[2]),
              let h = Int64(time[0]), let mi = Int64(time[1]), let sec = time.count == 3 ? Int64(time[2]) : 0,
              (1...12).contains(mo), d >= 1, h < 24, mi < 60, sec < 60,
              civil(days: days(year: y, month: mo, day: d)) == (y, mo, d) else { return nil }
        return utc(year: y, month: mo, day: d, hour: h, minute: mi, second: sec)
    }

    /// Days since 1970-01-01 of a date (Howard Hinnant's algorithm; a day out of its month
    /// rolls into the next).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = PowerSchedule.floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = PowerSchedule.floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// A zone that is always the same offset from UTC (`+01:00`, `UTC`): a replay's, so its hours
/// do not depend on the machine it runs on (`flickd replay --time-zone`).
public struct FixedOffsetZone: UTCOffsetRule, Hashable, CustomStringConvertible {
    /// The offset of local time from UTC, seconds.
    public let seconds: Int64

    /// UTC.
    public static let utc = FixedOffsetZone(seconds: 0)

    /// A zone `seconds` ahead of UTC.
    public init(seconds: Int64) { self.seconds = seconds }

    /// Parses `UTC`, `Z`, `+HH:MM`, `-HH:MM` or `+HH` (at most 14 h either way); nil for
    /// anything else.
    public init?(parsing text: String) {
        if text == "UTC" || text == "Z" {
            self.init(seconds: 0)
            return
        }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let parts = text.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int64(parts[0]), let m = parts.count == 2 ? Int64(parts[1]) : 0, m < 60, h * 60 + m <= 14 * 60 else { return nil }
        self.init(seconds: (sign == "-" ? -1 : 1) * (h * 3600 + m * 60))
    }

    public func utcOffset(atUTC utc: Int64) -> Int64 { seconds }

    /// `+01:00`, `-05:30`; `UTC` for none.
    public var description: String {
        guard seconds != 0 else { return "UTC" }
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + OnHoursWindow.text(Int(minutes))
    }
}
