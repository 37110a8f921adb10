import FlickCore
import Testing
@testable import FlickDisplay

// Zero-copy scrolling (docs/ARCHITECTURE.md): on an output with overlay planes a frame at zoom 1 is the
// content itself and the indicators are overlay strips. Whatever path a frame takes, the panel
// must show exactly what composing it would have drawn.

private let panel = PixelSize(width: 160, height: 100)
private let contentSize = PixelSize(width: 400, height: 900)

private func state(x: Double, y: Double, zoom: Double = 1, opacity: Double = 1) -> RenderState {
    RenderState(boundsSize: panel.size, contentOffset: Point(x: x, y: y), zoomScale: zoom,
                contentSize: contentSize.size, indicatorOpacity: opacity, background: Color(rgb: 0x203040))
}

/// What the compositor alone draws for `state`: the reference every path must equal.
private func composed(_ state: RenderState, _ content: PixelBuffer, rotation: PanelRotation = .none) throws -> PixelBuffer {
    let target = try #require(PixelBuffer(width: panel.width, height: panel.height))
    Compositor(rotation: rotation).compose(state, content: content, into: target)
    return target
}

/// Commits `state` through the composer and presents it.
private func show(_ state: RenderState, _ composer: FrameComposer, _ output: HeadlessOutput, at now: inout Instant) throws {
    try composer.commit(state, now: now)
    now = try #require(output.nextDeadline)
    _ = try output.dispatch(now: now)
}

private func mismatches(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    var count = 0
    for y in 0..<a.height { for x in 0..<a.width where a[x, y] != b[x, y] { count += 1 } }
    return count
}

