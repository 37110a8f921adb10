import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickWayland
import Foundation
import Testing

/// A pipeline as `PipelineBuilder` assembles it, on an 800×480 headless display, fed by a
/// recorded Wayland seat (Tests/Fixtures/wayland/*.log, `WAYLAND_DEBUG=1` lines) through
/// `WaylandLogSource` on virtual time: the surface 400×240 at scale 2. Everything it emits is
/// kept, each output with the view after its batch.
final class WaylandReplayRig: PipelineSink {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/wayland")
    static let panel = PixelSize(width: 800, height: 480)

    let source: WaylandLogSource
    let pipeline: Pipeline
    /// The view before the log's first input.
    let initial: ScrollView
    private(set) var outputs: [GestureOutput] = []
    private(set) var batches: [(outputs: [GestureOutput], view: ScrollView)] = []

    init(_ log: String, configuration: Configuration = Configuration()) throws {
        let path = Self.fixtures.appendingPathComponent(log).path
        let events = try WaylandDebugLog.parse(String(contentsOfFile: path, encoding: .utf8), path: log)
        source = WaylandLogSource(events: events, name: log,
                                  mapping: WaylandSurfaceMapping(surfaceSize: Size(width: 400, height: 240),
                                                                 outputSize: Size(width: 800, height: 480)),
                                  start: .seconds(1))
        let output = try #require(HeadlessOutput(size: Self.panel))
        let content = try Content(image: #require(TestPattern.make(PixelSize(width: 1000, height: 3000))))
        pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: output, content: content, input: .source(source, pixelsPerMillimetre: nil), at: .zero)
        initial = pipeline.scrollView
        pipeline.sink = self
        pipeline.start()
    }

    /// Plays the whole log and runs until everything rests.
    func run() {
        let outcome = VirtualRunner.run(pipeline, limit: .seconds(120))
        #expect(!outcome.hitLimit, "the pipeline did not come to rest")
    }

    var view: ScrollView { pipeline.scrollView }
    var gestures: [Gesture] { outputs.compactMap { if case let .gesture(g) = $0.kind { g } else { nil } } }
    var contentTouches: [ContentTouch] { outputs.compactMap { if case let .content(c) = $0.kind { c } else { nil } } }
    var scrollEvents: [ScrollEvent] { outputs.compactMap { if case let .scroll(e) = $0.kind { e } else { nil } } }

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {
        self.outputs += outputs
        batches.append((outputs, view))
    }

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {}
    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}
}

extension ScrollView {
    /// The content point under a point of the panel.
    func contentPoint(under p: Point) -> Point {
        Point(x: (p.x + contentOffset.x) / zoomScale, y: (p.y + contentOffset.y) / zoomScale)
    }
}
