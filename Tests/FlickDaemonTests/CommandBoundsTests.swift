import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// Commands never leave the panel showing what no touch could reach: each comes to rest inside
/// the bounds (docs/protocol.md, "Replies"), answers where, shows the content there (the frame's
/// pixels) and logs no bounce that never happened. With no panel they move the model at once,
/// and the panel that comes shows the view there.
@Suite struct CommandBoundsTests {
    let start = Instant.seconds(5)
    /// 1000×3000: on the rig's 320×200 panel the last offset at zoom 1 is (680, 2800).
    let image: PixelBuffer

    init() throws {
        image = try #require(TestPattern.make(PixelSize(width: 1000, height: 3000)))
    }

    func rig(_ configuration: Configuration = Configuration()) throws -> PipelineRig {
        try PipelineRig(content: Content(image: image), configuration: configuration, at: start)
    }

    /// The gestures the journal logged so far, by name.
    func logged(_ outputs: [GestureOutput], view: ScrollView) -> [String] {
        outputs.compactMap { GestureLog.entry(for: $0, view: view)?.fields["GESTURE"] }
    }

    /// Screen points on a grid, away from the edges where the indicators are drawn.
    func samples(_ frame: PixelBuffer) -> [(x: Int, y: Int)] {
        stride(from: 3, to: frame.height - 12, by: 13).flatMap { y in
            stride(from: 3, to: frame.width - 12, by: 17).map { x in (x, y) }
        }
    }

    /// Whether the frame shows `content` at `offset`, zoom 1, pixel for pixel.
    func shows(_ content: PixelBuffer, at offset: Point, in frame: PixelBuffer) -> Bool {
        samples(frame).allSatisfy { p in
            let cx = p.x + Int(offset.x.rounded()), cy = p.y + Int(offset.y.rounded())
            guard cx >= 0, cy >= 0, cx < content.width, cy < content.height else { return false }
            return frame[p.x, p.y] & 0xFF_FFFF == content[cx, cy] & 0xFF_FFFF
        }
    }

    /// Whether no sampled pixel is the (black) background: the test pattern has no black, so the
    /// content covers the panel.
    func covered(_ frame: PixelBuffer) -> Bool {
        samples(frame).allSatisfy { p in frame[p.x, p.y] & 0xFF_FFFF != Color.black.pixel & 0xFF_FFFF }
    }

    @Test(arguments: [true, false])
    func anOffsetFarPastTheEndsRestsInsideTheBoundsWithTheContentOnScreen(animated: Bool) throws {
        let rig = try rig()
        let commands = rig.commands()
        for (asked, rest) in [((99999.0, 99999.0), Point(x: 680, y: 2800)), ((-99999, -99999), Point.zero),
                              ((99999, -5), Point(x: 680, y: 0))] {
            let reply = commands.handle(.setOffset(x: asked.0, y: asked.1, animated: animated), id: 1)
            #expect(reply.ok == true && reply.offset == [rest.x, rest.y] && reply.zoomScale == 1, "\(reply)")
            rig.settle()
            #expect(rig.view.contentOffset == rest && commands.status().offset == [rest.x, rest.y])
            let frame = try #require(rig.output.headless.snapshot())
            #expect(shows(image, at: rest, in: frame), "\(asked)")
        }
        #expect(!logged(rig.outputs, view: rig.view).contains("bounce"), "\(logged(rig.outputs, view: rig.view))")
    }

