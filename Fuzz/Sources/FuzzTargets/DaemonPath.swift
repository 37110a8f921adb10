import FlickControl
import FlickCore
import FlickDaemon
import FlickDisplay
import Foundation

/// The daemon between its sockets and its devices, without the sockets and the devices: a
/// session on a small headless display, the control commands, and everything that turns the
/// model's outputs into text (journal entries, subscriber events). What a control line or a
/// recording reaches in `flickd run`, one fuzz input at a time.
///
/// Checks, on every output: the journal entry and the event line exist as text (no trap on any
/// number), the event line is one JSON object with a `type` — never the `{}` an encoder
/// writes when it meets a NaN or an infinity — and the stream keeps the stamped delegate
/// grammar (`DelegateGrammar`: order, a clock that never goes back, no duplicate `didScroll`,
/// a `state` with every change of a flag).
final class DaemonPath: PipelineSink {
    let output: HeadlessOutput
    let pipeline: Pipeline
    let commands: CommandHandler
    private let touches = ScriptedTouches()

    /// The content every input starts from (read-only, so inputs share it): taller than the
    /// view, wider at zoom 2, one page.
    nonisolated(unsafe) private static let content = try! Content.testPattern(PixelSize(width: 50, height: 160))

    init(start: Instant = .seconds(100), paging: Bool = false) {
        Self.encodedTypes.removeAll(keepingCapacity: true)
        // Fuzzed recordings repeat timestamps: a touch may stop a deceleration in the instant
        // it began (see `DelegateGrammar.init`).
        Self.grammar = DelegateGrammar(allowingInstantStops: true)
        // Small: what is checked is the arithmetic of every frame, not its pixels.
        output = HeadlessOutput(size: PixelSize(width: 40, height: 24))!
        var configuration = Configuration()
        configuration.minimumZoomScale = 0.25
        configuration.maximumZoomScale = 4
        configuration.paging = paging
        pipeline = try! PipelineBuilder(configuration: configuration)
            .build(output: output, content: Self.content, input: .source(touches, pixelsPerMillimetre: nil), at: start)
        commands = CommandHandler(pipeline: pipeline)
        pipeline.sink = self
        pipeline.start()
    }

    /// The view's size, for mapping a recording onto it.
    var viewSize: Size { pipeline.presenter.viewSize }

    /// Answers one command as the control server would, and checks the reply.
    func answer(_ command: ControlCommand, id: Int?) {
        check(reply: commands.handle(command, id: id))
    }

    /// Runs the pipeline on virtual time until everything rests or `seconds` have passed.
    func settle(frames: [TouchFrame] = [], seconds: Double = 0.5) {
        touches.frames += frames
        _ = VirtualRunner.run(pipeline, limit: pipeline.now + .seconds(double: seconds))
    }

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        for output in outputs { Self.check(output, view) }
    }

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}

    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}

    /// One output through the journal's text and the subscribers' JSON. JSONEncoder fails only
    /// on a non-finite number, so a line's numbers are checked directly, and one line of each
    /// type per input is encoded and parsed for real (doing it for every `didScroll` of every
    /// frame took nine tenths of the target's time).
    static func check(_ output: GestureOutput, _ view: ScrollView) {
        if let entry = GestureLog.entry(for: output, view: view) {
            fuzzCheck(!entry.message.isEmpty, "an empty journal message for \(output)")
        }
        let violation: String?
        switch output.kind {
        case let .scroll(event): violation = output.state.map { grammar.accept(event, at: output.time, state: $0) } ?? "no state"
        case let .state(state): violation = grammar.acceptState(state, at: output.time)
        case .content, .gesture: violation = grammar.acceptOther(at: output.time)
        case .transition, .diagnostic: violation = nil
        }
        fuzzCheck(violation == nil, "the event stream broke its grammar at \(output): \(violation ?? "")")
        let message = ControlMessage.event(output, view: view)
        let numbers = [message.t, message.x, message.y, message.vx, message.vy, message.zoomScale, message.duration,
                       message.distance, message.fromScale].compactMap { $0 }
            + (message.offset ?? []) + (message.targetOffset ?? []) + (message.translation ?? [])
        fuzzCheck(numbers.allSatisfy(\.isFinite), "the event for \(output) holds \(numbers)")
        guard let type = message.type, encodedTypes.insert(type).inserted else { return }
        let line = message.line()
        let object = try? JSONSerialization.jsonObject(with: line.dropLast()) as? [String: Any]
        fuzzCheck(object?["type"] is String, "the event line for \(output) is \(String(decoding: line, as: UTF8.self))")
    }

    /// The stream of this input so far, checked as it comes.
    nonisolated(unsafe) private static var grammar = DelegateGrammar()

    /// Event types already encoded for real in this input.
    nonisolated(unsafe) private static var encodedTypes: Set<String> = []

    /// A reply is one line holding one JSON object with `ok`; a success's numbers are finite.
    func check(reply: ControlMessage) {
        let line = reply.line()
        fuzzCheck(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil, "the reply is not one line")
        let object = try? JSONSerialization.jsonObject(with: line.dropLast()) as? [String: Any]
        fuzzCheck(object?["ok"] is Bool, "the reply is not JSON with ok: \(String(decoding: line, as: UTF8.self))")
        if let offset = reply.offset { fuzzCheck(offset.allSatisfy(\.isFinite), "a reply applied offset \(offset)") }
    }
}
