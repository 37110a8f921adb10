import Testing
@testable import FlickCore

/// `flickd calibrate`'s core: the least-squares fit, the target layout and the session machine
/// on synthetic frames and a virtual clock.
@Suite struct AffineFitTests {
    let skew: [Double] = [1.04, -0.03, -0.02, 0.05, 0.97, 0.015]

    @Test func recoversTheMatrixThatMadeThePoints() throws {
        let from = [Point(x: 0.1, y: 0.1), Point(x: 0.9, y: 0.1), Point(x: 0.1, y: 0.9), Point(x: 0.9, y: 0.9), Point(x: 0.5, y: 0.5)]
        let to = from.map { AffineFit.apply(skew, to: $0) }
        let m = try AffineFit.fit(from: from, to: to)
        for (got, want) in zip(m, skew) { #expect(abs(got - want) < 1e-12, "\(m)") }
    }

    @Test func threePointsNotOnALineDetermineIt() throws {
        let from = [Point(x: 0.1, y: 0.1), Point(x: 0.9, y: 0.1), Point(x: 0.1, y: 0.9)]
        let m = try AffineFit.fit(from: from, to: from.map { AffineFit.apply(skew, to: $0) })
        for (got, want) in zip(m, skew) { #expect(abs(got - want) < 1e-12) }
    }

    @Test func noisyPointsGiveTheLeastSquaresAnswer() throws {
        // Symmetric noise on a symmetric layout cancels in the offset: the fit is the mean.
        let from = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1)]
        let to = [Point(x: 0.01, y: 0), Point(x: 0.99, y: 0), Point(x: 0.01, y: 1), Point(x: 0.99, y: 1)]
        let m = try AffineFit.fit(from: from, to: to)
        #expect(abs(m[0] - 0.98) < 1e-12 && abs(m[2] - 0.01) < 1e-12 && abs(m[4] - 1) < 1e-12)
    }

    @Test func pointsOnOneLineOrTooFewAreRefused() {
        let line = [Point(x: 0.1, y: 0.1), Point(x: 0.5, y: 0.5), Point(x: 0.9, y: 0.9)]
        #expect(throws: CalibrationError.collinear(count: 3)) { try AffineFit.fit(from: line, to: line) }
        let spot = Array(repeating: Point(x: 0.5, y: 0.5), count: 4)
        #expect(throws: CalibrationError.collinear(count: 4)) { try AffineFit.fit(from: spot, to: spot) }
        let two = Array(line.prefix(2))
        #expect(throws: CalibrationError.tooFewPoints(2)) { try AffineFit.fit(from: two, to: two) }
        #expect(throws: CalibrationError.mismatched(touches: 3, targets: 2)) { try AffineFit.fit(from: line, to: two) }
        let nan = [Point(x: .nan, y: 0)] + line.dropFirst()
        #expect(throws: CalibrationError.notFinite) { try AffineFit.fit(from: nan, to: line) }
        #expect("\(CalibrationError.collinear(count: 3))".contains("not on one line"))
    }
}

@Suite struct CalibrationTargetsTests {
    let screen = Size(width: 1024, height: 768)

    @Test func fiveAreTheCornersTenPercentInAndTheCentre() throws {
        let t = try CalibrationTargets.layout(count: 5, in: screen)
        #expect(t == [Point(x: 102, y: 77), Point(x: 921, y: 77), Point(x: 102, y: 690), Point(x: 921, y: 690),
                      Point(x: 512, y: 384)])
    }

    @Test func everyAllowedCountFitsAndStaysOnScreen() throws {
        for n in CalibrationTargets.allowedCounts {
            let t = try CalibrationTargets.layout(count: n, in: screen)
            #expect(t.count == n && Set(t).count == n, "\(n): \(t)")
            #expect(t.allSatisfy { $0.x > 0 && $0.x < 1023 && $0.y > 0 && $0.y < 767 })
            _ = try AffineFit.fit(from: t, to: t)   // never collinear, three included
        }
    }

    @Test func countsOutsideTheRangeAreRefused() {
        #expect(throws: CalibrationError.pointCount(2, allowed: 3...25)) { try CalibrationTargets.layout(count: 2, in: screen) }
        #expect(throws: CalibrationError.pointCount(26, allowed: 3...25)) { try CalibrationTargets.layout(count: 26, in: screen) }
    }
}

@Suite struct CalibrationSessionTests {
    let screen = Size(width: 800, height: 480)

    func ms(_ v: Double) -> Instant { .milliseconds(v) }
    func down(_ id: Int, _ x: Double, _ y: Double, _ t: Double) -> CalibrationSession.Event {
        .frame(TouchFrame(time: ms(t), contacts: [Contact(id: ContactID(id), position: Point(x: x, y: y))], began: [ContactID(id)]))
    }
    func move(_ ids: [(Int, Double, Double)], _ t: Double, began: [Int] = []) -> CalibrationSession.Event {
        .frame(TouchFrame(time: ms(t), contacts: ids.map { Contact(id: ContactID($0.0), position: Point(x: $0.1, y: $0.2)) },
                          began: began.map(ContactID.init)))
    }
    func up(_ id: Int, _ x: Double, _ y: Double, _ t: Double, still: [(Int, Double, Double)] = []) -> CalibrationSession.Event {
        .frame(TouchFrame(time: ms(t), contacts: still.map { Contact(id: ContactID($0.0), position: Point(x: $0.1, y: $0.2)) },
                          ended: [Contact(id: ContactID(id), position: Point(x: x, y: y))]))
    }

