import FlickCore
import Testing
@testable import FlickDisplay

/// The model side, scripted: scrolls down at 600 px/s until 0.5 s, then rests while the
/// indicators fade from 1 to 0 over 0.3 s, then nothing changes.
private func scriptedState(at t: Instant) -> RenderState {
    let s = t.seconds
    let moving = min(s, 0.5)
    let opacity = s <= 0.5 ? 1 : max(0, 1 - (s - 0.5) / 0.3)
    return RenderState(boundsSize: Size(width: 80, height: 60), contentOffset: Point(x: 0, y: 600 * moving),
                       contentSize: Size(width: 80, height: 1000), indicatorOpacity: opacity)
}

@Test func stillSceneProducesNoFramesAfterTheIndicatorsFade() throws {
    let output = try #require(HeadlessOutput(size: PixelSize(width: 80, height: 60), refreshRate: 60))
    let content = Content(image: try #require(TestPattern.make(PixelSize(width: 80, height: 1000))))
    let loop = RenderLoop(output: output, compositor: Compositor(), content: content)
    // A virtual loop: the input starts the model at t = 0, then only vblanks wake it.
    var now = Instant.zero
    try loop.submit(scriptedState(at: now), now: now)
    var presentedAt: [Instant] = []
    while let deadline = output.nextDeadline, presentedAt.count < 1000 {
        now = deadline
        for vblank in loop.handle(try output.dispatch(now: now)) {
            presentedAt.append(vblank)
            // The model steps to the next vblank, when the next frame would show, and submits.
            try loop.submit(scriptedState(at: vblank + output.refreshPeriod), now: now)
        }
    }
    // Moving 0.5 s + fading 0.3 s at 60 Hz ≈ 49 frames, then the state stops changing.
    #expect(presentedAt.count >= 47 && presentedAt.count <= 51, "\(presentedAt.count) frames")
    #expect(presentedAt.last.map { $0.seconds <= 0.85 } == true)
    #expect(output.nextDeadline == nil)
    #expect(!output.isFlipPending)
    #expect(!loop.scheduler.needsDisplay)
    // Later wake-ups with the same state change nothing.
    let frames = output.presentedFrameCount
    for t in [1.0, 2.0, 10.0] {
        #expect(try loop.submit(scriptedState(at: .seconds(t)), now: .seconds(t)) == false)
        #expect(try output.dispatch(now: .seconds(t)).isEmpty)
    }
    #expect(output.presentedFrameCount == frames)
    #expect(output.nextDeadline == nil)
    // Vblanks are one refresh apart: one frame per vblank, never two.
    let gaps = zip(presentedAt.dropFirst(), presentedAt).map { ($0 - $1).inMilliseconds }
    #expect(gaps.allSatisfy { abs($0 - 1000.0 / 60) < 0.01 })
    // The last frame shows the resting content without indicators.
    #expect(output.frontBuffer[77, 30] == content.image[77, 330])
}

@Test func schedulerComposesOnlyChangesWithOneFlipInFlight() {
    var scheduler = FrameScheduler()
    let a = scriptedState(at: .zero), b = scriptedState(at: .seconds(0.1)), c = scriptedState(at: .seconds(0.2))
    scheduler.submit(a)
    #expect(scheduler.stateToCompose == a)
    scheduler.didCommit(a)
    scheduler.submit(b)
    #expect(scheduler.needsDisplay && scheduler.stateToCompose == nil)  // flip in flight
    scheduler.submit(c)
    let another = scheduler.didPresent()
    #expect(another)
    #expect(scheduler.stateToCompose == c)  // the newest, not the one in between
    scheduler.didCommit(c)
    scheduler.submit(c)
    let more = scheduler.didPresent()
    #expect(!more)
    #expect(scheduler.stateToCompose == nil)
    scheduler.invalidate()
    #expect(scheduler.stateToCompose == c)
}

@Test func headlessPresentsAtTheNextVblank() throws {
    let output = try #require(HeadlessOutput(size: PixelSize(width: 4, height: 4), refreshRate: 50))
    try output.withBackBuffer { $0.fill(0xFF11_2233) }
    try output.commit(now: .milliseconds(5))
    #expect(output.nextDeadline == .milliseconds(20))
    #expect(throws: OutputError.flipPending) { try output.withBackBuffer { _ in } }
    #expect(throws: OutputError.flipPending) { try output.commit(now: .milliseconds(6)) }
    #expect(try output.dispatch(now: .milliseconds(19)).isEmpty)
    #expect(try output.dispatch(now: .milliseconds(20)) == [.presented(at: .milliseconds(20))])
    #expect(output.frontBuffer[0, 0] == 0xFF11_2233)
    // Committed exactly on the vblank that just presented: the next one.
    try output.withBackBuffer { $0.fill(0xFF00_0000) }
    try output.commit(now: .milliseconds(20))
    #expect(output.nextDeadline == .milliseconds(40))
    // On a vblank with nothing presented there: that one.
    _ = try output.dispatch(now: .milliseconds(40))
    try output.withBackBuffer { _ in }
    try output.commit(now: .milliseconds(80))
    #expect(output.nextDeadline == .milliseconds(80))
    output.close()
    #expect(output.nextDeadline == nil)
    #expect(throws: OutputError.closed) { try output.withBackBuffer { _ in } }
}

@Test func headlessWritesPNGsEveryFrameOrOnRequest() throws {
    let dir = makeTemporaryDirectory()
    let every = try #require(HeadlessOutput(size: PixelSize(width: 8, height: 6), capture: .everyFrame(directory: dir)))
    for i in 0..<2 {
        try every.withBackBuffer { $0.fill(0xFF00_0000 | 0x10 * UInt32(i + 1)) }
        try every.commit(now: .seconds(Double(i)))
        _ = try every.dispatch(now: try #require(every.nextDeadline))
    }
    #expect(every.capturedFiles == [dir + "/frame-000001.png", dir + "/frame-000002.png"])
    let second = try Content.load(file: dir + "/frame-000002.png", pixelBudget: 100)
    #expect(second.image[7, 5] == 0xFF00_0020)

    let requestDir = makeTemporaryDirectory()
    let onRequest = try #require(HeadlessOutput(size: PixelSize(width: 8, height: 6), capture: .onRequest(directory: requestDir)))
    for i in 0..<3 {
        if i == 1 { onRequest.requestCapture() }
        try onRequest.withBackBuffer { _ in }
        try onRequest.commit(now: .seconds(Double(i)))
        _ = try onRequest.dispatch(now: try #require(onRequest.nextDeadline))
    }
    #expect(onRequest.capturedFiles == [requestDir + "/frame-000002.png"])
    try onRequest.writeFrontBuffer(toPNG: requestDir + "/shot.png")
    #expect(try Content.load(file: requestDir + "/shot.png", pixelBudget: 100).size == Size(width: 8, height: 6))
}
