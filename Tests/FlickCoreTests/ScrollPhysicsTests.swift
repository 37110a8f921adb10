import RealModule
import Testing
@testable import FlickCore

@Suite struct ScrollPhysicsTests {
    /// A flick on content far too large to reach an edge.
    func flick(rate: Double, velocity: Double, start: Double = 20_000, period: Double = 1.0 / 60) throws -> ScrollHarness {
        var h = ScrollHarness(content: Size(width: 400, height: 100_000))
        h.view.decelerationRate = try DecelerationRate(rate)
        h.period = period
        try h.view.setContentOffset(Point(x: 0, y: start), animated: false, at: h.now)
        h.down()
        h.move(dy: -10)
        h.up(vy: -velocity)
        return h
    }

    @Test(arguments: [0.998, 0.99, 0.995])
    func flickRestsAtProjection(rate: Double) throws {
        for v in [300.0, 1500, 4000] {
            var h = try flick(rate: rate, velocity: v)
            let x0 = h.view.contentOffset.y
            let expected = x0 - v / (1000 * Double.log(rate))
            h.runToRest(seconds: 60)
            #expect(abs(h.view.contentOffset.y - expected) <= 1, "rate \(rate) v \(v)")
            #expect(!h.view.isDecelerating)
        }
    }

    @Test func flickIntoEdgeClampsWithoutBounces() throws {
        var h = ScrollHarness()
        h.view.bounces = false
        try h.view.setContentOffset(Point(x: 0, y: 2500), animated: false, at: h.now)
        h.down(); h.move(dy: -10); h.up(vy: -3000)
        var peak = 0.0
        while h.view.isAnimating { h.advance(ms: 8); h.view.advance(to: h.now); peak = max(peak, h.view.contentOffset.y) }
        #expect(peak == 2700)
        #expect(h.view.contentOffset.y == 2700)
    }

    @Test func flickIntoEdgeBouncesBack() throws {
        var h = ScrollHarness()
        try h.view.setContentOffset(Point(x: 0, y: 2500), animated: false, at: h.now)
        h.down(); h.move(dy: -10); h.up(vy: -3000)
        var peak = 0.0
        while h.view.isAnimating { h.advance(ms: 8); h.view.advance(to: h.now); peak = max(peak, h.view.contentOffset.y) }
        #expect(peak > 2710 && peak < 2700 + 300) // carried past the end, less than a viewport
        #expect(h.view.contentOffset.y == 2700)
        #expect(grammarViolation(h.take()) == nil)
    }

    @Test func pathIsFrameRateIndependent() throws {
        // A flick that ends in a bounce at the bottom edge, so every piece of the path is covered.
        func path(hz: Double) throws -> [Int: Double] {
            var h = ScrollHarness()
            try h.view.setContentOffset(Point(x: 0, y: 1500), animated: false, at: h.now)
            h.down(); h.move(dy: -10); h.up(vy: -2500)
            let start = h.now
            var samples: [Int: Double] = [:]
            var frame = 0
            while h.view.isAnimating {
                frame += 1
                // Frame times from the start, exact to the nanosecond, as vblanks would be.
                h.now = start + .nanoseconds(Int64((Double(frame) / hz * 1e9).rounded()))
                h.view.advance(to: h.now)
                let sixths = Double(frame) / hz * 6
                if abs(sixths - sixths.rounded()) < 1e-9 { samples[Int(sixths.rounded())] = h.view.contentOffset.y }
            }
            samples[-1] = h.view.contentOffset.y
            return samples
        }
        let reference = try path(hz: 30)
        for hz in [60.0, 120, 144] {
            let other = try path(hz: hz)
            for (k, y) in reference where k >= 0 {
                guard let o = other[k] else { continue }
                #expect(abs(o - y) <= 0.5, "\(hz) Hz at \(Double(k) / 6) s: \(o) vs \(y)")
            }
            #expect(abs(other[-1]! - reference[-1]!) <= 0.5)
        }
        #expect(reference.count > 10)
    }

    @Test func rubberBandMatchesFormula() {
        for pull in [10.0, 50, 150, 400, 2000] {
            var h = ScrollHarness()
            h.down()
            h.move(dy: pull, steps: 7)
            let dim = 300.0
            let expected = (1 - 1 / (pull * 0.55 / dim + 1)) * dim
            #expect(abs(-h.view.contentOffset.y - expected) <= 0.1, "pull \(pull)")
        }
    }

