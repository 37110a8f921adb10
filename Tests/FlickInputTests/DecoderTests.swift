import FlickCore
@testable import FlickInput
import Testing

/// Acceptance 1: the decoder on the project's own generated recordings.
@Suite struct DecoderTests {
    @Test func protocolBSlotReuseGivesANewContact() throws {
        var s = SlotScript()
        s.down(0, 100, 100, at: 0); s.report(at: 0)
        s.move(0, 110, nil, at: 10); s.report(at: 10)
        s.up(0, at: 20); s.report(at: 20)
        s.down(0, 300, 200, at: 40); s.report(at: 40)   // the same slot, a new finger
        s.up(0, at: 60); s.report(at: 60)
        let f = try frames(of: s.recording())
        #expect(f.count == 5)
        let first = try #require(f[0].began.first), second = try #require(f[3].began.first)
        #expect(first != second)
        #expect(f[1].contacts == [Contact(id: first, position: Point(x: 110, y: 100))])
        #expect(f[2].ended == [Contact(id: first, position: Point(x: 110, y: 100))] && f[2].contacts.isEmpty)
        #expect(f[3].contacts.map(\.position) == [Point(x: 300, y: 200)])
        #expect(f[4].ended.map(\.id) == [second] && f[4].cancelled.isEmpty)
        #expect(f[1].time == SlotScript.t(10))
    }

    @Test func twoFingersInTwoSlotsAreTwoContacts() throws {
        var s = SlotScript()
        s.down(0, 100, 100, at: 0); s.down(1, 400, 300, at: 0); s.report(at: 0)
        s.move(1, 420, nil, at: 10); s.report(at: 10)
        s.up(0, at: 20); s.up(1, at: 20); s.report(at: 20)
        let f = try frames(of: s.recording())
        #expect(f[0].began.count == 2 && f[0].contacts.count == 2)
        #expect(f[1].contacts.map(\.position) == [Point(x: 100, y: 100), Point(x: 420, y: 300)])
        #expect(f[2].ended.count == 2 && f[2].contacts.isEmpty)
    }

