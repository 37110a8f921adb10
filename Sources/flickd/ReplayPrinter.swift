import FlickControl
import FlickCore
import FlickDaemon

/// What `flickd replay` prints: one line per gesture (the journal's sentence), or with `--json`
/// every event as a JSON line and a `frame` line per frame presented; with `--trace` every machine's steps too, in order among them.
/// Diagnostics and the display's notices go to standard error.
final class ReplayPrinter: PipelineSink {
    let json: Bool
    let trace: Bool

    init(json: Bool, trace: Bool) {
        self.json = json
        self.trace = trace
    }

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        for output in outputs {
            switch output.kind {
            case .diagnostic(let note):
                writeStandardError("flickd: \(note)\n")
            case .transition(let step):
                guard trace else { continue }
                if json { write(ControlMessage.event(output, view: view)) } else { print(step.line) }
            case .content, .scroll, .state, .gesture:
                if json {
                    write(ControlMessage.event(output, view: view))
                } else if let line = GestureLog.entry(for: output, view: view) {
                    print(output.time.seconds.fixed(3, width: 10) + " s  " + line.message)
                }
            }
        }
    }

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
        // The frame that reached the screen is the one last committed.
        guard json, let shown = pipeline.presenter.shown else { return }
        write(ControlMessage.frame(at: vblank.seconds, offset: shown.contentOffset, zoomScale: shown.zoomScale))
    }

    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {
        // Display power's changes are the recording's behaviour, printed as the live stream has them.
        guard case let .power(state, reason, time, _) = notice else { return writeStandardError("flickd: \(notice)\n") }
        if json {
            write(ControlMessage.power(state: state, reason: reason, at: time.seconds, view: pipeline.scrollView.state))
        } else {
            print(time.seconds.fixed(3, width: 10) + " s  " + "\(notice)")
        }
    }

    private func write(_ message: ControlMessage) {
        print(String(decoding: message.line(), as: UTF8.self), terminator: "")
    }
}
