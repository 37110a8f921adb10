import FlickCore
import FlickInput

/// Raw kernel events (`EventTriples`) through `TouchDecoder`, as a live device feeds it, with
/// libevdev's resync and a device removal wherever the bytes ask for them.
///
/// Checks: every frame keeps `TouchFrame`'s promises, and a removal at the end leaves nothing down.
enum EvdevTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let input = EventTriples(bytes),
              let transform = TouchTransform(description: input.description, mapping: input.mapping,
                                             outputSize: input.outputSize) else { return }
        var decoder = TouchDecoder(description: input.description, transform: transform)
        // Traced, so the machine's steps are fuzzed too; every step is a change of phase.
        decoder.tracing = true
        var checks = FrameChecks()
        var last = Instant.seconds(1000)
        for step in input.steps {
            switch step {
            case let .event(e):
                last = e.time
                if let frame = decoder.feed(e) { checks.check(frame) }
            case let .syncDropped(t):
                last = t
                decoder.syncDropped(at: t)
            case let .removed(t):
                last = t
                if let frame = decoder.deviceRemoved(at: t) { checks.check(frame) }
                fuzzCheck(!decoder.hasContacts, "contacts down after the device was removed")
            }
        }
        _ = decoder.takeDiagnostics()
        fuzzCheck(decoder.takeTransitions().allSatisfy { $0.from != $0.to && !$0.isInvalid }, "a traced step that is no change")
        if let frame = decoder.deviceRemoved(at: last) { checks.check(frame) }
        fuzzCheck(checks.isEmpty && !decoder.hasContacts, "contacts down after the device was removed")
    }

    /// The project's scripted sessions, on each protocol and a few mappings.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var script = TouchScript(description: .slotTouchscreen(width: 800, height: 480, resolution: 10))
        script.tap(at: 400, 240, t: 0)
        script.drag(from: (400, 400), to: (400, 160), seconds: 0.05, t: 0.3)
        script.pinch(centre: (400, 240), from: 60, to: 100, seconds: 0.03, t: 0.6)
        let slots = (try? EvemuRecording.parse(script.text, path: "seed"))?.events ?? []
        let unslotted = slots.filter { $0.code != EventCode.ABS_MT_SLOT || $0.type != EventCode.EV_ABS }
        let protocolA = unslotted.flatMap { e -> [InputEvent] in
            // Protocol A closes each contact with SYN_MT_REPORT before the frame's SYN_REPORT.
            e.type == EventCode.EV_SYN && e.code == EventCode.SYN_REPORT
                ? [InputEvent(time: e.time, type: EventCode.EV_SYN, code: EventCode.SYN_MT_REPORT, value: 0), e] : [e]
        }
        let single = unslotted.compactMap { e -> InputEvent? in
            guard e.type == EventCode.EV_ABS else { return e }
            switch e.code {
            case EventCode.ABS_MT_POSITION_X: return InputEvent(time: e.time, type: e.type, code: EventCode.ABS_X, value: e.value)
            case EventCode.ABS_MT_POSITION_Y: return InputEvent(time: e.time, type: e.type, code: EventCode.ABS_Y, value: e.value)
            case EventCode.ABS_MT_TRACKING_ID:
                return InputEvent(time: e.time, type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: e.value < 0 ? 0 : 1)
            default: return nil
            }
        }
        func seed(_ p: UInt8, mapping: UInt8 = 0, _ events: [InputEvent]) -> [UInt8] {
            EventTriples.encode(protocolByte: p, mapping: mapping, resolution: 10, x: 0...799, y: 0...479,
                                output: (800, 480), events: events)
        }
        var dropped = seed(0, Array(slots.prefix(40)))
        dropped += [0, 0, 0, 0xFF, 0, 0, 0, 0]                  // libevdev resync mid gesture
        dropped += seed(0, Array(slots.dropFirst(40).prefix(40))).dropFirst(EventTriples.headerSize)
        dropped += [0, 0, 0, 0xFE, 0, 0, 0, 0]                  // then the device goes away
        return [
            ("slots.evdev", seed(0, slots)),
            ("slots-rotated-calibrated.evdev", seed(0, mapping: 0x1D, slots)),
            ("protocol-a-ids.evdev", seed(1, protocolA)),
            ("protocol-a.evdev", seed(2, protocolA.filter { $0.code != EventCode.ABS_MT_TRACKING_ID || $0.type != EventCode.EV_ABS })),
            ("single-touch.evdev", seed(3, mapping: 0x06, single)),
            ("resync-and-removal.evdev", dropped),
        ]
    }
}