    @Test func rubberBandReturnsWithTheFinger() {
        var h = ScrollHarness()
        h.down()
        h.move(dy: 200, steps: 5)
        h.move(dy: -200, steps: 5)
        #expect(abs(h.view.contentOffset.y) < 1e-9)
    }

    @Test func noBouncesClampsAtTheEdge() {
        var h = ScrollHarness { $0.bounces = false }
        h.down()
        h.move(dy: 150, steps: 3)
        #expect(h.view.contentOffset.y == 0)
        h.up()
        #expect(!h.view.isDecelerating)
    }

    @Test func alwaysBounceVerticalLetsShortContentBounce() {
        var still = ScrollHarness(content: Size(width: 400, height: 200))
        still.down(); still.move(dy: 100, steps: 4)
        #expect(still.view.contentOffset == .zero)
        still.up()
        #expect(still.take() == [])

        var h = ScrollHarness(content: Size(width: 400, height: 200)) { $0.alwaysBounceVertical = true }
        h.down(); h.move(dy: 100, steps: 4)
        #expect(h.view.contentOffset.y < -10)
        #expect(h.view.contentOffset.x == 0)
        h.up()
        h.runToRest()
        #expect(h.view.contentOffset == .zero)
    }

    // MARK: Paging

    func pager() -> ScrollHarness {
        ScrollHarness(bounds: Size(width: 400, height: 300), content: Size(width: 2000, height: 300)) {
            $0.isPagingEnabled = true
        }
    }

    @Test func pagingVelocityRuleTurnsThePage() {
        var h = pager()
        h.down(); h.move(dx: -80, steps: 4) // 20 % of a page
        h.up(vx: -600)                     // fast towards page 1
        h.runToRest()
        #expect(h.view.contentOffset.x == 400)
    }

    @Test func pagingSlowShortDragReturns() {
        var h = pager()
        h.down(); h.move(dx: -150, steps: 4) // 37.5 %
        h.up(vx: -200)                       // below the paging velocity
        h.runToRest()
        #expect(h.view.contentOffset.x == 0)
    }

    @Test func pagingHalfwayRuleTurnsThePage() {
        var h = pager()
        h.down(); h.move(dx: -240, steps: 4) // 60 %
        h.advance(ms: 100)
        h.up()
        #expect(h.view.isDecelerating)
        h.runToRest()
        #expect(h.view.contentOffset.x == 400)
    }

    @Test func pagingNeverSkipsAPageAndNeverOvershoots() {
        var h = pager()
        h.down(); h.move(dx: -100, steps: 2)
        h.up(vx: -8000)
        var peak = 0.0
        while h.view.isAnimating { h.advance(ms: 16); h.view.advance(to: h.now); peak = max(peak, h.view.contentOffset.x) }
        #expect(h.view.contentOffset.x == 400)
        #expect(peak <= 400)
    }

    @Test func pagingAlwaysRestsOnABoundary() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<200 {
            var h = pager()
            h.down()
            h.move(dx: rng.next(in: -700...700), steps: 5)
            h.up(vx: rng.next(in: -3000...3000))
            h.runToRest()
            let x = h.view.contentOffset.x
            #expect(x.truncatingRemainder(dividingBy: 400) == 0 && x >= 0 && x <= 1600, "rest at \(x)")
        }
    }

    // MARK: Directional lock

    @Test func directionalLockKeepsAVerticalDragVertical() {
        var h = ScrollHarness(content: Size(width: 3000, height: 3000)) { $0.isDirectionalLockEnabled = true }
        try? h.view.setContentOffset(Point(x: 1000, y: 1000), animated: false, at: h.now)
        h.down()
        h.move(dx: 5, dy: -30)
        for i in 0..<20 { h.move(dx: i.isMultiple(of: 2) ? 12 : -7, dy: -20) }
        h.up(vx: 300, vy: -2000)
        h.runToRest()
        #expect(h.view.contentOffset.x == 1000)
        #expect(h.view.contentOffset.y > 1400)
    }

    @Test func withoutLockADiagonalDragMovesBoth() {
        var h = ScrollHarness(content: Size(width: 3000, height: 3000))
        h.down()
        h.move(dx: -5, dy: -30)
        h.move(dx: -40, dy: -40)
        #expect(h.view.contentOffset == Point(x: 45, y: 70))
    }
}

/// A tiny deterministic generator for property tests (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func nextUInt() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(nextUInt() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(nextUInt() % UInt64(range.count))
    }
}
