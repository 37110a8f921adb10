@testable import FlickCore
import Testing

/// The resampler's bounds and the 1€ filter (issue 20, parts 4 and 5), on exact inputs.
@Suite struct TouchConditioningTests {
    static let id = ContactID(1)

    /// A resampler fed one finger at `points` (ms, y), x = 100.
    static func resampler(_ points: [(Double, Double)], maximumPrediction: Duration = .milliseconds(34)) -> TouchResampler {
        var r = TouchResampler(.init(maximumPrediction: maximumPrediction))
        for (i, (ms, y)) in points.enumerated() {
            r.add(TouchFrame(time: .milliseconds(ms), contacts: [Contact(id: id, position: Point(x: 100, y: y))],
                             began: i == 0 ? [id] : []))
        }
        return r
    }

    static func y(_ r: TouchResampler, at ms: Double, now: Double) -> Double? {
        r.frame(at: .milliseconds(ms), now: .milliseconds(now))?.contacts.first?.position.y
    }

    @Test func aSteadyFingerIsPredictedWhereItWillBe() throws {
        // 1000 px/s at 125 Hz: 8 px a report.
        let r = Self.resampler((0...10).map { (Double($0) * 8, 100 + Double($0) * 8) })
        let y = try #require(Self.y(r, at: 80 + 20, now: 84))
        #expect(abs(y - 200) < 1e-9, "\(y)")
    }

    @Test func noFurtherThanTheMaximumPrediction() throws {
        let r = Self.resampler((0...10).map { (Double($0) * 8, 100 + Double($0) * 8) }, maximumPrediction: .milliseconds(10))
        let y = try #require(Self.y(r, at: 80 + 16, now: 84))
        #expect(abs(y - 190) < 1e-9, "\(y)")
    }

    @Test func notFromReportsMoreThan20msApart() {
        let r = Self.resampler([(0, 100), (25, 125), (50, 150)])
        #expect(Self.y(r, at: 60, now: 55) == nil)
    }

    @Test func notAfterThePanelFellSilent() {
        // Reports every 8 ms, none for 20 ms: the finger stopped on a panel that says nothing.
        let r = Self.resampler((0...10).map { (Double($0) * 8, 100 + Double($0) * 8) })
        #expect(Self.y(r, at: 110, now: 100) == nil)
        #expect(Self.y(r, at: 100, now: 90) != nil)
    }

    @Test func aSlowingFingerIsNeverPredictedPastItsStop() {
        // Speed halving every report: 16, 8, 4, 2 px per 8 ms; constant deceleration would stop
        // it within about 3 px of the last report.
        let r = Self.resampler([(0, 100), (8, 116), (16, 124), (24, 128), (32, 130)])
        let y = Self.y(r, at: 32 + 34, now: 33) ?? 130
        #expect(y >= 130 && y <= 133, "\(y)")
    }

    /// A stop that bites harder report by report, reported at 60 Hz: 3000, 2900, then 2500 px/s.
    /// The latest deceleration held constant would carry the finger to about 275 px by the next
    /// report; braking that keeps growing as it grew stops it sooner (about 270).
    @Test func aStopThatBitesHarderIsBrakedHarder() throws {
        let r = Self.resampler([(0, 100), (16.7, 150.1), (33.4, 198.53), (50.1, 240.28)])
        let y = try #require(Self.y(r, at: 50.1 + 16.7, now: 51))
        #expect(y > 265 && y < 273, "\(y)")
        #expect(TouchResampler.braking(from: 100, deceleration: 1000, growth: 0, over: 1) == 5)
        let growing = TouchResampler.braking(from: 100, deceleration: 1000, growth: 10_000, over: 1)
        #expect(growing < 5 && growing > 0, "\(growing)")
    }

    @Test func aTimeWithinTheReportsIsInterpolated() throws {
        let r = Self.resampler([(0, 100), (8, 108), (16, 124)])
        let y = try #require(Self.y(r, at: 12, now: 16))
        #expect(abs(y - 116) < 1e-9, "\(y)")
    }

    @Test func aStillFingerAndALiftedOneAreNotResampled() {
        let still = Self.resampler([(0, 100), (8, 100), (16, 100)])
        #expect(Self.y(still, at: 30, now: 17) == nil)
        var lifted = Self.resampler([(0, 100), (8, 108), (16, 116)])
        lifted.add(TouchFrame(time: .milliseconds(24), contacts: [], ended: [Contact(id: Self.id, position: Point(x: 100, y: 124))]))
        #expect(lifted.frame(at: .milliseconds(30), now: .milliseconds(25)) == nil)
    }

    @Test func zeroPredictionIsOff() {
        let off = TouchConditioning(smoothing: nil, maximumPrediction: .zero)
        #expect(off.resampler == nil && off.smoother == nil)
    }

    // MARK: The 1€ filter

    @Test func aStillFingersNoiseIsSmoothed() {
        var filter = OneEuroFilter(TouchConditioning.defaultSmoothing)
        var out: [Double] = []
        for i in 0..<100 {
            // ±1 px alternating noise at 125 Hz around y = 100.
            out.append(filter.filter(Point(x: 0, y: 100 + (i % 2 == 0 ? 1 : -1)), at: .milliseconds(Double(i) * 8)).y)
        }
        let tail = out.suffix(50)
        let rms = (tail.map { ($0 - 100) * ($0 - 100) }.reduce(0, +) / Double(tail.count)).squareRoot()
        #expect(rms < 0.2, "\(rms)")
    }

    @Test func aSteadyFingerAt1000pxPerSecondIsTrailedByUnderAMillisecond() {
        var filter = OneEuroFilter(TouchConditioning.defaultSmoothing)
        var gap = 0.0
        for i in 0...125 {
            let y = Double(i) * 8
            gap = y - filter.filter(Point(x: 0, y: y), at: .milliseconds(Double(i) * 8)).y
        }
        // 1 ms at 1000 px/s is 1 px.
        #expect(gap > 0 && gap < 1, "\(gap)")
        #expect(TouchConditioning.defaultSmoothing.lag(atSpeed: 1000) < .milliseconds(1))
    }

    @Test func theFirstPointPassesAndALiftIsSmoothedLikeAMove() {
        var smoother = TouchSmoother(TouchConditioning.defaultSmoothing)
        let down = smoother.smooth(TouchFrame(time: .zero, contacts: [Contact(id: Self.id, position: Point(x: 5, y: 5))], began: [Self.id]))
        #expect(down.contacts[0].position == Point(x: 5, y: 5))
        let up = smoother.smooth(TouchFrame(time: .milliseconds(8), contacts: [], ended: [Contact(id: Self.id, position: Point(x: 5, y: 7))]))
        #expect(up.ended[0].position.y > 5 && up.ended[0].position.y < 7)
    }
}
