import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickInput
import Testing

/// A visitor rests a finger 700 ms on a map, then drags it 300 px: a generated evemu recording
/// replayed through the whole pipeline on the virtual clock, as `flickd replay` plays it. The
/// map pans (the content hears the long press, then loses the touch), unless the app claims the
/// touch — a `claim` line answered by the control socket's own path, sent once the app heard
/// the long press — or `can_cancel_content_touches` is off.
@Suite struct HeldDragReplayTests {
    /// An 800×480 panel at 4 units a millimetre (a 12 px slop), its units screen pixels.
    static let panel = DeviceDescription.slotTouchscreen(width: 800, height: 480, slots: 2, resolution: 4)

    /// A finger down at (400, 400) at 0.1 s, resting 700 ms with a pixel of sensor jitter, then
    /// dragged 300 px up in 62 reports (0.5 s), held still 120 ms and lifted; 2 s of idle after.
    static func recording() throws -> EvemuRecording {
        var s = TouchScript(description: panel)
        s.idle(0)
        var t = 0.1
        s.down(0, 400, 400, t); s.report(t)
        for i in 1...87 { t += 0.008; s.move(0, 400 + Double(i % 2), 400, t); s.report(t) }
        let start = t
        for i in 1...62 { t = start + 0.008 * Double(i); s.move(0, 400, 400 - 300 * Double(i) / 62, t); s.report(t) }
        for _ in 0..<15 { t += 0.008; s.report(t) }
        t += 0.008
        s.up(0, t); s.report(t)
        s.idle(t + 2)
        return try EvemuRecording.parse(s.text, path: "held-drag.evemu")
    }

    /// What a replay emitted and what it came to.
    struct Run {
        var outputs: [GestureOutput] = []
        /// The journal's gesture lines.
        var lines: [String] = []
        /// The first break of the stamped delegate grammar, if any.
        var grammar: String?
        /// The reply to the claim, when one was sent.
        var reply: ControlMessage?
        var offset = Point.zero

        var content: [GestureOutput] { outputs.filter { if case .content = $0.kind { true } else { false } } }
        var contentNames: [String] { content.compactMap { if case let .content(c) = $0.kind { c.name } else { nil } } }
        var scrolled: Bool { outputs.contains { $0.kind == .scroll(.willBeginDragging) } }
    }