    @Test(arguments: [true, false])
    func zoomsPastTheLimitsAndRectanglesFarOutsideRestInsideTheBounds(animated: Bool) throws {
        let rig = try rig()
        let commands = rig.commands()
        // Zoom 4 (the default maximum) about the view's centre (160, 100).
        let zoom = commands.handle(.setZoomScale(1000, animated: animated), id: 1)
        #expect(zoom.ok == true && zoom.zoomScale == 4 && zoom.offset == [480, 300], "\(zoom)")
        rig.settle()
        #expect(rig.view.zoomScale == 4 && rig.view.contentOffset == Point(x: 480, y: 300))
        #expect(try covered(#require(rig.output.headless.snapshot())))
        // A 10 px rectangle a million pixels out: zoom 4 (320 / 10 is past the maximum), the
        // content's bottom-right corner at 4000×12000 less the view.
        let rect = commands.handle(.zoomToRect(x: 1e6, y: 1e6, width: 10, height: 10, animated: animated), id: 2)
        #expect(rect.ok == true && rect.zoomScale == 4 && rect.offset == [3680, 11800], "\(rect)")
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 3680, y: 11800))
        #expect(try covered(#require(rig.output.headless.snapshot())))
        // Back at zoom 1, a rectangle left of and below the content: its nearest corner.
        _ = commands.handle(.setZoomScale(1, animated: false), id: 3)
        let visible = commands.handle(.scrollRectToVisible(x: -5000, y: 99999, width: 100, height: 100, animated: animated), id: 4)
        #expect(visible.ok == true && visible.offset == [0, 2800] && visible.zoomScale == 1, "\(visible)")
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 0, y: 2800))
        #expect(try shows(image, at: Point(x: 0, y: 2800), in: #require(rig.output.headless.snapshot())))
        #expect(!logged(rig.outputs, view: rig.view).contains("bounce"), "\(logged(rig.outputs, view: rig.view))")
    }

    @Test func theInsetsAndACentredAxisAreTheBounds() throws {
        var inset = Configuration()
        inset.contentInset = EdgeInsets(top: 20, left: 10, bottom: 30, right: 40)
        let rig = try rig(inset)
        let commands = rig.commands()
        #expect(commands.handle(.setOffset(x: -99999, y: -99999, animated: false), id: 1).offset == [-10, -20])
        // 1000 + 40 − 320 and 3000 + 30 − 200.
        #expect(commands.handle(.setOffset(x: 99999, y: 99999, animated: true), id: 2).offset == [720, 2830])
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 720, y: 2830))

        // At zoom 0.05 the content is 50×150 in the 320×200 view, centred on both axes: that
        // negative offset is the only one there is, and any request rests at it.
        var small = Configuration()
        small.minimumZoomScale = 0.05
        let centred = try self.rig(small)
        let handler = centred.commands()
        #expect(handler.handle(.setZoomScale(0.05, animated: false), id: 1).offset == [-135, -25])
        for asked in [(99999.0, 99999.0), (-99999, 0), (0, 300)] {
            let reply = handler.handle(.setOffset(x: asked.0, y: asked.1, animated: true), id: 2)
            #expect(reply.offset == [-135, -25] && reply.zoomScale == 0.05, "\(asked): \(reply)")
            centred.settle()
            #expect(centred.view.contentOffset == Point(x: -135, y: -25))
        }
        let frame = try #require(centred.output.headless.snapshot())
        #expect(frame[160, 100] & 0xFF_FFFF != Color.black.pixel & 0xFF_FFFF && frame[20, 20] & 0xFF_FFFF == Color.black.pixel & 0xFF_FFFF)
        #expect(!logged(centred.outputs, view: centred.view).contains("bounce"))
    }

    /// A pipeline started with no panel (a monitor off at boot), laid out for 1280×800, showing
    /// 1500×3000 content.
    func disconnected() throws -> (pipeline: Pipeline, content: PixelBuffer) {
        let content = try #require(TestPattern.make(PixelSize(width: 1500, height: 3000)))
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: DisconnectedOutput(size: PixelSize(width: 1280, height: 800)), content: Content(image: content),
                   input: .source(ScriptedTouches(), pixelsPerMillimetre: nil), at: start)
        pipeline.start()
        return (pipeline, content)
    }

    @Test(arguments: [true, false])
    func withNoPanelACommandIsInStatusAtOnceAndOnScreenWhenAPanelComes(animated: Bool) throws {
        let (pipeline, content) = try disconnected()
        let commands = CommandHandler(pipeline: pipeline)
        #expect(!pipeline.isConnected)
        let reply = commands.handle(.setOffset(x: 0, y: 300, animated: animated), id: 1)
        #expect(reply.ok == true && reply.offset == [0, 300])
        // At once, before the loop runs again: no frame would ever step an animation.
        #expect(commands.status().offset == [0, 300] && pipeline.nextDeadline == nil)
        #expect(VirtualRunner.run(pipeline, limit: start + .seconds(30)).timerWakeups == 0)
        #expect(pipeline.presenter.composer.committedFrameCount == 0)

        let panel = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768)))
        try PipelineBuilder.attach(panel, configuration: Configuration(), to: pipeline, note: "on", at: start + .seconds(31))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(40))
        #expect(pipeline.scrollView.contentOffset == Point(x: 0, y: 300))
        #expect(try pipeline.presenter.composer.committedFrameCount >= 1 && shows(content, at: Point(x: 0, y: 300),
                                                                                    in: #require(panel.snapshot())))
    }

    @Test func withNoPanelTheBoundsAreTheWaitingSizesThenThePanelsAndAMotionEndsWithOneWakeUp() throws {
        let (pipeline, content) = try disconnected()
        let commands = CommandHandler(pipeline: pipeline)
        // Laid out for 1280×800 while waiting: 3000 − 800 is the last offset, and 1500 − 1280.
        #expect(commands.handle(.setOffset(x: 99999, y: 99999, animated: true), id: 1).offset == [220, 2200])
        #expect(commands.status().offset == [220, 2200])
        // scroll-to-top jumps, as every command does with no panel.
        #expect(commands.handle(.scrollToTop(animated: true), id: 2).offset == [220, 0])
        #expect(commands.status().offset == [220, 0] && pipeline.nextDeadline == nil)
        // A motion that is no command's (here the model's own animation, as attract mode's way
        // home is) has no frames to step it: the loop wakes once, at its end, and it is there
        // before any panel comes.
        pipeline.update(at: start) { v in try? v.setContentOffset(Point(x: 0, y: 1000), animated: true, at: start) }
        #expect(pipeline.scrollView.isAnimating && pipeline.nextDeadline != nil)
        let outcome = VirtualRunner.run(pipeline, limit: start + .seconds(30))
        #expect(!outcome.hitLimit && outcome.timerWakeups == 1)
        #expect(commands.status().offset == [0, 1000] && !pipeline.scrollView.isAnimating && pipeline.nextDeadline == nil)
        // The panel that comes keeps the content point at the top-left, clamped into its own
        // bounds: 1500 − 1024 = 476 is within them, 220 stays.
        _ = commands.handle(.setOffset(x: 220, y: 2200, animated: false), id: 3)
        let panel = try #require(HeadlessOutput(size: PixelSize(width: 1024, height: 768)))
        try PipelineBuilder.attach(panel, configuration: Configuration(), to: pipeline, note: "on", at: start + .seconds(31))
        _ = VirtualRunner.run(pipeline, limit: start + .seconds(40))
        #expect(pipeline.scrollView.contentOffset == Point(x: 220, y: 2200))
        #expect(try shows(content, at: Point(x: 220, y: 2200), in: #require(panel.snapshot())))
    }
}
