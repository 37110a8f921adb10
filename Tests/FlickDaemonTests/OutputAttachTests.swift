import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickSystem
import Testing

/// A pipeline whose panel comes and goes (issue 35): no panel at all, then a 1024×768 one, then
/// a 1920×1080 one, on headless outputs and the virtual clock.
@Suite struct OutputAttachTests {
    /// Scripted touches that remember the screen size they were last mapped onto.
    final class MappedTouches: TouchSource {
        let scripted = ScriptedTouches()
        var outputSizes: [Size] = []
        var name: String { scripted.name }
        var fileDescriptors: [Descriptor] { [] }
        var nextDeadline: Instant? { scripted.nextDeadline }
        var tracing = false
        func dispatch(now: Instant) -> [TouchFrame] { scripted.dispatch(now: now) }
        func takeTransitions() -> [Transition] { [] }
        func setOutputSize(_ size: Size) { outputSizes.append(size) }
    }

    /// Everything the pipeline presents and notes.
    final class Sink: PipelineSink {
        var presented: [Instant] = []
        var notices: [Pipeline.Notice] = []
        func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {}
        func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) { presented.append(vblank) }
        func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) { notices.append(notice) }
    }

    let touches = MappedTouches()
    let sink = Sink()
    let image: PixelBuffer
    let pipeline: Pipeline
    let configuration = Configuration()
    let start = Instant.seconds(10)

    /// A pipeline started with no panel (a monitor off at boot), its content 1500×3000.
    init() throws {
        image = try #require(TestPattern.make(PixelSize(width: 1500, height: 3000)))
        pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: DisconnectedOutput(size: PixelSize(width: 1280, height: 800)), content: Content(image: image),
                   input: .source(touches, pixelsPerMillimetre: nil), at: start)
        pipeline.sink = sink
        pipeline.start()
    }

    var outputNotices: [String] { sink.notices.compactMap { if case let .output(text) = $0 { text } else { nil } } }

    /// Whether the panel shows the content at the view's offset (zoom 1), sampled on a grid
    /// away from the indicators' edges.
    func showsContent(on output: HeadlessOutput) throws -> Bool {
        let frame = try #require(output.snapshot())
        let offset = pipeline.scrollView.contentOffset
        for y in stride(from: 5, to: frame.height - 40, by: 97) {
            for x in stride(from: 5, to: frame.width - 40, by: 89) {
                let cx = x + Int(offset.x.rounded()), cy = y + Int(offset.y.rounded())
                let inside = cx >= 0 && cy >= 0 && cx < image.width && cy < image.height
                if inside, frame[x, y] & 0xFF_FFFF != image[cx, cy] & 0xFF_FFFF { return false }
            }
        }
        return true
    }

    @Test func withNoPanelTouchesMoveTheModelAndNothingIsDrawnOrWaitedFor() throws {
        #expect(pipeline.isConnected == false)
        #expect(pipeline.presenter.nextDeadline == nil && pipeline.nextDeadline == nil)
        let before = pipeline.scrollView.contentOffset
        touches.scripted.frames += dragFrames(from: start + .seconds(1), at: 600, 600, by: 0, -20, steps: 10)[...]
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(30))
        #expect(!outcome.hitLimit)
        #expect(pipeline.scrollView.contentOffset.y > before.y + 100)
        #expect(sink.presented.isEmpty && pipeline.presenter.composer.committedFrameCount == 0)
        #expect(pipeline.presenter.nextDeadline == nil)
        // At rest with no panel: nothing at all wakes the loop.
        #expect(pipeline.nextDeadline == nil)
        #expect(VirtualRunner.run(pipeline, limit: start + .seconds(600)).timerWakeups == 0)
    }

    @Test func eachPanelLaysTheViewOutForItself() throws {
        let small = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768), physicalSize: Size(width: 204, height: 153)))
        try PipelineBuilder.attach(small, configuration: configuration, to: pipeline, note: "display: 1024x768", at: start + .seconds(1))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(5))
        #expect(pipeline.scrollView.boundsSize == Size(width: 1024, height: 768))
        #expect(touches.outputSizes.last == Size(width: 1024, height: 768))
        #expect(try sink.presented.count >= 1 && showsContent(on: small))
        let smallStyle = pipeline.presenter.composer.compositor.indicatorStyle
        #expect(smallStyle == configuration.effectiveIndicatorStyle(pixelsPerMillimetre: small.pixelsPerMillimetre,
                                                                     panel: Size(width: 1024, height: 768)))
        // Scrolled near the bottom of the 768-high view: 3000 − 768 = 2232 is the last offset.
        let t1 = start + .seconds(6)
        pipeline.update(at: t1) { try? $0.setContentOffset(Point(x: 400, y: 2200), animated: false, at: t1) }
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(8))
        #expect(pipeline.scrollView.contentOffset == Point(x: 400, y: 2200))

        // A bigger monitor: 1080 high, so the offset is clamped to 3000 − 1080; 1500 wide
        // content on 1920 is centred: 210 pixels of background each side.
        let big = try #require(HeadlessOutput(size: PixelSize(width: 1920, height: 1080), physicalSize: Size(width: 598, height: 336)))
        small.close()
        let presented = sink.presented.count
        try PipelineBuilder.attach(big, configuration: configuration, to: pipeline, note: "display: 1920x1080", at: start + .seconds(9))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(15))
        #expect(pipeline.scrollView.boundsSize == Size(width: 1920, height: 1080))
        #expect(pipeline.scrollView.contentOffset == Point(x: -210, y: 1920))
        #expect(touches.outputSizes.last == Size(width: 1920, height: 1080))
        #expect(try sink.presented.count > presented && showsContent(on: big))
        let frame = try #require(big.snapshot())
        #expect(frame[100, 500] & 0xFF_FFFF == configuration.background.pixel & 0xFF_FFFF)
        let bigStyle = pipeline.presenter.composer.compositor.indicatorStyle
        #expect(bigStyle == configuration.effectiveIndicatorStyle(pixelsPerMillimetre: big.pixelsPerMillimetre,
                                                                   panel: Size(width: 1920, height: 1080)))
        #expect(outputNotices == ["display: 1024x768", "display: 1920x1080"])
    }

    @Test func aViewAtHomeGoesToTheNewPanelsHome() throws {
        var fit = configuration
        fit.startZoomScale = .fit
        fit.minimumZoomScale = .fit
        let pipeline = try PipelineBuilder(configuration: fit)
            .build(output: DisconnectedOutput(size: PixelSize(width: 1280, height: 800)), content: Content(image: image),
                   input: .source(touches, pixelsPerMillimetre: nil), at: start)
        pipeline.start()
        let small = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768)))
        try PipelineBuilder.attach(small, configuration: fit, to: pipeline, note: "small", at: start + .seconds(1))
        #expect(abs(pipeline.scrollView.zoomScale - 768.0 / 3000) < 1e-9)
        let big = try #require(HeadlessOutput(size: PixelSize(width: 1920, height: 1080)))
        try PipelineBuilder.attach(big, configuration: fit, to: pipeline, note: "big", at: start + .seconds(2))
        #expect(abs(pipeline.scrollView.zoomScale - 1080.0 / 3000) < 1e-9)
    }

    @Test func detachingStopsCommittingWithOneNotice() throws {
        let panel = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768)))
        try PipelineBuilder.attach(panel, configuration: configuration, to: pipeline, note: "on", at: start + .seconds(1))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(2))
        // A flick, and the monitor unplugged while it coasts.
        touches.scripted.frames += dragFrames(from: start + .seconds(3), at: 500, 600, by: 0, -30, steps: 8)[...]
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(3.2))
        let committed = pipeline.presenter.composer.committedFrameCount
        #expect(committed > 3)
        panel.close()
        try PipelineBuilder.attach(DisconnectedOutput(size: panel.size), configuration: configuration, to: pipeline,
                                   note: "off", at: start + .seconds(3.2))
        let kept = pipeline.scrollView.contentOffset
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(60))
        #expect(!outcome.hitLimit && outcome.timerWakeups < 5)
        #expect(pipeline.presenter.composer.committedFrameCount == 0 && pipeline.presenter.nextDeadline == nil)
        #expect(pipeline.scrollView.contentOffset == kept && pipeline.scrollView.boundsSize == Size(width: 1024, height: 768))
        #expect(outputNotices == ["on", "off"])
        // Plugged back: drawn again, where the view was.
        let again = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768)))
        try PipelineBuilder.attach(again, configuration: configuration, to: pipeline, note: "on again", at: start + .seconds(61))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(70))
        #expect(try pipeline.presenter.composer.committedFrameCount >= 1 && showsContent(on: again))
    }
}