    /// Replays the recording; with `claimAfter`, the app sends `claim` for the long press's
    /// finger that long after it heard the long press.
    static func replay(_ configuration: Configuration = Configuration(), claimAfter: Duration? = nil) throws -> Run {
        let recording = try recording()
        let (output, _) = try Replay.headless(panel: PixelSize(width: 800, height: 480), device: recording.description,
                                              configuration: configuration)
        let content = try Content(image: #require(TestPattern.make(PixelSize(width: 800, height: 3000))))
        let pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: output, content: content, input: .recording(recording, start: .zero), at: .zero)
        var run = Run()
        var grammar = DelegateGrammar()
        let sink = KeptOutputs()
        sink.onOutput = { output, view in
            run.outputs.append(output)
            if let entry = GestureLog.entry(for: output, view: view) { run.lines.append(entry.message) }
            let problem: String? = switch output.kind {
            case let .scroll(event): output.state.map { grammar.accept(event, at: output.time, state: $0) } ?? "\(event) without a state"
            case let .state(state): grammar.acceptState(state, at: output.time)
            case .content, .gesture: grammar.acceptOther(at: output.time)
            case .transition, .diagnostic: nil
            }
            if run.grammar == nil { run.grammar = problem }
        }
        pipeline.sink = sink
        pipeline.start()
        if let claimAfter {
            // The loop answers the socket between dispatches: run to the long press, then on
            // for the app's round trip, then the line as the server reads it.
            var heard: GestureOutput? { run.outputs.first { $0.kind.isLongPress } }
            while heard == nil, let next = pipeline.nextDeadline { _ = VirtualRunner.run(pipeline, limit: next) }
            let longPress = try #require(heard)
            _ = VirtualRunner.run(pipeline, limit: longPress.time + claimAfter)
            let contact = try #require(longPress.contact).rawValue
            let request = try ControlRequest.decode(Array(#"{"id": 7, "cmd": "claim", "contact": \#(contact)}"#.utf8))
            run.reply = CommandHandler(pipeline: pipeline).handle(try ControlCommand(request), id: request.id)
        }
        let outcome = VirtualRunner.run(pipeline, limit: .seconds(60))
        #expect(!outcome.hitLimit)
        run.offset = pipeline.scrollView.contentOffset
        return run
    }

    @Test func aHeldFingerThatDragsPansAndTheContentLosesTheTouch() throws {
        let run = try Self.replay()
        #expect(run.offset.y >= 250, "\(run.offset) \(run.lines)")
        let longPress = try #require(run.content.firstIndex { $0.kind.isLongPress })
        let cancel = try #require(run.content.firstIndex { $0.kind == .content(.cancel) })
        #expect(longPress < cancel)
        // One touch, one finger, from its down to its cancel; nothing for the content after.
        #expect(run.contentNames.first == "contentTouchDown" && run.contentNames.last == "contentTouchCancel", "\(run.contentNames)")
        #expect(Set(run.content.map(\.contact)).count == 1)
        #expect(run.grammar == nil, "\(run.grammar ?? "")")
        // The journal: the long press, then the drag the finger made (lifted still: no momentum).
        #expect(run.lines.count == 2 && run.lines.first == "long press at (400, 400)", "\(run.lines)")
        #expect(run.lines.last?.hasPrefix("drag by (0, -300) px") == true, "\(run.lines)")
    }

    @Test func aClaimAfterTheLongPressKeepsTheTouchTheContents() throws {
        let run = try Self.replay(claimAfter: .milliseconds(30))
        #expect(run.reply?.ok == true && run.reply?.id == 7, "\(String(describing: run.reply))")
        #expect(run.offset == .zero && !run.scrolled, "\(run.offset)")
        #expect(run.contentNames.last == "contentTouchUp" && !run.contentNames.contains("contentTouchCancel"), "\(run.contentNames)")
        #expect(run.contentNames.filter { $0 == "contentTouchMove" }.count >= 62)
        #expect(run.grammar == nil, "\(run.grammar ?? "")")
        #expect(run.lines == ["long press at (400, 400)"], "\(run.lines)")
    }

    @Test func aClaimThatComesAfterTheDragBeganIsRefusedAndThePanGoesOn() throws {
        // The drag starts 0.2 s after the long press (the finger rests 0.7 s, the press fires at 0.5 s).
        let run = try Self.replay(claimAfter: .milliseconds(300))
        #expect(run.reply?.ok == false, "\(String(describing: run.reply))")
        #expect(run.reply?.error?.hasPrefix("'claim': contact ") == true && run.reply?.error?.contains("this touch scrolls") == true,
                "\(run.reply?.error ?? "")")
        #expect(run.offset.y >= 250 && run.contentNames.last == "contentTouchCancel")
    }

    @Test func withoutCanCancelContentTouchesAHeldFingerDoesNotPan() throws {
        var configuration = Configuration()
        configuration.gestures.canCancelContentTouches = false
        let run = try Self.replay(configuration)
        #expect(run.offset == .zero && !run.scrolled, "\(run.offset)")
        #expect(run.contentNames.last == "contentTouchUp" && !run.contentNames.contains("contentTouchCancel"))
        #expect(run.lines == ["long press at (400, 400)"], "\(run.lines)")
        #expect(run.grammar == nil, "\(run.grammar ?? "")")
    }
}

extension GestureOutput.Kind {
    /// Whether it is the content's long press.
    var isLongPress: Bool { if case .content(.longPress) = self { true } else { false } }
}
