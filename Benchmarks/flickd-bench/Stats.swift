#if canImport(Glibc)
import Glibc
#endif

/// Repeated measurements and their spread.
struct Stats {
    var samples: [Double]

    var sorted: [Double] { samples.sorted() }
    var median: Double { percentile(50) }
    var p99: Double { percentile(99) }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }

    /// The nearest-rank percentile.
    func percentile(_ p: Double) -> Double {
        let s = sorted
        guard !s.isEmpty else { return .nan }
        let rank = Swift.min(s.count - 1, Swift.max(0, Int((p / 100 * Double(s.count)).rounded(.up)) - 1))
        return s[rank]
    }

    /// The median of the ratios of this run's samples to `other`'s, pair by pair: for contestants
    /// interleaved sample by sample, what a noisy neighbour slows falls on both sides of a pair.
    func pairedRatio(to other: Stats) -> Double {
        Stats(samples: zip(samples, other.samples).map { $0 / $1 }).median
    }

    /// "median 123.4 (p99 130.0, 120.1–131.2) unit".
    func summary(_ unit: String, digits: Int = 1) -> String {
        "median \(fmt(median, digits)) \(unit) (p99 \(fmt(p99, digits)), \(fmt(min, digits))–\(fmt(max, digits)), n \(samples.count))"
    }
}

func fmt(_ x: Double, _ digits: Int = 1) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (x * scale).rounded() / scale
    return "\(r)"
}

/// Monotonic nanoseconds, for timing.
func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// The PASS/FAIL lines, printed as they come and again as the final summary.
enum Verdicts {
    /// Only the main thread touches it (the benchmark's sections run one after another).
    nonisolated(unsafe) static var lines: [String] = []
    nonisolated(unsafe) static var failures = 0

    /// Prints and records a target line: PASS or FAIL with the figure and the bound.
    static func check(_ name: String, _ passed: Bool, _ detail: String) {
        let line = "\(passed ? "PASS" : "FAIL")  \(name): \(detail)"
        if !passed { failures += 1 }
        lines.append(line)
        print(line)
    }

    /// Records a target that could not be measured here, and why.
    static func skip(_ name: String, _ why: String) {
        let line = "SKIP  \(name): \(why)"
        lines.append(line)
        print(line)
    }
}

/// Prints a section heading.
func section(_ title: String) {
    print("\n== \(title)")
}
