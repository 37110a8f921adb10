import FlickCore
import FlickInput

/// Evemu text, as `flickd replay FILE` and `--input evemu:FILE` read it.
///
/// Checks: a refused file names a line that exists; an accepted one writes back (through
/// `EvemuWriter`) to the same events and axes, and replays to frames that keep `TouchFrame`'s
/// promises, ending with no contact down; those frames then drive the whole daemon path
/// (`DaemonPath`) without a trap and with every event and journal entry written as text.
enum EvemuTarget {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let recording: EvemuRecording
        do {
            recording = try EvemuRecording.parse(text, path: "fuzz.evemu")
        } catch {
            let lines = text.unicodeScalars.lazy.filter { $0 == "\n" }.count + 1
            fuzzCheck((0...lines).contains(error.line), "error on line \(error.line) of \(lines): \(error)")
            fuzzCheck(!error.message.isEmpty, "an error without a message on line \(error.line)")
            return
        }
        checkRoundTrip(recording)
        replay(recording)
    }

    /// What was read, written again, reads the same.
    private static func checkRoundTrip(_ recording: EvemuRecording) {
        var writer = EvemuWriter(description: recording.description)
        for e in recording.events { writer.event(e.time, e.type, e.code, e.value) }
        let again: EvemuRecording
        do {
            again = try EvemuRecording.parse(writer.text, path: "rewritten.evemu")
        } catch {
            fuzzCheck(false, "the rewritten recording does not parse: \(error)")
            return
        }
        fuzzCheck(again.events == recording.events, "events differ after writing back")
        fuzzCheck(again.description.absAxes == recording.description.absAxes, "axes differ after writing back")
    }

    /// Replays through `RecordingSource`, as `flickd replay` does, to the end; then the frames
    /// go through the rest of the daemon (recogniser, model, frames, journal and events) on a
    /// small headless display the recording is mapped to.
    private static func replay(_ recording: EvemuRecording) {
        let daemon = DaemonPath(start: .seconds(900))
        guard let source = try? RecordingSource(recording: recording, outputSize: daemon.viewSize,
                                                start: .seconds(1000)) else { return }
        var checks = FrameChecks()
        let frames = source.dispatch(now: Instant(nanoseconds: .max))
        for frame in frames { checks.check(frame) }
        _ = source.takeDiagnostics()
        fuzzCheck(source.isFinished && source.nextDeadline == nil, "the replay did not finish")
        fuzzCheck(checks.isEmpty, "contacts still down after the recording ended")
        // A recording may span years of virtual time; the daemon path needs only its touches.
        guard let last = frames.last, last.time - frames[0].time < .seconds(60) else { return }
        daemon.settle(frames: frames, seconds: (last.time - daemon.pipeline.now).inSeconds + 5)
    }

    /// Short scripted sessions on the three kinds of panel, plus the demo's header.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var out: [(String, String)] = []
        var tap = TouchScript(description: .slotTouchscreen(width: 800, height: 480, resolution: 10))
        tap.idle(0)
        tap.tap(at: 400, 240, t: 0.1)
        out.append(("tap-protocol-b.evemu", tap.text))
        var flick = TouchScript(description: .slotTouchscreen(width: 1280, height: 800))
        flick.drag(from: (600, 700), to: (600, 300), seconds: 0.05, t: 0)
        out.append(("flick-protocol-b.evemu", flick.text))
        var pinch = TouchScript(description: .slotTouchscreen(width: 800, height: 480, slots: 2, resolution: 10))
        pinch.pinch(centre: (400, 240), from: 50, to: 120, seconds: 0.04, t: 0)
        out.append(("pinch-protocol-b.evemu", pinch.text))
        // The events of a slot recording on other panels: the decoder must cope with any mix.
        let events = flick.writer.eventsText
        out.append(("protocol-a.evemu", EvemuWriter(description: .protocolATouchscreen(width: 800, height: 480,
                                                                                         trackingIDs: true)).header + events))
        out.append(("single-touch.evemu", EvemuWriter(description: .singleTouchscreen(width: 800, height: 480)).header
                    + singleTouchEvents()))
        out.append(("header-only.desc", EvemuWriter(description: .slotTouchscreen(width: 4096, height: 4096)).header))
        var dropped = EvemuWriter(description: .slotTouchscreen(width: 800, height: 480))
        let t = Instant.seconds(5)
        dropped.abs(t, EventCode.ABS_MT_TRACKING_ID, 7)
        dropped.abs(t, EventCode.ABS_MT_POSITION_X, 10)
        dropped.abs(t, EventCode.ABS_MT_POSITION_Y, 20)
        dropped.report(t)
        dropped.event(t + .milliseconds(8), EventCode.EV_SYN, EventCode.SYN_DROPPED, 0)
        dropped.report(t + .milliseconds(16))
        dropped.report(t + .milliseconds(24))
        dropped.raw("E: 5.032000 0003 0039 -1\t# EV_ABS / ABS_MT_TRACKING_ID -1")
        out.append(("syn-dropped.evemu", dropped.text))
        return out.map { ($0.0, Array($0.1.utf8)) }
    }

    private static func singleTouchEvents() -> String {
        var w = EvemuWriter(description: .singleTouchscreen(width: 800, height: 480))
        let t = Instant.seconds(2)
        w.abs(t, EventCode.ABS_X, 100)
        w.abs(t, EventCode.ABS_Y, 200)
        w.event(t, EventCode.EV_KEY, EventCode.BTN_TOUCH, 1)
        w.report(t)
        w.abs(t + .milliseconds(8), EventCode.ABS_Y, 180)
        w.report(t + .milliseconds(8))
        w.event(t + .milliseconds(16), EventCode.EV_KEY, EventCode.BTN_TOUCH, 0)
        w.report(t + .milliseconds(16))
        return w.eventsText
    }
}
