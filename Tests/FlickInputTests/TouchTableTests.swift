import FlickCore
@testable import FlickInput
import FlickTestSupport
import Testing

/// The table `### touch` in docs/input.md is `TouchDecoder`'s machine: every edge taken through
/// a real decoder, nothing taken that the table lacks, and its diagram drawing the same edges.
@Suite struct TouchTableTests {
    /// A traced decoder over an 800×480 protocol B panel whose units are pixels.
    static func decoder() throws -> TouchDecoder {
        let description = DeviceDescription.slotTouchscreen(width: 800, height: 480, resolution: 0)
        let transform = try #require(TouchTransform(description: description, mapping: TouchMapping(),
                                                    outputSize: Size(width: 800, height: 480)))
        var decoder = TouchDecoder(description: description, transform: transform)
        decoder.tracing = true
        return decoder
    }

    static func event(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(time: .milliseconds(Double(ms)), type: type, code: code, value: value)
    }
    static func report(_ ms: Int64) -> InputEvent { event(ms, EventCode.EV_SYN, EventCode.SYN_REPORT, 0) }
    static func dropped(_ ms: Int64) -> InputEvent { event(ms, EventCode.EV_SYN, EventCode.SYN_DROPPED, 0) }
    static func down(_ ms: Int64, id: Int32, x: Int32, y: Int32) -> [InputEvent] {
        [event(ms, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, id),
         event(ms, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x),
         event(ms, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y)]
    }

    @Test func everyEdgeOfTheTableAndNothingElse() throws {
        var d = try Self.decoder()
        var frames: [TouchFrame] = []
        func feed(_ events: [InputEvent]) { for e in events { if let f = d.feed(e) { frames.append(f) } } }
        feed(Self.down(0, id: 1, x: 100, y: 100) + [Self.report(0)])     // collecting, report: stays
        feed([Self.dropped(10)])                                         // collecting → discarding
        feed([Self.dropped(11)])                                         // discarding, dropped: stays
        feed([Self.report(12)])                                          // discarding → resyncing
        feed([Self.dropped(13)])                                         // resyncing → discarding
        d.syncDropped(at: .milliseconds(14))                             // discarding → resyncing
        d.syncDropped(at: .milliseconds(15))                             // resyncing, syncDropped: stays
        // The replayed state has no finger: the frame cancels the one that was down.
        feed([Self.event(16, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1), Self.report(16)])  // → collecting
        d.syncDropped(at: .milliseconds(20))                             // collecting → resyncing
        feed(Self.down(21, id: 2, x: 200, y: 200))
        if let f = d.deviceRemoved(at: .milliseconds(22)) { frames.append(f) }   // resyncing → collecting
        feed(Self.down(30, id: 3, x: 300, y: 300) + [Self.report(30)])
        feed([Self.dropped(31)])
        if let f = d.deviceRemoved(at: .milliseconds(32)) { frames.append(f) }   // discarding → collecting
        feed(Self.down(40, id: 4, x: 400, y: 400) + [Self.report(40)])
        if let f = d.deviceRemoved(at: .milliseconds(41)) { frames.append(f) }   // collecting, removed: stays

        let seen = d.takeTransitions()
        let table = try StateTable.load(.touch, from: "input.md")
        let problems = table.disagreements(with: seen)
        #expect(problems.isEmpty, "\(problems)")
        #expect(seen.map(\.description) == [
            "touch: collecting → dropped → discarding", "touch: discarding → report → resyncing",
            "touch: resyncing → dropped → discarding", "touch: discarding → syncDropped → resyncing",
            "touch: resyncing → report → collecting", "touch: collecting → syncDropped → resyncing",
            "touch: resyncing → removed → collecting", "touch: collecting → dropped → discarding",
            "touch: discarding → removed → collecting",
        ])
        // What each edge does to the frames: finger 1 down, then cancelled at the resync (lost,
        // not lifted); finger 2 was never reported, so its removal cancels nothing; fingers 3
        // and 4 down, each cancelled by a removal. Nothing is left down.
        #expect(frames.map(\.cancelled.count) == [0, 1, 0, 1, 0, 1], "\(frames)")
        #expect(frames.map { $0.began.count } == [1, 0, 1, 0, 1, 0])
        #expect(!d.hasContacts)
        let diagram = try StateTable.diagramEdges(inDocsFile: "input.md", states: table.states)
        #expect(diagram == table.edges.filter { $0.from != $0.to }, "\(diagram.symmetricDifference(table.edges))")
    }

    @Test func withoutTracingNothingIsKept() throws {
        var d = try Self.decoder()
        d.tracing = false
        _ = d.feed(Self.dropped(0))
        _ = d.feed(Self.report(1))
        #expect(d.takeTransitions().isEmpty)
    }
}
