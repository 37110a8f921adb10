import Testing
@testable import FlickCore

@Suite struct GestureTests {
    // MARK: 1. Taps at 60, 120 and 250 Hz

    @Test(arguments: [60.0, 120, 250])
    func tapsAreExactlyOneContentTap(hz: Double) throws {
        let period = 1000 / hz
        // A down and an up 30 µs apart.
        var h = GestureHarness()
        h.down(1, 400, 240); h.send()
        h.advance(ms: 0.03); h.up(1); h.send()
        h.wait(ms: 600)
        var out = h.take()
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 240)), .up(Point(x: 400, y: 240)), .tap(Point(x: 400, y: 240))])
        #expect(GestureHarness.scroll(out).isEmpty)

        // Down and up in the same frame.
        h.advance(ms: 1000)
        h.down(2, 100, 100); h.up(2); h.send()
        h.wait(ms: 600)
        out = h.take()
        #expect(GestureHarness.taps(out) == 1 && GestureHarness.scroll(out).isEmpty)

        // An 80 ms tap with no motion frames.
        h.advance(ms: 1000)
        h.down(3, 200, 300); h.send()
        h.wait(ms: 80)
        h.up(3); h.send()
        h.wait(ms: 600)
        out = h.take()
        #expect(GestureHarness.content(out) == [.down(Point(x: 200, y: 300)), .up(Point(x: 200, y: 300)), .tap(Point(x: 200, y: 300))])
        #expect(GestureHarness.scroll(out).isEmpty)

        // A 200 ms tap with 1 px of jitter at the report rate: the content hears it at 150 ms.
        h.advance(ms: 1000)
        let touched = h.now
        h.down(4, 500, 200); h.send()
        var elapsed = 0.0, i = 0
        while elapsed + period < 200 {
            h.wait(ms: period); elapsed += period; i += 1
            h.move(4, 500 + (i.isMultiple(of: 2) ? 1 : 0), 200 + (i % 3 == 0 ? 1 : 0)); h.send()
        }
        h.up(4); h.send()
        h.wait(ms: 600)
        out = h.take()
        let content = GestureHarness.content(out)
        #expect(content.first == .down(Point(x: 500, y: 200)))
        // After its down the content hears the jitter (every report that moved the finger), then
        // the up and the tap.
        let moves = content.compactMap { if case let .move(p) = $0 { p } else { nil } }
        let lift = try #require(moves.last)
        #expect(content.filter { if case .move = $0 { false } else { true } }
                == [.down(Point(x: 500, y: 200)), .up(lift), .tap(lift)])
        #expect(moves.allSatisfy { $0.distance(to: Point(x: 500, y: 200)) <= 1.5 })
        #expect(GestureHarness.taps(out) == 1)
        #expect(GestureHarness.scroll(out).isEmpty)
        let downTime = out.first { if case .content(.down) = $0.kind { true } else { false } }?.time
        #expect(downTime == touched + .milliseconds(150))
    }

    // MARK: 2. A fast move is a drag

    @Test func twentyMillimetresIn100msIsADrag() {
        var h = GestureHarness() // 4 px/mm → 80 px
        h.down(1, 400, 400); h.send()
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 400 - 8 * Double(i)); h.send() }
        h.up(1); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty)
        #expect(GestureHarness.scroll(out).filter { $0 == .willBeginDragging }.count == 1)
        #expect(h.view.contentOffset.y > 80)
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
    }

    @Test func dragStartsWithoutAJump() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        h.advance(ms: 10); h.move(1, 400, 390); h.send() // within the 12 px slop
        #expect(h.view.contentOffset.y == 0)
        h.advance(ms: 10); h.move(1, 400, 380); h.send() // 20 px: 8 px beyond the slop
        #expect(abs(h.view.contentOffset.y - 8) < 1e-9)
        h.advance(ms: 10); h.move(1, 400, 370); h.send()
        #expect(abs(h.view.contentOffset.y - 18) < 1e-9)
    }

    // MARK: 3. Held, then moved

    @Test func heldThenMovedCancelsTheContentTouch() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        h.wait(ms: 200)
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 400 - 10 * Double(i)); h.send() }
        h.up(1); h.send()
        h.settle()
        let out = h.take()
        // The content hears the move within the slop (10 px), then loses the touch.
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400)), .move(Point(x: 400, y: 390)), .cancel])
        let scroll = GestureHarness.scroll(out)
        #expect(scroll.first == .willBeginDragging)
        #expect(h.view.contentOffset.y > 50)
        // The cancel comes before the first scroll.
        let cancelIndex = out.firstIndex { $0.kind == .content(.cancel) }!
        let dragIndex = out.firstIndex { $0.kind == .scroll(.willBeginDragging) }!
        #expect(cancelIndex < dragIndex)
    }

    @Test func heldThenMovedWithoutCancelDoesNotScroll() {
        var h = GestureHarness(configure: { $0.canCancelContentTouches = false })
        h.down(1, 400, 400); h.send()
        h.wait(ms: 200)
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 400 - 10 * Double(i)); h.send() }
        h.up(1); h.send()
        h.settle()
        let out = h.take()
        let moves = (1...10).map { ContentTouch.move(Point(x: 400, y: 400 - 10 * Double($0))) }
        #expect(GestureHarness.content(out) == [.down(Point(x: 400, y: 400))] + moves + [.up(Point(x: 400, y: 300))])
        #expect(GestureHarness.scroll(out).isEmpty)
        #expect(h.view.contentOffset == .zero)
    }

    // MARK: 4. Velocity

    @Test(arguments: [300.0, 1200, 3000])
    func flickVelocityIsEstimatedWithin5Percent(speed: Double) {
        var h = GestureHarness(content: Size(width: 800, height: 100_000))
        h.down(1, 400, 460); h.send()
        var y = 460.0
        for _ in 0..<12 { h.advance(ms: 8); y -= speed * 0.008; h.move(1, 400, y); h.send() }
        h.up(1); h.send()
        let out = h.take()
        guard case let .flick(v, _, _)? = GestureHarness.gestures(out).last else {
            Issue.record("no flick in \(GestureHarness.gestures(out))")
            return
        }
        #expect(abs(-v.dy - speed) <= 0.05 * speed)
        #expect(abs(v.dx) < 1)
    }

    @Test func slowReleaseHasNoMomentum() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        // 10 mm/s at 4 px/mm = 40 px/s, for two seconds.
        for i in 1...200 { h.advance(ms: 10); h.move(1, 400, 400 - 0.4 * Double(i)); h.send() }
        h.up(1); h.send()
        let out = h.take()
        #expect(GestureHarness.scroll(out).contains(.didEndDragging(willDecelerate: false)))
        #expect(!h.view.isDecelerating)
    }

    @Test func velocityTrackerCopesWithOddInput() {
        var v = VelocityTracker()
        #expect(v.velocity(at: .seconds(1)) == .zero)
        v.add(Point(x: 10, y: 10), at: .seconds(1))
        #expect(v.velocity(at: .seconds(1)) == .zero)
        v.add(Point(x: 20, y: 10), at: .seconds(1))
        v.add(Point(x: 30, y: 10), at: .seconds(1))
        #expect(v.velocity(at: .seconds(1)).isFinite)
        v.reset()
        var rng = SplitMix(seed: 3)
        for i in 0..<20 {
            v.add(Point(x: Double(i) * 10 + rng.next(in: -1...1), y: 0), at: .milliseconds(1000 + Double(i) * 5))
        }
        let estimate = v.velocity(at: .milliseconds(1095)).dx
        #expect(abs(estimate - 2000) < 200)
        // A pause longer than the reset gap before the lift: the finger had stopped.
        #expect(v.velocity(at: .milliseconds(1200)) == .zero)
    }

    // MARK: 5. Pinch

    func pinchHarness() -> GestureHarness {
        GestureHarness(content: Size(width: 1600, height: 960), scroll: { try $0.setZoomScaleLimits(minimum: 0.5, maximum: 5) })
    }

    @Test func pinchFrom100To300TriplesTheZoom() {
        var h = pinchHarness()
        let centre = Point(x: 400, y: 240)
        h.down(1, 350, 240); h.down(2, 450, 240); h.send()
        let anchor = h.recognizer.contentPoint(centre)
        for i in 1...20 {
            h.advance(ms: 10)
            let half = 50 + 5 * Double(i)
            h.move(1, 400 - half, 240); h.move(2, 400 + half, 240); h.send()
            #expect(h.recognizer.contentPoint(centre).distance(to: anchor) * h.view.zoomScale <= 0.5)
        }
        #expect(abs(h.view.zoomScale - 3) < 1e-9)
        // One finger lifts; the other drags on without a jump.
        h.advance(ms: 10); h.up(1); h.send()
        let before = h.view.contentOffset
        h.advance(ms: 10); h.move(2, 549, 240); h.send()
        #expect(h.view.contentOffset.distance(to: before) <= 1.000001)
        h.advance(ms: 10); h.move(2, 540, 240); h.send()
        #expect(abs(h.view.contentOffset.x - (before.x + 10)) < 1e-9)
        h.advance(ms: 200); h.up(2); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty)
        #expect(GestureHarness.gestures(out).contains(.pinch(fromScale: 1, toScale: h.view.zoomScale)))
        #expect(grammarViolation(GestureHarness.scroll(out)) == nil)
    }

    @Test func bothPinchFingersLiftingTogetherIsNoFlick() {
        var h = pinchHarness()
        h.down(1, 350, 240); h.down(2, 450, 240); h.send()
        for i in 1...20 {
            h.advance(ms: 10)
            let half = 50 + 5 * Double(i)
            h.move(1, 400 - half, 240); h.move(2, 400 + half, 240); h.send()
        }
        h.advance(ms: 10); h.up(1); h.up(2); h.send()
        h.settle()
        let gestures = GestureHarness.gestures(h.take())
        #expect(gestures.count == 2 && gestures.first == .pinch(fromScale: 1, toScale: h.view.zoomScale))
        #expect(!gestures.contains { if case .flick = $0 { true } else { false } }, "\(gestures)")
    }

    @Test func twoToOneToTwoFingersNeverJumps() {
        var h = pinchHarness()
        h.down(1, 300, 240); h.send()
        for i in 1...5 { h.advance(ms: 10); h.move(1, 300 - 10 * Double(i), 240); h.send() }
        var last = h.view.contentOffset
        h.advance(ms: 10); h.down(2, 500, 240); h.send()
        #expect(h.view.contentOffset.distance(to: last) <= 1)
        last = h.view.contentOffset
        h.advance(ms: 10); h.up(2); h.send()
        #expect(h.view.contentOffset.distance(to: last) <= 1)
        h.advance(ms: 10); h.move(1, 251, 240); h.send()
        #expect(h.view.contentOffset.distance(to: last) <= 1.000001)
    }

    // MARK: 6. Double tap and long press

    @Test func doubleTapZoomsToTheConfiguredScaleAtTheTap() {
        var h = GestureHarness(content: Size(width: 1600, height: 960), scroll: { try $0.setZoomScaleLimits(minimum: 1, maximum: 5) })
        h.down(1, 600, 300); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.advance(ms: 120)
        h.down(1, 604, 298); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.taps(out) == 1) // the first; the second is the double tap's
        #expect(h.view.zoomScale == 2)
        // The tapped content point (604, 298) stays under the finger (issue 21, part 1).
        let under = h.recognizer.contentPoint(Point(x: 604, y: 298))
        #expect(under.distance(to: Point(x: 604, y: 298)) < 0.5)
        #expect(GestureHarness.gestures(out).contains(.doubleTap(Point(x: 604, y: 298), zoomedTo: 2)))
        // Again: back out to the minimum (Photos behaviour).
        h.advance(ms: 1000)
        h.down(1, 400, 240); h.send(); h.advance(ms: 50); h.up(1); h.send()
        h.advance(ms: 100)
        h.down(1, 400, 240); h.send(); h.advance(ms: 50); h.up(1); h.send()
        h.settle()
        #expect(h.view.zoomScale == 1)
    }

    @Test func doubleTapCanGoToTheContent() {
        var h = pinchHarness()
        h.recognizer.setConfiguration({ var c = h.recognizer.configuration; c.doubleTapAction = .content; return c }())
        h.down(1, 600, 300); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.advance(ms: 120)
        h.down(1, 600, 300); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.settle()
        let content = GestureHarness.content(h.take())
        #expect(content.suffix(3) == [.down(Point(x: 600, y: 300)), .up(Point(x: 600, y: 300)), .doubleTap(Point(x: 600, y: 300))])
        #expect(h.view.zoomScale == 1)
    }

    @Test func tapsFarApartInTimeAreTwoTaps() {
        var h = pinchHarness()
        h.down(1, 600, 300); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.wait(ms: 400)
        h.down(1, 600, 300); h.send(); h.advance(ms: 60); h.up(1); h.send()
        h.settle()
        let out = h.take()
        #expect(GestureHarness.taps(out) == 2)
        #expect(h.view.zoomScale == 1)
    }

    @Test func longPressFiresOnceAfter500ms() {
        var h = GestureHarness()
        let start = h.now
        h.down(1, 300, 200); h.send()
        h.wait(ms: 499)
        #expect(!GestureHarness.content(h.outputs).contains(.longPress(Point(x: 300, y: 200))))
        h.wait(ms: 1500)
        h.up(1); h.send()
        let out = h.take()
        let presses = out.filter { $0.kind == .content(.longPress(Point(x: 300, y: 200))) }
        #expect(presses.count == 1)
        #expect(presses.first?.time == start + .milliseconds(500))
        #expect(GestureHarness.content(out) == [.down(Point(x: 300, y: 200)), .longPress(Point(x: 300, y: 200)), .up(Point(x: 300, y: 200))])
    }

    // MARK: 7. A touch during deceleration

    @Test func touchDuringDecelerationStopsAndIsNoTap() {
        var h = GestureHarness()
        h.down(1, 400, 400); h.send()
        for i in 1...8 { h.advance(ms: 8); h.move(1, 400, 400 - 16 * Double(i)); h.send() }
        h.up(1); h.send()
        h.wait(ms: 300)
        #expect(h.view.isDecelerating)
        _ = h.take()
        h.advance(ms: 5)
        h.down(2, 200, 200); h.send()
        let stoppedAt = h.view.contentOffset
        #expect(!h.view.isDecelerating)
        h.wait(ms: 80)
        h.up(2); h.send()
        h.wait(ms: 500)
        let out = h.take()
        #expect(GestureHarness.content(out).isEmpty)
        #expect(h.view.contentOffset == stoppedAt)
        #expect(GestureHarness.scroll(out).filter { $0 != .didScroll } == [.didEndDecelerating])
    }

    // MARK: 8. Device removal

    @Test func removalMidDragLeavesNothingDown() {
        var h = GestureHarness()
        h.down(1, 400, 100); h.send()
        for i in 1...10 { h.advance(ms: 10); h.move(1, 400, 100 + 20 * Double(i)); h.send() } // pull past the top
        #expect(h.view.contentOffset.y < 0)
        h.advance(ms: 10); h.removeDevice()
        h.settle()
        #expect(!h.recognizer.isTouching && !h.view.isTracking)
        #expect(h.view.contentOffset == .zero)
        #expect(grammarViolation(GestureHarness.scroll(h.take())) == nil)
    }

    @Test func removalMidPinchLeavesNothingDown() {
        var h = pinchHarness()
        h.down(1, 350, 240); h.down(2, 450, 240); h.send()
        for i in 1...20 { h.advance(ms: 10); h.move(1, 350 + Double(i), 240); h.move(2, 450 - 2 * Double(i), 240); h.send() }
        #expect(h.view.zoomScale < 1)
        h.advance(ms: 10); h.removeDevice()
        h.settle()
        #expect(!h.recognizer.isTouching && !h.view.isTracking && !h.view.isZooming)
        #expect(h.view.zoomScale >= 0.5 && h.view.zoomScale <= 5)
        #expect(h.view.clampedOffset(h.view.contentOffset) == h.view.contentOffset)
        #expect(grammarViolation(GestureHarness.scroll(h.take())) == nil)
    }

    // MARK: Fingers the gesture does not need

    @Test func palmsAndExtraFingersAreIgnored() {
        var h = pinchHarness()
        h.down(9, 100, 100, tool: .palm); h.send()
        h.down(1, 300, 240); h.down(2, 500, 240); h.send()
        h.advance(ms: 10); h.down(3, 700, 400); h.send()
        for i in 1...10 { h.advance(ms: 10); h.move(1, 300 - Double(i), 240); h.move(2, 500 + Double(i), 240); h.move(3, 700, 400 - 30 * Double(i)); h.send() }
        #expect(abs(h.view.zoomScale - 220.0 / 200) < 1e-9)
        h.up(1); h.up(2); h.up(3); h.up(9); h.send()
        h.settle()
        #expect(!h.recognizer.isTouching)
        #expect(GestureHarness.content(h.take()).isEmpty)
    }
}
