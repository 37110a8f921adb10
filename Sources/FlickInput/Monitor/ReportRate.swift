import FlickCore

/// How often a panel reports while touched, and how steadily: the interval between successive
/// frames with a finger down in both. Pauses are left out — a touch going down or up (a tap's
/// two frames are no report period), a finger held still on a panel that reports only changes —
/// since they say nothing of the report period.
public struct ReportRate: Sendable {
    /// A longer interval is a pause, not a report period (10 Hz is slower than any panel).
    public static let pause: Duration = .milliseconds(100)
    /// The most intervals kept for the whole run's figures; older ones are forgotten.
    static let keep = 100_000

    private var last: Instant?
    private var window: [Int64] = []
    private var all: [Int64] = []

    /// Starts with nothing seen.
    public init() {}

    /// A frame reported at `t`; `continuing` when a contact was down before it and still is
    /// (so the frame before it was one of the same touch).
    public mutating func add(_ t: Instant, continuing: Bool) {
        defer { last = t }
        guard continuing, let last, t > last else { return }
        let interval = (t - last).nanoseconds
        guard interval <= Self.pause.nanoseconds else { return }
        window.append(interval)
        all.append(interval)
        if all.count > Self.keep { all.removeFirst(all.count - Self.keep / 2) }
    }

    /// The figures since the last call, and starts a new window; nil when nothing was measured.
    public mutating func takeWindow() -> Summary? {
        defer { window.removeAll(keepingCapacity: true) }
        return Summary(intervals: window)
    }

    /// The figures over the whole run (its last `keep` intervals); nil when nothing was measured.
    public var total: Summary? { Summary(intervals: all) }

    /// Report rate and jitter over a set of intervals.
    public struct Summary: Hashable, Sendable, CustomStringConvertible {
        /// How many intervals were measured.
        public var intervals: Int
        /// The median interval, in milliseconds.
        public var median: Double
        /// The 95th percentile interval, in milliseconds: a late report shows here.
        public var p95: Double
        /// The median absolute deviation from the median, in milliseconds: the jitter.
        public var jitter: Double

        /// Reports per second at the median interval.
        public var perSecond: Double { median > 0 ? 1000 / median : 0 }

        init?(intervals ns: [Int64]) {
            guard !ns.isEmpty else { return nil }
            let sorted = ns.sorted()
            let ms = { (i: Int) in Double(sorted[i]) / 1e6 }
            intervals = sorted.count
            let m = Self.median(sorted.map { Double($0) / 1e6 })
            median = m
            p95 = ms(min(sorted.count - 1, (sorted.count * 95 + 99) / 100 - 1))
            jitter = Self.median(sorted.map { abs(Double($0) / 1e6 - m) }.sorted())
        }

        private static func median(_ sorted: [Double]) -> Double {
            let n = sorted.count
            return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        }

        public var description: String {
            "\(perSecond.fixed(1)) reports/s, interval median \(median.fixed(2)) ms, p95 \(p95.fixed(2)) ms, "
                + "jitter \(jitter.fixed(2)) ms (\(intervals) intervals)"
        }
    }
}