    @Test func oneTouchPerTargetFinishesWithEachTouchsMedian() {
        var s = CalibrationSession(count: 3, screen: screen)
        #expect(s.start(at: ms(0)) == [.show(target: 0)])
        #expect(s.handle(down(1, 80, 50, 100)) == [])
        // One stray report does not move the median.
        #expect(s.handle(move([(1, 300, 50)], 108)) == [])
        #expect(s.handle(move([(1, 81, 51)], 116)) == [])
        #expect(s.handle(up(1, 80, 50, 150)) == [.accepted(target: 0, touch: Point(x: 80.5, y: 50)), .show(target: 1)])
        #expect(s.state == .waiting(target: 1, deadline: ms(150) + .seconds(30)))
        _ = s.handle(down(2, 700, 40, 1000))
        #expect(s.handle(up(2, 700, 40, 1060)) == [.accepted(target: 1, touch: Point(x: 700, y: 40)), .show(target: 2)])
        _ = s.handle(down(3, 90, 420, 2000))
        let last = s.handle(up(3, 90, 420, 2050))
        let touches = [Point(x: 80.5, y: 50), Point(x: 700, y: 40), Point(x: 90, y: 420)]
        #expect(last == [.accepted(target: 2, touch: Point(x: 90, y: 420)), .finished(touches: touches)])
        #expect(s.state == .finished && s.nextDeadline == nil && s.touches == touches)
        #expect(s.handle(down(4, 1, 1, 3000)) == [])
    }

    @Test func aSecondFingerIsRefusedAndTheTargetAskedAgainOnceAllLift() {
        var s = CalibrationSession(count: 3, screen: screen)
        _ = s.start(at: ms(0))
        _ = s.handle(down(1, 80, 50, 100))
        let refused = s.handle(move([(1, 80, 50), (2, 400, 300)], 120, began: [2]))
        #expect(refused.count == 1)
        guard case .refused(0, let why) = refused.first else { Issue.record("\(refused)"); return }
        #expect(why.contains("second finger"))
        #expect(s.handle(up(1, 80, 50, 200, still: [(2, 400, 300)])) == [])
        #expect(s.handle(up(2, 400, 300, 250)) == [.show(target: 0)])
        // Two fingers landing together are refused from waiting too.
        let both = s.handle(move([(3, 80, 50), (4, 90, 60)], 300, began: [3, 4]))
        guard case .refused(0, let why2) = both.first else { Issue.record("\(both)"); return }
        #expect(why2.contains("2 fingers"))
        #expect(s.touches.isEmpty)
    }

    @Test func aTouchFarOutsideTheScreenIsRefused() {
        var s = CalibrationSession(count: 3, screen: screen)
        _ = s.start(at: ms(0))
        let steps = s.handle(down(1, 2000, 50, 100))
        guard case .refused(0, let why) = steps.first else { Issue.record("\(steps)"); return }
        #expect(why.contains("far outside the 800x480 screen"))
        #expect(s.handle(up(1, 2000, 50, 150)) == [.show(target: 0)])
        // A little past the edge is still a touch (10 % margin).
        _ = s.handle(down(2, 810, -20, 200))
        #expect(s.handle(up(2, 810, -20, 260)).first == .accepted(target: 0, touch: Point(x: 810, y: -20)))
    }

    @Test func aTouchTooShortIsIgnoredAndTheTargetStillWaits() {
        var s = CalibrationSession(count: 3, screen: screen)
        _ = s.start(at: ms(0))
        _ = s.handle(down(1, 80, 50, 100))
        let short = s.handle(up(1, 80, 50, 104))
        guard case .ignored(0, let why) = short.first else { Issue.record("\(short)"); return }
        #expect(why.contains("4 ms"))
        // Down and up in one report.
        let instant = s.handle(.frame(TouchFrame(time: ms(200), contacts: [], began: [ContactID(2)],
                                                 ended: [Contact(id: ContactID(2), position: Point(x: 80, y: 50))])))
        guard case .ignored(0, _) = instant.first else { Issue.record("\(instant)"); return }
        #expect(s.state == .waiting(target: 0, deadline: ms(0) + .seconds(30)))
    }

    @Test func aCancelledTouchDoesNotCount() {
        var s = CalibrationSession(count: 3, screen: screen)
        _ = s.start(at: ms(0))
        _ = s.handle(down(1, 80, 50, 100))
        let steps = s.handle(.frame(TouchFrame(time: ms(200), contacts: [],
                                               ended: [Contact(id: ContactID(1), position: Point(x: 80, y: 50))],
                                               cancelled: [ContactID(1)])))
        guard case .refused(0, _) = steps.first else { Issue.record("\(steps)"); return }
        #expect(s.touches.isEmpty && s.state == .waiting(target: 0, deadline: ms(0) + .seconds(30)))
    }

    @Test func aTargetWithNoTouchTimesOutAtItsDeadline() {
        var settings = CalibrationSession.Settings()
        settings.timeout = .seconds(5)
        var s = CalibrationSession(count: 3, screen: screen, settings: settings)
        _ = s.start(at: ms(1000))
        #expect(s.nextDeadline == ms(6000))
        #expect(s.handle(.timer(ms(5999))) == [])
        // A finger resting on the panel does not hold the deadline off.
        _ = s.handle(down(1, 80, 50, 5000))
        #expect(s.handle(.timer(ms(6000))) == [.timedOut(target: 0)])
        #expect(s.state == .failed && s.nextDeadline == nil)
        #expect("\(CalibrationError.timedOut(target: 0, of: 3, seconds: 5))".contains("no touch on target 1/3 within 5 s"))
    }
}
