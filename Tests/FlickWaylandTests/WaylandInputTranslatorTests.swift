import FlickCore
import FlickWayland
import Testing

/// The translator alone: times, the surface's scale, touch frames, the pointer's finger and
/// axes, and the log reader's errors.
@Suite struct WaylandInputTranslatorTests {
    let mapping = WaylandSurfaceMapping(surfaceSize: Size(width: 400, height: 240), outputSize: Size(width: 800, height: 480))

    func translate(_ events: [WaylandSeatEvent], rebase: Instant? = nil) -> [WaylandInput] {
        var translator = WaylandInputTranslator(mapping: mapping, rebase: rebase)
        for event in events { translator.handle(event) }
        return translator.takeOutputs()
    }

    func frames(_ inputs: [WaylandInput]) -> [TouchFrame] {
        inputs.compactMap { if case let .touch(f) = $0 { f } else { nil } }
    }

    @Test func timestampsGiveMicrosecondsAndMillisecondsOtherwise() {
        let stamped = frames(translate([.timestamp(.touch, nanoseconds: 10_500_012_345), .touchDown(time: 10500, id: 0, x: 1, y: 2), .touchFrame,
                                        .timestamp(.touch, nanoseconds: 10_560_034_999), .touchUp(time: 10560, id: 0), .touchFrame]))
        #expect(stamped.map(\.time) == [Instant(nanoseconds: 10_500_012_000), Instant(nanoseconds: 10_560_034_000)])
        var translator = WaylandInputTranslator(mapping: mapping)
        for event: WaylandSeatEvent in [.touchDown(time: 10500, id: 0, x: 1, y: 2), .touchFrame, .touchUp(time: 10560, id: 0), .touchFrame] {
            translator.handle(event)
        }
        #expect(frames(translator.takeOutputs()).map(\.time) == [.milliseconds(10500), .milliseconds(10560)])
        #expect(translator.takeNotes().count == 1)
        #expect(translator.takeNotes().isEmpty, "said once")
    }

    @Test func theMillisecondClockWrapsForward() {
        let f = frames(translate([.touchDown(time: UInt32.max - 5, id: 0, x: 1, y: 2), .touchFrame,
                                  .touchMotion(time: 5, id: 0, x: 2, y: 2), .touchFrame]))
        #expect(f.count == 2)
        #expect(f[1].time - f[0].time == .milliseconds(11))
    }

    @Test func aReplayIsRebasedToItsStart() {
        let f = frames(translate([.touchDown(time: 10500, id: 0, x: 1, y: 2), .touchFrame, .touchUp(time: 10560, id: 0), .touchFrame],
                                 rebase: .seconds(1)))
        #expect(f.map(\.time) == [.seconds(1), .seconds(1) + .milliseconds(60)])
    }

    @Test func touchesGatherUntilTheFrameInThePanelsPixels() {
        let f = frames(translate([.touchDown(time: 1, id: 4, x: 100, y: 50), .touchDown(time: 1, id: 2, x: 10.5, y: 20), .touchFrame,
                                  .touchMotion(time: 2, id: 4, x: 101, y: 50), .touchUp(time: 2, id: 2), .touchFrame]))
        #expect(f.count == 2)
        #expect(f[0].began == [ContactID(4), ContactID(2)])
        #expect(f[0].contacts == [Contact(id: ContactID(2), position: Point(x: 21, y: 40)), Contact(id: ContactID(4), position: Point(x: 200, y: 100))])
        #expect(f[1].contacts == [Contact(id: ContactID(4), position: Point(x: 202, y: 100))])
        #expect(f[1].ended == [Contact(id: ContactID(2), position: Point(x: 21, y: 40))])
    }

    @Test func aTouchDownAndUpInOneFrameIsStillATouch() {
        let f = frames(translate([.touchDown(time: 1, id: 0, x: 1, y: 1), .touchUp(time: 1, id: 0), .touchFrame]))
        #expect(f.count == 1)
        #expect(f[0].began == [ContactID(0)] && f[0].ended.map(\.id) == [ContactID(0)] && f[0].contacts.isEmpty)
    }

