import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// Gesture storms: a seeded generator plays long stretches of virtual time at a protocol B panel
/// — 1 to 10 fingers, jumps across the glass, palms, `SYN_DROPPED` with a state replay, device
/// removals and re-adds, and timestamps that repeat or step back by a few µs — through the real
/// decoder, recogniser and scroll view, as the daemon's loop would (timers flushed by event time,
/// animations stepped at 60 Hz vblanks). After every frame: every value finite, the offset within
/// the rubber band's reach, the delegate grammar intact; after every lift of the last finger, and
/// at the end, no contact left down.
///
/// CI runs 4 seeds × 15 virtual minutes; `FLICKD_STORM_MINUTES` and `FLICKD_STORM_SEEDS`
/// (e.g. `1-50`) make longer runs; a failure names its seed and frame so it can be replayed.
@Suite struct GestureStormTests {
    static let minutes = Double(ProcessInfo.processInfo.environment["FLICKD_STORM_MINUTES"] ?? "") ?? 15
    static let seeds: [UInt64] = {
        let spec = ProcessInfo.processInfo.environment["FLICKD_STORM_SEEDS"] ?? "1-4"
        let bounds = spec.split(separator: "-").compactMap { UInt64($0) }
        guard let low = bounds.first else { return [1, 2, 3, 4] }
        return Array(low...(bounds.last ?? low))
    }()

    /// SplitMix64: the same stream for a seed on every machine.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    }

    /// One storm: the generator, the pipeline, the checks.
    struct Storm {
        static let panel = DeviceDescription.slotTouchscreen(name: "storm panel", width: 8000, height: 4800, slots: 10,
                                                             resolution: 100)
        var rng: Random
        let seed: UInt64
        var time = Instant.seconds(10_000)
        var decoder: TouchDecoder
        var replug = 0
        var recognizer: GestureRecognizer
        /// What the recogniser returned since the last check.
        var pending: [GestureOutput] = []
        /// Repeated timestamps let a touch stop a deceleration in the instant it began.
        var grammar = DelegateGrammar(allowingInstantStops: true)
        var nextVblank: Instant
        var fingers: [Int32: (id: Int32, x: Int32, y: Int32)] = [:]
        var nextTrackingID: Int32 = 1
        var frames = 0
        var reports = 0
        var problems: [String] = []
        let vblank = Duration.nanoseconds(16_666_667)

        init(seed: UInt64) {
            self.seed = seed
            rng = Random(state: seed)
            let size = Size(width: 800, height: 480)
            decoder = TouchDecoder(description: Self.panel,
                                   transform: TouchTransform(description: Self.panel, mapping: TouchMapping(), outputSize: size)!)
            var view = try! ScrollView(boundsSize: size, contentSize: Size(width: 2400, height: 6000))
            try! view.setZoomScaleLimits(minimum: 0.5, maximum: 4)
            view.isPagingEnabled = seed.isMultiple(of: 3)
            view.isDirectionalLockEnabled = seed.isMultiple(of: 2)
            view.bounces = seed % 5 != 0
            var configuration = GestureConfiguration()
            configuration.pixelsPerMillimetre = 1
            configuration.scrollToTopStripHeight = seed.isMultiple(of: 4) ? 20 : 0
            recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
            nextVblank = time
        }

        mutating func problem(_ what: String) {
            if problems.count < 5 {
                problems.append("seed \(seed), frame \(frames), t = \(time.nanoseconds) ns: \(what)")
            }
        }

        // MARK: The loop

        /// Fires timers and steps animations up to `t`, as the daemon's loop does between inputs.
        mutating func run(until t: Instant) {
            while nextVblank <= t {
                pending += recognizer.fireTimers(upTo: nextVblank)
                if recognizer.scrollView.isAnimating { pending += recognizer.advance(to: nextVblank) }
                check()
                nextVblank = nextVblank + vblank
            }
        }

        mutating func deliver(_ frame: TouchFrame?) {
            guard let frame else { return }
            run(until: frame.time)
            pending += recognizer.handle(frame)
            frames += 1
            check()
        }

        mutating func feed(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            deliver(decoder.feed(InputEvent(time: time, type: type, code: code, value: value)))
        }

        /// Closes a report (a report that changed nothing is no frame).
        mutating func report() {
            reports += 1
            feed(EventCode.EV_SYN, EventCode.SYN_REPORT, 0)
        }

        /// The invariants after every step.
        mutating func check() {
            // The stamped stream, as subscribers get it: order, clock, duplicates, flags.
            for output in pending {
                let violation: String?
                switch output.kind {
                case let .scroll(event):
                    guard let state = output.state else { problem("\(event) without a state"); continue }
                    violation = grammar.accept(event, at: output.time, state: state)
                case let .state(state):
                    violation = grammar.acceptState(state, at: output.time)
                case .content, .gesture:
                    violation = grammar.acceptOther(at: output.time)
                case .transition, .diagnostic:
                    violation = nil
                }
                if let violation { problem(violation) }
            }
            pending.removeAll(keepingCapacity: true)
            let v = recognizer.scrollView
            guard v.contentOffset.isFinite, v.zoomScale.isFinite, v.zoomScale > 0 else {
                return problem("non-finite view: offset \(v.contentOffset), zoom \(v.zoomScale)")
            }
            // The rubber band never lets the content go a whole screen past an edge.
            let clamped = v.clampedOffset(v.contentOffset)
            if abs(v.contentOffset.x - clamped.x) > v.boundsSize.width || abs(v.contentOffset.y - clamped.y) > v.boundsSize.height {
                problem("offset \(v.contentOffset) beyond the rubber band's reach of \(clamped) (zoom \(v.zoomScale), "
                        + "tracking \(v.isTracking), zooming \(v.isZooming), decelerating \(v.isDecelerating), "
                        + "zoom bounce \(v.isZoomBouncing), animating \(v.isScrollAnimating))")
            }
        }

