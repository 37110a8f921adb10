import FlickCore
import Testing
@testable import FlickDisplay

// Issue 36 part 5: a panned frame at zoom 1 moves the primary plane's source rectangle over one
// framebuffer (SRC_X/SRC_Y, 16.16 fixed point) instead of adding a framebuffer per frame; a
// driver that refuses that framebuffer keeps a framebuffer per corner (views).

private let panel = PixelSize(width: 160, height: 100)
private let crtc = CRTCID(rawValue: 41)

/// The values `DRMOutput` puts in a frame's request for the primary plane, by name.
private func primary(_ pan: ScanOutPan, framebuffer: UInt32, x: Int, y: Int, shown: (x: Int, y: Int)?) -> [String: UInt64] {
    let step = pan.step(x: x, y: y, shown: shown)
    return Dictionary(uniqueKeysWithValues: DRMPlanes.values(framebuffer: framebuffer, crtc: crtc, x: 0, y: 0, size: panel,
                                                             sourceX: step.sourceX, sourceY: step.sourceY))
}

@Test func aPanMovesThePlanesSourceInSixteenDotSixteenOverTheSameFramebuffer() {
    // A drag's corners in a 400×900 buffer, one frame each.
    let corners = [(0, 0), (3, 17), (3, 40), (120, 399), (240, 800)]
    var shown: (x: Int, y: Int)?
    for (x, y) in corners {
        let step = ScanOutPan.source.step(x: x, y: y, shown: shown)
        #expect(!step.addsFramebuffer)
        let values = primary(.source, framebuffer: 77, x: x, y: y, shown: shown)
        #expect(values["FB_ID"] == 77)
        #expect(values["CRTC_ID"] == 41)
        #expect(values["SRC_X"] == UInt64(x) * 65536)
        #expect(values["SRC_Y"] == UInt64(y) * 65536)
        // The plane still shows one panel's worth, onto the whole CRTC.
        #expect(values["SRC_W"] == 160 << 16)
        #expect(values["SRC_H"] == 100 << 16)
        #expect(values["CRTC_X"] == 0 && values["CRTC_Y"] == 0)
        #expect(values["CRTC_W"] == 160 && values["CRTC_H"] == 100)
        shown = (x, y)
    }
}

@Test func viewsAddAFramebufferPerCornerAndShowItFromItsOwnTopLeft() {
    let moved = ScanOutPan.views.step(x: 30, y: 40, shown: (30, 39))
    #expect(moved == ScanOutPan.Step(addsFramebuffer: true, sourceX: 0, sourceY: 0))
    // An indicator-only frame: the view on screen is shown again.
    #expect(!ScanOutPan.views.step(x: 30, y: 40, shown: (30, 40)).addsFramebuffer)
    #expect(ScanOutPan.views.step(x: 30, y: 40, shown: nil).addsFramebuffer)
    let values = primary(.views, framebuffer: 90, x: 30, y: 40, shown: (30, 39))
    #expect(values["SRC_X"] == 0 && values["SRC_Y"] == 0)
}

@Test func aPlaneTurnedOffSetsNoSource() {
    let values = DRMPlanes.values(framebuffer: 0, crtc: crtc, x: 5, y: 5, size: panel)
    #expect(values.map(\.0) == ["FB_ID", "CRTC_ID"])
    #expect(values.allSatisfy { $0.1 == 0 })
}

@Test func sourceCoordinatesNeverWrapPastSixteenBits() {
    #expect(DRMPlanes.fixed16(0) == 0)
    #expect(DRMPlanes.fixed16(1) == 0x1_0000)
    #expect(DRMPlanes.fixed16(0xFFFF) == 0xFFFF_0000)
    // Out of range is clamped (and refused by the kernel), never wrapped to a valid corner.
    #expect(DRMPlanes.fixed16(0x1_0000) == 0xFFFF_0000)
    #expect(DRMPlanes.fixed16(-3) == 0)
}

@Test func aFrameIsPannedWhenItsCornerOrItsBufferChanges() throws {
    let a = try #require(PixelBuffer(width: 400, height: 900))
    let b = try #require(PixelBuffer(width: 400, height: 900))
    #expect(DRMOutput.pans(to: .content(a, x: 0, y: 1), from: .content(a, x: 0, y: 0)))
    #expect(DRMOutput.pans(to: .content(b, x: 0, y: 0), from: .content(a, x: 0, y: 0)))
    #expect(DRMOutput.pans(to: .content(a, x: 0, y: 0), from: .composed))
    #expect(!DRMOutput.pans(to: .content(a, x: 7, y: 9), from: .content(a, x: 7, y: 9)))
    #expect(!DRMOutput.pans(to: .composed, from: .content(a, x: 0, y: 0)))
}

/// A drag down the content then the indicators' fade, frame by frame through the composer, on
/// a headless output with planes wrapped in the call model.
private func dragThenFade(_ pan: ScanOutPan) throws -> DRMCallModel {
    let headless = try #require(HeadlessOutput(size: panel))
    let output = DRMCallModel(headless, pan: pan)
    let content = Content(image: try #require(TestPattern.make(PixelSize(width: 400, height: 900))))
    let composer = FrameComposer(output: output, compositor: Compositor(), content: content)
    var now = Instant.zero
    func show(y: Double, opacity: Double) throws {
        try composer.commit(RenderState(boundsSize: panel.size, contentOffset: Point(x: 20, y: y), zoomScale: 1,
                                        contentSize: Size(width: 400, height: 900), indicatorOpacity: opacity), now: now)
        now = try #require(headless.nextDeadline)
        _ = try headless.dispatch(now: now)
    }
    for frame in 0..<20 { try show(y: Double(frame) * 12.5, opacity: 1) }
    for fade in [0.75, 0.5, 0.25, 0] { try show(y: 237.5, opacity: fade) }
    #expect(composer.scannedOutFrameCount == 24)
    return output
}

@Test func aDragIsOneCommitAFrameWithNoFramebufferMade() throws {
    let source = try dragThenFade(.source)
    #expect(source.counts == DRMCallCounts(commits: 24, pannedFrames: 20))
    #expect(source.panned == DRMCallCounts(commits: 20, pannedFrames: 20))
    // Today's way, kept for drivers that refuse the big framebuffer: one added per panned
    // frame, and each removed once a flip replaced it (the last stays on screen); the fade's
    // frames show the last view again.
    let views = try dragThenFade(.views)
    #expect(views.counts == DRMCallCounts(framebuffersAdded: 20, framebuffersRemoved: 19, commits: 24, pannedFrames: 20))
    #expect(views.panned == views.counts - DRMCallCounts(commits: 4))
}