    @Test func aFrameTheCompositorDidNotCloseEndsAtTheFingersNextEvent() {
        // Down, two moves and the lift with one frame at the end: four frames, each where the
        // finger was, not one frame of a down and a lift (a tap where a drag was).
        var translator = WaylandInputTranslator(mapping: mapping)
        for event: WaylandSeatEvent in [.touchDown(time: 1, id: 0, x: 10, y: 100), .touchMotion(time: 2, id: 0, x: 10, y: 90),
                                        .touchMotion(time: 3, id: 0, x: 10, y: 80), .touchUp(time: 4, id: 0), .touchFrame] {
            translator.handle(event)
        }
        let f = frames(translator.takeOutputs())
        #expect(f.map(\.time) == [1, 2, 3, 4].map { Instant.milliseconds($0) })
        #expect(f.map { $0.contacts.first?.position.y } == [200, 180, 160, nil])
        #expect(f.last?.ended == [Contact(id: ContactID(0), position: Point(x: 20, y: 160))])
        // And what one read brought ends there, frame or not.
        translator.handle(.touchDown(time: 5, id: 1, x: 1, y: 1))
        translator.endTouchGroup()
        #expect(frames(translator.takeOutputs()).map(\.began) == [[ContactID(1)]])
    }

    @Test func cancelEndsEveryTouchCancelled() {
        let f = frames(translate([.touchDown(time: 1, id: 0, x: 1, y: 1), .touchDown(time: 1, id: 1, x: 5, y: 1), .touchFrame, .touchCancel]))
        #expect(f.last?.cancelled == [ContactID(0), ContactID(1)])
        #expect(f.last?.contacts.isEmpty == true)
    }

    @Test func thePointersButtonIsAFingerWhoseIdNoTouchHas() {
        let out = translate([.pointerEnter(x: 10, y: 10), .pointerFrame, .pointerButton(time: 1, button: 0x110, pressed: true), .pointerFrame,
                             .touchDown(time: 2, id: Int32.max, x: 1, y: 1), .touchFrame,
                             .pointerMotion(time: 3, x: 12, y: 10), .pointerFrame, .pointerLeave, .pointerFrame])
        let f = frames(out)
        #expect(f[0].began == [WaylandInputTranslator.pointerContact])
        #expect(f[1].contacts.map(\.id) == [ContactID(Int(Int32.max)), WaylandInputTranslator.pointerContact])
        #expect(f[2].contacts.last?.position == Point(x: 24, y: 20))
        // Leaving with the button held ends the finger cancelled: no flick off the edge.
        #expect(f[3].cancelled == [WaylandInputTranslator.pointerContact])
    }

    @Test func otherButtonsAreNoFinger() {
        #expect(translate([.pointerEnter(x: 10, y: 10), .pointerFrame, .pointerButton(time: 1, button: 0x111, pressed: true), .pointerFrame]).isEmpty)
    }

    @Test func axesBySource() {
        let wheel = translate([.pointerAxisSource(.wheel), .pointerAxisValue120(axis: .vertical, value120: 240),
                               .pointerAxis(time: 1, axis: .vertical, value: 30), .pointerFrame])
        #expect(wheel == [.pointer(.wheel(steps: Vector(dx: 0, dy: 2), at: .milliseconds(1)))])
        let legacy = translate([.pointerAxis(time: 1, axis: .horizontal, value: -10), .pointerFrame])
        #expect(legacy == [.pointer(.wheel(steps: Vector(dx: -1, dy: 0), at: .milliseconds(1)))])
        let touchpad = translate([.pointerAxisSource(.finger), .pointerAxis(time: 1, axis: .vertical, value: 5), .pointerFrame,
                                  .pointerAxisSource(.finger), .pointerAxisStop(time: 2, axis: .vertical), .pointerFrame])
        #expect(touchpad == [.pointer(.scroll(delta: Vector(dx: 0, dy: 10), at: .milliseconds(1))), .pointer(.scrollEnd(at: .milliseconds(2)))])
        let continuous = translate([.pointerAxisSource(.continuous), .pointerAxis(time: 1, axis: .vertical, value: 5), .pointerFrame])
        #expect(continuous == [.pointer(.scroll(delta: Vector(dx: 0, dy: 10), at: .milliseconds(1))), .pointer(.scrollEnd(at: .milliseconds(1)))])
    }