    /// No finger begins and ends a touch in one report (issue 20, part 6): the decoder reports
    /// it as it is, and the phantom filter drops it before gesture recognition. A touch over two
    /// reports 30 µs apart (as the eGalax eMPIA's real tap) is still a tap.
    @Test func aContactBeginningAndEndingInOneReportIsAPhantom() throws {
        var s = SlotScript()
        s.down(0, 250, 150, at: 0); s.up(0, at: 0.03); s.report(at: 0.03)
        let recording = try s.recording()
        let transform = try #require(TouchTransform(description: recording.description, mapping: TouchMapping(),
                                                    outputSize: Size(width: 800, height: 480)))
        var decoder = TouchDecoder(description: recording.description, transform: transform)
        let decoded = recording.events.compactMap { decoder.feed($0) }
        #expect(decoded.count == 1 && decoded[0].began.count == 1 && decoded[0].ended.map(\.id) == decoded[0].began)
        #expect(try frames(of: recording).isEmpty)

        var quick = SlotScript()
        quick.down(0, 250, 150, at: 0); quick.report(at: 0)
        quick.up(0, at: 0.03); quick.report(at: 0.03)
        let f = try frames(of: quick.recording())
        #expect(f.count == 2 && f[0].began.count == 1 && f[1].ended.map(\.position) == [Point(x: 250, y: 150)])
        #expect(gestureNames(try gestures(f, view: Size(width: 800, height: 480))) == ["tap"])
    }

    @Test func aTouchWithoutPositionReusesTheSlotsLastOrIsDropped() throws {
        var s = SlotScript()
        // Never any position in slot 3: dropped.
        s.writer.abs(SlotScript.t(0), EventCode.ABS_MT_SLOT, 3)
        s.writer.abs(SlotScript.t(0), EventCode.ABS_MT_TRACKING_ID, 7)
        s.writer.abs(SlotScript.t(0), EventCode.ABS_MT_TRACKING_ID, -1)
        s.report(at: 0)
        // A position, a lift, then a new finger at the same spot: the kernel sends no position.
        s.writer.abs(SlotScript.t(10), EventCode.ABS_MT_TRACKING_ID, 8)
        s.writer.abs(SlotScript.t(10), EventCode.ABS_MT_POSITION_X, 40)
        s.writer.abs(SlotScript.t(10), EventCode.ABS_MT_POSITION_Y, 50)
        s.report(at: 10)
        s.writer.abs(SlotScript.t(20), EventCode.ABS_MT_TRACKING_ID, -1); s.report(at: 20)
        s.writer.abs(SlotScript.t(30), EventCode.ABS_MT_TRACKING_ID, 9); s.report(at: 30)
        let recording = try s.recording()
        let source = try RecordingSource(recording: recording, start: .seconds(1000))
        let f = source.dispatch(now: .seconds(2000))
        #expect(f.count == 4) // 10, 20, 30 and the end-of-recording cancel
        #expect(f[2].contacts.map(\.position) == [Point(x: 40, y: 50)] && f[2].began.count == 1)
        #expect(f[3].cancelled.count == 1)
        #expect(source.takeDiagnostics().contains { $0.contains("1 phantom touch ignored") })
    }

    @Test func palmsAreMarked() throws {
        var s = SlotScript()
        s.down(0, 100, 100, at: 0); s.down(1, 500, 400, at: 0, tool: EventCode.MT_TOOL_PALM); s.report(at: 0)
        s.up(0, at: 10); s.up(1, at: 10); s.report(at: 10)
        let f = try frames(of: s.recording())
        #expect(f[0].contacts.map(\.tool) == [.finger, .palm])
        #expect(f[1].ended.map(\.tool) == [.finger, .palm])
    }

    @Test func synDroppedMidTwoFingerGestureReconciles() throws {
        var s = SlotScript()
        s.down(0, 100, 100, at: 0); s.down(1, 300, 100, at: 0); s.report(at: 0)
        s.move(0, nil, 120, at: 10); s.move(1, nil, 120, at: 10); s.report(at: 10)
        // The buffer overflowed: the partial frame after SYN_DROPPED is garbage.
        s.dropped(at: 20); s.move(0, nil, 999, at: 20); s.report(at: 20)
        // The state replayed after the drop: finger 1 lifted meanwhile, finger 0 moved, a new
        // finger appeared in slot 2.
        s.up(1, at: 30); s.move(0, nil, 160, at: 30); s.down(2, 600, 400, at: 30); s.report(at: 30)
        s.up(0, at: 40); s.up(2, at: 40); s.report(at: 40)
        let f = try frames(of: s.recording())
        #expect(f.count == 4)
        let resync = f[2]
        #expect(resync.time == SlotScript.t(30))
        #expect(resync.ended.count == 1 && resync.cancelled == resync.ended.map(\.id))
        #expect(resync.began.count == 1)
        #expect(resync.contacts.map(\.position) == [Point(x: 100, y: 160), Point(x: 600, y: 400)])
        #expect(f[3].cancelled.isEmpty && f[3].ended.count == 2)
    }

    @Test func removalMidGestureEndsEveryContact() throws {
        var s = SlotScript()
        s.down(0, 100, 100, at: 0); s.down(1, 300, 100, at: 0); s.report(at: 0)
        s.move(0, nil, 150, at: 10); s.report(at: 10)
        var decoder = TouchDecoder(description: try s.recording().description,
                                   transform: try #require(TouchTransform(description: s.recording().description,
                                                                          mapping: TouchMapping(), outputSize: Size(width: 800, height: 480))))
        var out: [TouchFrame] = []
        for e in try s.recording().events { if let frame = decoder.feed(e) { out.append(frame) } }
        #expect(decoder.hasContacts)
        let removal = decoder.deviceRemoved(at: SlotScript.t(15))
        let last = try #require(removal)
        #expect(last.contacts.isEmpty && last.ended.count == 2 && Set(last.cancelled) == Set(out[0].began))
        #expect(last.ended.map(\.position).contains(Point(x: 100, y: 150)))
        #expect(!decoder.hasContacts && decoder.deviceRemoved(at: SlotScript.t(16)) == nil)
    }

    /// Protocol A recordings: contacts separated by SYN_MT_REPORT.
    func protocolA(ids: Bool) -> EvemuWriter {
        var w = EvemuWriter(description: .protocolATouchscreen(width: 1000, height: 1000, trackingIDs: ids))
        func contact(_ t: Instant, _ id: Int32, _ x: Int32, _ y: Int32) {
            if ids { w.abs(t, EventCode.ABS_MT_TRACKING_ID, id) }
            w.abs(t, EventCode.ABS_MT_POSITION_X, x)
            w.abs(t, EventCode.ABS_MT_POSITION_Y, y)
            w.event(t, EventCode.EV_SYN, EventCode.SYN_MT_REPORT, 0)
        }
        let t = SlotScript.t
        // Two fingers; the order of reports swaps in the second frame.
        contact(t(0), 1, 100, 100); contact(t(0), 2, 800, 800); w.report(t(0))
        contact(t(10), 2, 790, 790); contact(t(10), 1, 110, 100); w.report(t(10))
        contact(t(20), 1, 120, 100); w.report(t(20))   // finger 2 lifted
        w.event(t(30), EventCode.EV_SYN, EventCode.SYN_MT_REPORT, 0); w.report(t(30))   // all lifted
        return w
    }

    @Test(arguments: [true, false])
    func protocolAMatchesContactsWithOrWithoutIDs(ids: Bool) throws {
        let recording = try EvemuRecording.parse(protocolA(ids: ids).text, path: "a.evemu")
        let f = try frames(of: recording, size: Size(width: 1000, height: 1000))
        #expect(f.count == 4)
        let a = f[0].contacts[0].id, b = f[0].contacts[1].id
        #expect(f[1].began.isEmpty && f[1].ended.isEmpty)
        #expect(f[1].contacts.first { $0.id == a }?.position == Point(x: 110, y: 100))
        #expect(f[1].contacts.first { $0.id == b }?.position == Point(x: 790, y: 790))
        #expect(f[2].ended.map(\.id) == [b] && f[2].contacts.map(\.id) == [a])
        #expect(f[3].ended.map(\.id) == [a] && f[3].contacts.isEmpty)
    }

    @Test func singleTouchTapAndDrag() throws {
        var w = EvemuWriter(description: .singleTouchscreen(width: 640, height: 480))
        let t = SlotScript.t
        w.event(t(0), EventCode.EV_KEY, EventCode.BTN_TOUCH, 1); w.abs(t(0), EventCode.ABS_X, 10); w.abs(t(0), EventCode.ABS_Y, 20)
        w.report(t(0))
        w.abs(t(10), EventCode.ABS_X, 30); w.report(t(10))
        w.event(t(20), EventCode.EV_KEY, EventCode.BTN_TOUCH, 0); w.report(t(20))
        // Down and up in one frame: no finger does that, a phantom (issue 20, part 6).
        w.event(t(100), EventCode.EV_KEY, EventCode.BTN_TOUCH, 1); w.event(t(100), EventCode.EV_KEY, EventCode.BTN_TOUCH, 0)
        w.report(t(100))
        let recording = try EvemuRecording.parse(w.text, path: "st.evemu")
        let f = try frames(of: recording)
        #expect(f.count == 3)
        #expect(f[0].began.count == 1 && f[0].contacts.map(\.position) == [Point(x: 10, y: 20)])
        #expect(f[1].contacts.map(\.position) == [Point(x: 30, y: 20)])
        #expect(f[2].ended.map(\.position) == [Point(x: 30, y: 20)])
    }

    @Test func devicesGetDistinctIDs() throws {
        let d = DeviceDescription.slotTouchscreen(width: 100, height: 100)
        let transform = try #require(TouchTransform(description: d, mapping: TouchMapping(), outputSize: Size(width: 100, height: 100)))
        var a = TouchDecoder(description: d, transform: transform, idBase: 0)
        var b = TouchDecoder(description: d, transform: transform, idBase: 1)
        let events = [InputEvent(time: .zero, type: EventCode.EV_ABS, code: EventCode.ABS_MT_TRACKING_ID, value: 5),
                      InputEvent(time: .zero, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_X, value: 5),
                      InputEvent(time: .zero, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_Y, value: 5),
                      InputEvent(time: .zero, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)]
        let fa = events.compactMap { a.feed($0) }, fb = events.compactMap { b.feed($0) }
        #expect(fa[0].began != fb[0].began)
    }
}