@Test func aFrameAtZoomOneIsTheContentItselfWithTheIndicatorsOnOverlays() throws {
    let output = try #require(HeadlessOutput(size: panel))
    let content = Content(image: try #require(TestPattern.make(contentSize)))
    let loop = FrameComposer(output: output, compositor: Compositor(), content: content)
    var now = Instant.zero
    // A drag with both indicators, then the fade, one frame each; every frame is checked.
    let frames = [state(x: 0, y: 0, opacity: 0), state(x: 10, y: 40), state(x: 30.4, y: 95.6),
                  state(x: 240, y: 800), state(x: 120, y: 400, opacity: 0.5), state(x: 120, y: 400, opacity: 0)]
    for frame in frames {
        try show(frame, loop, output, at: &now)
        #expect(output.isScanningOutContent)
        #expect(output.shownOverlays.count == (frame.indicatorOpacity > 0 ? 2 : 0))
        #expect(mismatches(output.frontBuffer, try composed(frame, content.image!)) == 0)
    }
    #expect(loop.scannedOutFrameCount == frames.count)
    // Nothing was composed, so no panel-sized buffer was ever made.
    #expect(output.composedBufferCount == 0)
}

@Test func zoomedOrRubberBandedFramesAreComposedUnderTheSameOverlays() throws {
    let output = try #require(HeadlessOutput(size: panel))
    let content = Content(image: try #require(TestPattern.make(contentSize)))
    let loop = FrameComposer(output: output, compositor: Compositor(), content: content)
    var now = Instant.zero
    // Zoomed, past the top edge, past the right edge, then back to a scan-out frame, whose
    // strips must not keep the bars drawn two frames before.
    let frames = [state(x: 50, y: 60, zoom: 1.7), state(x: 20, y: -30), state(x: 260, y: 100),
                  state(x: 100, y: 500), state(x: 100, y: 20)]
    for (index, frame) in frames.enumerated() {
        try show(frame, loop, output, at: &now)
        #expect(output.isScanningOutContent == (index >= 3))
        #expect(output.shownOverlays.count == 2)
        #expect(mismatches(output.frontBuffer, try composed(frame, content.image!)) == 0)
    }
    #expect(output.composedBufferCount == 2)
}

@Test func withoutOverlayPlanesOrWithRotationEverythingIsComposed() throws {
    let content = Content(image: try #require(TestPattern.make(contentSize)))
    let plain = try #require(HeadlessOutput(size: panel, overlayPlanes: 0))
    let rotated = try #require(HeadlessOutput(size: panel))
    // A 180° turn keeps the panel's shape, so the same states apply.
    for (output, rotation) in [(plain, PanelRotation.none), (rotated, .clockwise180)] {
        let loop = FrameComposer(output: output, compositor: Compositor(rotation: rotation), content: content)
        var now = Instant.zero
        for frame in [state(x: 10, y: 40), state(x: 12, y: 300, opacity: 0.7)] {
            try show(frame, loop, output, at: &now)
            #expect(!output.isScanningOutContent)
            #expect(output.shownOverlays.isEmpty)
            #expect(mismatches(output.frontBuffer, try composed(frame, content.image!, rotation: rotation)) == 0)
        }
        #expect(loop.scannedOutFrameCount == 0)
    }
}

@Test func scanOutNeedsOpaqueContentCoveringThePanelAtZoomOne() throws {
    let compositor = Compositor()
    let opaque = try #require(PixelBuffer(width: 400, height: 900))
    let translucent = try #require(PixelBuffer(width: 400, height: 900, format: .argb8888))
    #expect(compositor.scanOutOrigin(state(x: 10.4, y: 20.6), content: opaque, panel: panel)! == (10, 21))
    #expect(compositor.scanOutOrigin(state(x: 240, y: 800), content: opaque, panel: panel)! == (240, 800))
    #expect(compositor.scanOutOrigin(state(x: 241, y: 800), content: opaque, panel: panel) == nil)
    #expect(compositor.scanOutOrigin(state(x: 0, y: -0.6), content: opaque, panel: panel) == nil)
    #expect(compositor.scanOutOrigin(state(x: 0, y: 0, zoom: 1.0001), content: opaque, panel: panel) == nil)
    #expect(compositor.scanOutOrigin(state(x: 0, y: 0), content: translucent, panel: panel) == nil)
    #expect(Compositor(rotation: .clockwise180).scanOutOrigin(state(x: 0, y: 0), content: opaque, panel: panel) == nil)
}

@Test func aHeadlessOutputRefusesLayersItCannotShow() throws {
    let output = try #require(HeadlessOutput(size: panel, overlayPlanes: 1))
    let content = try #require(PixelBuffer(width: 400, height: 900))
    let strip = try output.makeLayerBuffer(PixelSize(width: 6, height: 100))
    let two = FrameLayers(primary: .composed, overlays: [.init(buffer: strip, x: 154, y: 0), .init(buffer: strip, x: 154, y: 0)])
    #expect(throws: OutputError.unsupported) { try output.commit(two, now: .zero) }
    #expect(throws: OutputError.unsupported) {
        try output.commit(FrameLayers(primary: .content(content, x: 241, y: 0)), now: .zero)
    }
    #expect(throws: OutputError.unsupported) {
        _ = try HeadlessOutput(size: panel, overlayPlanes: 0)!.makeLayerBuffer(PixelSize(width: 6, height: 100))
    }
    try output.commit(FrameLayers(primary: .content(content, x: 240, y: 800), overlays: [.init(buffer: strip, x: 154, y: 0)]), now: .zero)
    #expect(output.isFlipPending)
}

/// A headless output that misbehaves as a card might: it refuses to make overlay buffers, or
/// its next `failures` commits throw.
private final class Misbehaving: ForwardingOutput {
    var refusesOverlays = false
    var failures = 0
    override func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer {
        if refusesOverlays { throw OutputError.allocationFailed(size) }
        return try inner.makeLayerBuffer(size)
    }
    override func commit(_ layers: FrameLayers, now: Instant) throws {
        if failures > 0 { failures -= 1; throw OutputError.unsupported }
        try inner.commit(layers, now: now)
    }
}

@Test func overlaysThatCannotBeMadeAreGivenUpOnceAndEveryFrameStillShows() throws {
    let headless = try #require(HeadlessOutput(size: panel))
    let output = Misbehaving(headless)
    output.refusesOverlays = true
    let content = Content(image: try #require(TestPattern.make(contentSize)))
    let loop = FrameComposer(output: output, compositor: Compositor(), content: content)
    var now = Instant.zero
    for frame in [state(x: 10, y: 40), state(x: 10, y: 80), state(x: 10, y: 80, opacity: 0)] {
        try loop.commit(frame, now: now)
        now = try #require(output.nextDeadline)
        _ = try output.dispatch(now: now)
        #expect(!headless.isScanningOutContent && headless.shownOverlays.isEmpty)
        #expect(mismatches(headless.frontBuffer, try composed(frame, content.image!)) == 0)
    }
    #expect(loop.planeFailure?.contains("cannot allocate") == true)
}

@Test func indicatorStripsAreNeverThinnerThanDisplaysAccept() {
    let view = PixelSize(width: 1024, height: 768)
    let thin = IndicatorStrips.rect(for: .vertical, view: view, style: IndicatorStyle())
    #expect(thin == PixelRect(x0: 1024 - IndicatorStrips.minimumDepth, y0: 0, x1: 1024, y1: 768))
    var wide = IndicatorStyle()
    wide.thickness = 40
    wide.edgeInset = 10.5
    // 10.5 + 40 + the default style's 1 px border each side = 52.5, rounded up.
    #expect(IndicatorStrips.rect(for: .horizontal, view: view, style: wide) == PixelRect(x0: 0, y0: 768 - 53, x1: 1024, y1: 768))
}

@Test func aFrameRetriedAfterAFailedCommitNeverDrawsIntoTheStripOnScreen() throws {
    let headless = try #require(HeadlessOutput(size: panel))
    let output = Misbehaving(headless)
    let content = Content(image: try #require(TestPattern.make(contentSize)))
    let loop = FrameComposer(output: output, compositor: Compositor(), content: content)
    var now = Instant.zero
    let first = state(x: 10, y: 40)
    try loop.commit(first, now: now)
    now = try #require(output.nextDeadline)
    _ = try output.dispatch(now: now)
    #expect(headless.isScanningOutContent && headless.shownOverlays.count == 2)
    // The next frame fails twice, then goes through; what the planes on screen hold (put
    // together afresh, not the output's cached picture) stays the first frame meanwhile.
    output.failures = 2
    let second = state(x: 10, y: 600)
    for _ in 0..<2 {
        #expect(throws: OutputError.unsupported) { try loop.commit(second, now: now) }
        let shown = try #require(PixelBuffer(width: panel.width, height: panel.height))
        FrameLayers(primary: .content(content.image!, x: 10, y: 40), overlays: headless.shownOverlays)
            .flatten(composed: nil, into: shown)
        #expect(mismatches(shown, try composed(first, content.image!)) == 0)
    }
    try loop.commit(second, now: now)
    now = try #require(output.nextDeadline)
    _ = try output.dispatch(now: now)
    #expect(mismatches(headless.frontBuffer, try composed(second, content.image!)) == 0)
}