    @Test func aPinchIsAboutThePointerAndALeaveCancelsIt() {
        let out = translate([.pointerEnter(x: 100, y: 50), .pointerFrame, .pinchBegin(time: 1, fingers: 2),
                             .pinchUpdate(time: 2, dx: 3, dy: 4, scale: 1.5, rotation: 0), .pointerLeave, .pointerFrame])
        let focus = Point(x: 200, y: 100)
        #expect(out == [.pointer(.pinchBegin(focus: focus, at: .milliseconds(1))), .pointer(.pinch(scale: 1.5, focus: focus, at: .milliseconds(2))),
                        .pointer(.cancel(at: .milliseconds(2)))])
    }
}

/// The `WAYLAND_DEBUG=1` reader: libwayland's lines, and clear errors for anything else.
@Suite struct WaylandDebugLogTests {
    @Test func readsTheSeatsMessagesAndSkipsTheRest() throws {
        let log = """
        # a comment
        [1551075.896] wl_registry@2.global(1, "wl_compositor, really", 4)
        [1551075.901]  -> wl_registry@2.bind(1, "wl_compositor", 1, new id [unknown]@4)
        [1551075.902]  -> zwp_input_timestamps_manager_v1@9.get_touch_timestamps(new id zwp_input_timestamps_v1@14, wl_touch@13)
        [1551076.000] {Default Queue} zwp_input_timestamps_v1@14.timestamp(0, 3, 5)
        [1551076.001] wl_touch@13.down(7, 3000, wl_surface@3, 2, -1.50000000, 20.00390625)
        [1551076.001] discarded wl_touch@11.up(8, 3001, 2)
        [1551076.002] wl_touch@13.frame()
        """
        let events = try WaylandDebugLog.parse(log, path: "t.log")
        #expect(events == [.timestamp(.touch, nanoseconds: 3_000_000_005), .touchDown(time: 3000, id: 2, x: -1.5, y: 20.00390625), .touchFrame])
    }

    func error(_ log: String) -> WaylandLogError? {
        do {
            _ = try WaylandDebugLog.parse(log, path: "bad.log")
            return nil
        } catch {
            return error
        }
    }

    @Test func badLinesAreErrorsNamingTheLineAndWhatWasExpected() throws {
        let noTime = try #require(error("\n wl_touch@13.frame()"))
        #expect(noTime.line == 2)
        #expect(noTime.description.contains("bad.log:2"))
        #expect(noTime.message.contains("[MILLISECONDS.MICROSECONDS]"))
        let count = try #require(error("[1.000] wl_touch@13.down(1, 2, wl_surface@3, 0, 1.00000000)"))
        #expect(count.message.contains("expected 6 arguments (serial, time, surface, id, x, y), got 5"))
        let fixed = try #require(error("[1.000] wl_touch@13.motion(1, 0, 1e5, 2.00000000)"))
        #expect(fixed.message.contains("argument 3: expected a fixed-point number"))
        let axis = try #require(error("[1.000] wl_pointer@12.axis(1, 7, 2.00000000)"))
        #expect(axis.message.contains("expected an axis"))
        let orphan = try #require(error("[1.000] zwp_input_timestamps_v1@20.timestamp(0, 1, 2)"))
        #expect(orphan.message.contains("get_touch_timestamps"))
        let unclosed = try #require(error("[1.000] wl_touch@13.frame("))
        #expect(unclosed.line == 1)
    }
}
