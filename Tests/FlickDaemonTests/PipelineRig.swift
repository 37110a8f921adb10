import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// A pipeline as `PipelineBuilder` assembles it, on a small headless display, fed by scripted
/// touch frames on virtual time; everything it emits, presents and notes is kept.
final class PipelineRig: PipelineSink {
    let output: RecordingOutput
    let content: Content
    let pipeline: Pipeline
    let touches = ScriptedTouches()
    /// The test's virtual clock: it moves to each settle's limit, rest or not.
    private var clock: Instant
    var outputs: [GestureOutput] = []
    var presented: [Instant] = []
    /// Every frame presented, oldest first (the headless output presents each committed frame).
    private(set) var frames: [RenderState] = []
    var notices: [Pipeline.Notice] = []
    /// Called with every output and the view after its batch, as the daemon's sink sees them.
    var onOutput: ((GestureOutput, ScrollView) -> Void)?

    init(size: PixelSize = PixelSize(width: 320, height: 200), content: Content? = nil,
         configuration: Configuration = Configuration(), at start: Instant = .zero,
         restore: (offset: Point, zoomScale: Double)? = nil, physicalSize: Size? = nil,
         touchPixelsPerMillimetre: Double? = nil, powerEnvironment: PowerEnvironment? = nil) throws {
        clock = start
        let headless = try #require(HeadlessOutput(size: size, physicalSize: physicalSize))
        output = RecordingOutput(headless)
        self.content = try content ?? Content(image: #require(TestPattern.make(PixelSize(width: 1000, height: 3000))))
        var builder = PipelineBuilder(configuration: configuration)
        builder.powerEnvironment = powerEnvironment
        pipeline = try builder
            .build(output: output, content: self.content, input: .source(touches, pixelsPerMillimetre: touchPixelsPerMillimetre), at: start,
                   restore: restore)
        pipeline.sink = self
        pipeline.start()
    }

    var view: ScrollView { pipeline.scrollView }

    /// Feeds frames and runs until everything rests, at most `seconds` of virtual time from now.
    @discardableResult
    func settle(_ frames: [TouchFrame] = [], seconds: Double = 60, expectRest: Bool = true) -> VirtualRunner.Outcome {
        touches.frames += frames
        let limit = max(clock, pipeline.now) + .seconds(double: seconds)
        let outcome = VirtualRunner.run(pipeline, limit: limit)
        clock = outcome.hitLimit ? limit : max(clock, outcome.end)
        if expectRest { #expect(!outcome.hitLimit) }
        return outcome
    }

    /// A command handler over the pipeline.
    func commands() -> CommandHandler { CommandHandler(pipeline: pipeline) }

    /// The delegate messages so far.
    var scrollEvents: [ScrollEvent] { outputs.compactMap { if case let .scroll(e) = $0.kind { e } else { nil } } }

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        self.outputs += outputs
        if let onOutput { for output in outputs { onOutput(output, view) } }
    }

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
        presented.append(vblank)
        // At a presentation the presenter's shown frame is the one that reached the screen.
        if let shown = pipeline.presenter.shown { frames.append(shown) }
    }

    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) { notices.append(notice) }
}

/// The rig's headless output behind the `Output` protocol, as the daemon holds its output.
final class RecordingOutput: ForwardingOutput {
    var headless: HeadlessOutput { inner as! HeadlessOutput }
}

/// A finger at (x, y) moving by (dx, dy) per 8 ms report for `steps` reports, then lifting.
func dragFrames(from start: Instant, at x: Double, _ y: Double, by dx: Double, _ dy: Double, steps: Int,
                id: Int = 1) -> [TouchFrame] {
    let finger = ContactID(id)
    var frames = [TouchFrame(time: start, contacts: [Contact(id: finger, position: Point(x: x, y: y))], began: [finger])]
    for i in 1...steps {
        frames.append(TouchFrame(time: start + .milliseconds(8 * Int64(i)),
                                 contacts: [Contact(id: finger, position: Point(x: x + dx * Double(i), y: y + dy * Double(i)))]))
    }
    frames.append(TouchFrame(time: start + .milliseconds(8 * Int64(steps + 1)), contacts: [],
                             ended: [Contact(id: finger, position: Point(x: x + dx * Double(steps), y: y + dy * Double(steps)))]))
    return frames
}
