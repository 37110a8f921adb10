/// A point in time on the kernel's `CLOCK_MONOTONIC`, with nanosecond resolution.
///
/// FlickCore never reads a clock: every instant is handed in (a kernel event timestamp, a
/// vblank time, or a virtual clock's `now`), so tests and replays are exact.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's epoch (boot, for `CLOCK_MONOTONIC`).
    public var nanoseconds: Int64

    /// Creates an instant from nanoseconds since the epoch.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The clock's epoch.
    public static let zero = Instant(nanoseconds: 0)

    /// An instant from seconds and microseconds, as in a kernel `struct timeval` or an evemu line.
    public init(seconds: Int64, microseconds: Int64) {
        self.nanoseconds = seconds &* 1_000_000_000 &+ microseconds &* 1_000
    }

    /// An instant `s` seconds after the epoch (saturating at the clock's ends; NaN is the epoch).
    public static func seconds(_ s: Double) -> Instant { Instant(nanoseconds: Int64(saturating: (s * 1e9).rounded())) }
    /// An instant `ms` milliseconds after the epoch (saturating at the clock's ends; NaN is the epoch).
    public static func milliseconds(_ ms: Double) -> Instant { Instant(nanoseconds: Int64(saturating: (ms * 1e6).rounded())) }

    /// Seconds since the epoch.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The instant `d` later. Sums past the clock's ends stop there: a deadline centuries away
    /// (a tunable set absurdly high) stays far in the future instead of wrapping into the past.
    public static func + (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: saturated(a.nanoseconds.addingReportingOverflow(d.nanoseconds)))
    }
    /// The instant `d` earlier (saturating, as `+`).
    public static func - (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: saturated(a.nanoseconds.subtractingReportingOverflow(d.nanoseconds)))
    }
    /// The time from `b` to `a` (saturating, as `+`).
    public static func - (a: Instant, b: Instant) -> Duration {
        .nanoseconds(saturated(a.nanoseconds.subtractingReportingOverflow(b.nanoseconds)))
    }

    /// The exact result, or the end of Int64's range it lies beyond: on overflow the partial
    /// value has wrapped to the sign opposite the true result's.
    private static func saturated(_ r: (partialValue: Int64, overflow: Bool)) -> Int64 {
        guard r.overflow else { return r.partialValue }
        return r.partialValue < 0 ? .max : .min
    }

    public var description: String { "\(seconds)s" }
}

extension Duration {
    /// The duration in whole nanoseconds (truncated).
    public var nanoseconds: Int64 {
        let (s, atto) = components
        return s &* 1_000_000_000 &+ atto / 1_000_000_000
    }

    /// The duration in seconds, as a floating-point number.
    public var inSeconds: Double { Double(nanoseconds) / 1e9 }

    /// The duration in milliseconds, as a floating-point number.
    public var inMilliseconds: Double { Double(nanoseconds) / 1e6 }

    /// A duration of `s` seconds, rounded to the nanosecond; non-finite values give zero, values
    /// beyond Int64's nanoseconds (292 years) the largest it holds.
    public static func seconds(double s: Double) -> Duration {
        guard s.isFinite else { return .zero }
        return .nanoseconds(Int64(saturating: (s * 1e9).rounded()))
    }
}
