import Testing
@testable import FlickCore

/// Random frame streams through the recogniser and model: nothing non-finite, the delegate
/// grammar holds, and nothing is left down once every finger lifts.
@Suite struct GesturePropertyTests {
    @Test(arguments: 1...12)
    func randomStreamsKeepTheInvariants(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        var h = GestureHarness(content: Size(width: 2400, height: 5000), scroll: {
            try $0.setZoomScaleLimits(minimum: 0.5, maximum: 4)
            $0.isPagingEnabled = seed.isMultiple(of: 3)
            $0.isDirectionalLockEnabled = seed.isMultiple(of: 2)
            $0.bounces = seed % 5 != 0
        })
        var down: [Int: Point] = [:]
        var nextID = 1
        var scroll: [ScrollEvent] = []
        for _ in 0..<3000 {
            // Time: equal timestamps, small steps, and now and then a long pause.
            switch rng.int(0...9) {
            case 0: break
            case 1: h.wait(ms: rng.next(in: 50...900))
            default: h.advance(ms: rng.next(in: 1...20))
            }
            let roll = rng.int(0...99)
            if roll < 12 && down.count < 10 {
                let p = Point(x: rng.next(in: -50...850), y: rng.next(in: -50...530))
                down[nextID] = p
                h.down(nextID, p.x, p.y, tool: rng.int(0...30) == 0 ? .palm : .finger)
                nextID += 1
            } else if roll < 22, !down.isEmpty {
                // Sorted, so a seed replays the same way in every process.
                let id = down.keys.sorted()[rng.int(0...(down.count - 1))]
                down[id] = nil
                h.up(id, cancelled: rng.int(0...9) == 0)
            } else if roll == 22 {
                for id in down.keys.sorted() { h.up(id, cancelled: true) }
                down.removeAll()
            } else {
                for id in down.keys.sorted() {
                    let p = down[id]!
                    // Mostly smooth motion, sometimes a jump across the panel.
                    let jump = rng.int(0...40) == 0
                    let q = jump ? Point(x: rng.next(in: 0...800), y: rng.next(in: 0...480))
                                 : Point(x: p.x + rng.next(in: -30...30), y: p.y + rng.next(in: -30...30))
                    down[id] = q
                    h.move(id, q.x, q.y)
                }
            }
            h.send()
            let v = h.view
            #expect(v.contentOffset.isFinite && v.zoomScale.isFinite && v.zoomScale > 0)
            scroll += GestureHarness.scroll(h.take())
        }
        for id in down.keys.sorted() { h.up(id) }
        h.send()
        h.settle(maxSeconds: 60)
        scroll += GestureHarness.scroll(h.take())
        #expect(!h.recognizer.isTouching && !h.view.isTracking && !h.view.isAnimating)
        #expect(h.view.zoomScale >= 0.5 - 1e-9 && h.view.zoomScale <= 4 + 1e-9)
        #expect(h.view.clampedOffset(h.view.contentOffset).distance(to: h.view.contentOffset) < 0.5)
        #expect(scroll.contains(.willBeginDragging) && scroll.contains(.willBeginDecelerating), "seed \(seed)")
        // Equal timestamps let a touch stop a deceleration in the instant it began, before it moved.
        if let violation = grammarViolation(scroll, allowingInstantStops: true) { Issue.record("seed \(seed): \(violation)") }
        #expect(h.diagnostics.filter { $0.hasPrefix("invalid") }.isEmpty, "seed \(seed)")
    }
}
