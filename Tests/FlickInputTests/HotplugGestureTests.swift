import FlickCore
@testable import FlickInput
import Foundation
import Testing

/// The device vanishes in the middle of a flick, a pinch and a long press, then comes back:
/// no touch is stuck in the recogniser or the view, the content hears a cancel rather than a
/// press, and the next tap works without a restart.
@Suite struct HotplugGestureTests {
    enum Moment: String, CaseIterable { case midFlick, midPinch, midLongPress }

    /// TouchInput over a scripted device in a temporary folder, feeding a recogniser.
    struct Rig {
        let dir: String
        let devices = HotplugTests.Devices()
        let input: TouchInput
        var recognizer: GestureRecognizer
        var outputs: [GestureOutput] = []

        init() throws {
            dir = try temporaryDirectory()
            devices.describe["event3"] = .slotTouchscreen(width: 800, height: 480)
            input = TouchInput(options: TouchInputOptions(directory: dir, outputSize: Size(width: 800, height: 480)),
                               log: { _ in }, opener: devices.opener())
            var view = try ScrollView(boundsSize: Size(width: 800, height: 480), contentSize: Size(width: 3200, height: 9600))
            try view.setZoomScaleLimits(minimum: 1, maximum: 4)
            var configuration = GestureConfiguration()
            configuration.pixelsPerMillimetre = 5
            recognizer = GestureRecognizer(scrollView: view, configuration: configuration)
        }

        func plug() throws -> HotplugTests.FakeReader {
            #expect(FileManager.default.createFile(atPath: dir + "/event3", contents: nil))
            _ = input.dispatch(now: .seconds(1))
            return try #require(devices.made.last)
        }

        func unplug(_ reader: HotplugTests.FakeReader) throws {
            reader.removed = true
            try FileManager.default.removeItem(atPath: dir + "/event3")
        }

        /// Dispatches at `t` (seconds), after firing timers and stepping animations up to it.
        mutating func dispatch(at t: Double) {
            let now = Instant.seconds(t)
            outputs += recognizer.fireTimers(upTo: now)
            if recognizer.scrollView.isAnimating { outputs += recognizer.advance(to: now) }
            for frame in input.dispatch(now: now) { outputs += recognizer.handle(frame) }
        }

        /// Lets time pass in 16 ms steps with no input.
        mutating func idle(from t: Double, seconds: Double) {
            var now = t
            while now < t + seconds { now += 0.016; dispatch(at: now) }
        }
    }

    /// One report: slot events then SYN_REPORT at `t`.
    static func report(_ t: Double, _ slots: [(slot: Int32, id: Int32?, x: Int32?, y: Int32?)]) -> [ReadItem] {
        var events: [(UInt16, UInt16, Int32)] = []
        for s in slots {
            events.append((EventCode.EV_ABS, EventCode.ABS_MT_SLOT, s.slot))
            if let id = s.id { events.append((EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, id)) }
            if let x = s.x { events.append((EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x)) }
            if let y = s.y { events.append((EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y)) }
        }
        return HotplugTests().touches(t, events)
    }

    @Test(arguments: Moment.allCases)
    func theDeviceVanishesAndComesBack(_ moment: Moment) throws {
        var rig = try Rig()
        defer { try? FileManager.default.removeItem(atPath: rig.dir) }
        let first = try rig.plug()
        var t = 2.0
        switch moment {
        case .midFlick:
            first.queued = Self.report(t, [(0, 1, 400, 400)])
            rig.dispatch(at: t)
            for i in 1...6 {
                t += 0.008
                first.queued = Self.report(t, [(0, nil, nil, Int32(400 - 30 * i))])
                rig.dispatch(at: t)
            }
            #expect(rig.recognizer.scrollView.isDragging)
        case .midPinch:
            first.queued = Self.report(t, [(0, 1, 300, 240), (1, 2, 500, 240)])
            rig.dispatch(at: t)
            for i in 1...10 {
                t += 0.008
                first.queued = Self.report(t, [(0, nil, Int32(300 - 8 * i), nil), (1, nil, Int32(500 + 8 * i), nil)])
                rig.dispatch(at: t)
            }
            #expect(rig.recognizer.scrollView.isZooming && rig.recognizer.scrollView.zoomScale > 1.5)
        case .midLongPress:
            first.queued = Self.report(t, [(0, 1, 400, 240)])
            rig.dispatch(at: t)
            rig.idle(from: t, seconds: 0.3)    // the content has the touch; the long press is 200 ms away
            t += 0.3
            #expect(rig.outputs.contains { $0.kind == .content(.down(Point(x: 400, y: 240))) })
        }

        try rig.unplug(first)
        t += 0.05
        rig.dispatch(at: t)
        rig.idle(from: t, seconds: 3)
        t += 3
        let view = rig.recognizer.scrollView
        #expect(!rig.recognizer.isTouching && !view.isTracking && !view.isDragging && !view.isZooming && !view.isAnimating)
        #expect(rig.input.devices.isEmpty && first.closed)
        let names = rig.outputs.compactMap { output -> String? in
            switch output.kind {
            case .gesture(let g): "gesture:" + g.name
            case .content(let c): c.name
            case .scroll, .state, .transition, .diagnostic: nil
            }
        }
        #expect(!names.contains("longPress") && !names.contains("tap") && !names.contains("gesture:flick"), "\(names)")
        if moment == .midLongPress { #expect(names.last == "contentTouchCancel", "\(names)") }
        if moment == .midPinch { #expect(view.zoomScale >= 1 && view.zoomScale <= 4) }
        var grammar = DelegateGrammar()
        for case .scroll(let e) in rig.outputs.map(\.kind) { #expect(grammar.accept(e) == nil) }
        #expect(grammar.isClosed)

        // Back: a tap works at once.
        rig.outputs.removeAll()
        let second = try rig.plug()
        #expect(second !== first)
        t += 1
        second.queued = Self.report(t, [(0, 9, 100, 100)]) + Self.report(t + 0.08, [(0, -1, nil, nil)])
        rig.dispatch(at: t + 0.08)
        rig.idle(from: t + 0.08, seconds: 0.5)
        #expect(rig.outputs.contains { if case .gesture(.tap) = $0.kind { true } else { false } }, "\(rig.outputs)")
    }
}