        // MARK: The generator

        mutating func step() {
            // Time: mostly 2–8 ms, sometimes the same µs or a few µs back, sometimes a pause.
            switch rng.int(0...99) {
            case 0...2: break
            case 3...4: time = time - .nanoseconds(Int64(rng.int(1...5)) * 1000)
            case 5...7: time = time + .milliseconds(Int64(rng.int(50...1200)))
            default: time = time + .microseconds(Int64(rng.int(2000...8000)))
            }
            let roll = rng.int(0...999)
            switch roll {
            case 0...2: dropped()
            case 3: removeAndReplug()
            case 4...120 where fingers.count < 10: down()
            case 121...220 where !fingers.isEmpty: up(all: rng.chance(10))
            default: move()
            }
            if fingers.isEmpty, !decoder.hasContacts, recognizer.isTouching {
                problem("every finger lifted but the recogniser still follows one")
            }
        }

        mutating func slotEvents(_ slot: Int32) {
            feed(EventCode.EV_ABS, EventCode.ABS_MT_SLOT, slot)
        }

        mutating func down() {
            let free = (0..<Int32(10)).filter { fingers[$0] == nil }
            let slot = free[rng.int(0...(free.count - 1))]
            let finger = (id: nextTrackingID, x: Int32(rng.int(0...7999)), y: Int32(rng.int(0...4799)))
            nextTrackingID = nextTrackingID == 65_535 ? 1 : nextTrackingID + 1
            fingers[slot] = finger
            slotEvents(slot)
            feed(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, finger.id)
            feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, finger.x)
            feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, finger.y)
            feed(EventCode.EV_ABS, EventCode.ABS_MT_TOOL_TYPE, rng.chance(3) ? 2 : 0)
            report()
        }

        mutating func up(all: Bool) {
            let slots = all ? fingers.keys.sorted() : [fingers.keys.sorted()[rng.int(0...(fingers.count - 1))]]
            for slot in slots {
                fingers[slot] = nil
                slotEvents(slot)
                feed(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
            }
            report()
            if fingers.isEmpty, decoder.hasContacts { problem("the decoder holds a contact after the last lift") }
        }

        mutating func move() {
            for slot in fingers.keys.sorted() where rng.chance(80) {
                guard var f = fingers[slot] else { continue }
                if rng.chance(2) {
                    f.x = Int32(rng.int(0...7999)); f.y = Int32(rng.int(0...4799))  // a jump
                } else {
                    f.x = min(7999, max(0, f.x + Int32(rng.int(-300...300))))
                    f.y = min(4799, max(0, f.y + Int32(rng.int(-300...300))))
                }
                fingers[slot] = f
                slotEvents(slot)
                feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, f.x)
                feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, f.y)
            }
            report()
        }

        /// The kernel dropped events: some changes are lost, then libevdev replays the state.
        mutating func dropped() {
            feed(EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)
            // Lost while dropping: some fingers lift, some move, a new one lands.
            for slot in fingers.keys.sorted() where rng.chance(30) { fingers[slot] = nil }
            if fingers.count < 10, rng.chance(50) {
                let slot = (0..<Int32(10)).first { fingers[$0] == nil }!
                fingers[slot] = (id: nextTrackingID, x: Int32(rng.int(0...7999)), y: Int32(rng.int(0...4799)))
                nextTrackingID += 1
            }
            feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, 1)   // discarded
            report()                                                 // ends the discarding
            time = time + .microseconds(100)
            for slot in Int32(0)..<10 {
                slotEvents(slot)
                if let f = fingers[slot] {
                    feed(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, f.id)
                    feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, f.x)
                    feed(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, f.y)
                } else {
                    feed(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
                }
            }
            report()
        }

        /// The cable is pulled mid-whatever, then the device comes back with nothing down.
        mutating func removeAndReplug() {
            deliver(decoder.deviceRemoved(at: time))
            if recognizer.isTouching { problem("a touch is stuck after the device was removed") }
            fingers.removeAll()
            replug += 1
            decoder = TouchDecoder(description: Self.panel, transform: decoder.transform, idBase: replug)
        }

        /// Everything lifts, then the view settles.
        mutating func finish() {
            if !fingers.isEmpty { up(all: true) }
            time = time + .seconds(30)
            run(until: time)
            if decoder.hasContacts || recognizer.isTouching { problem("a contact is left down at the end") }
            let v = recognizer.scrollView
            if v.isTracking || v.isAnimating { problem("the view still moves 30 s after the last lift") }
            if !grammar.isClosed { problem("a delegate begin without its end") }
        }
    }

    @Test(arguments: seeds)
    func aStormKeepsEveryInvariant(seed: UInt64) {
        var storm = Storm(seed: seed)
        let end = storm.time + .seconds(Int64(Self.minutes * 60))
        while storm.time < end && storm.problems.isEmpty { storm.step() }
        storm.finish()
        for problem in storm.problems { Issue.record(Comment(rawValue: problem)) }
        // About 40 reports a virtual second; reports with nothing changed (no finger) are no frame.
        #expect(storm.reports > Int(Self.minutes * 60 * 20), "seed \(seed): only \(storm.reports) reports")
        #expect(storm.frames > storm.reports / 10, "seed \(seed): only \(storm.frames) frames of \(storm.reports) reports")
        #expect(storm.grammar.count > 1000, "seed \(seed): only \(storm.grammar.count) delegate messages")
    }
}
