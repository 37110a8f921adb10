import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// `flickd calibrate`'s pipeline on the daemon's virtual runner: its targets reach the panel
/// as the frame presenter's frames, composed, one per change of the picture.
@Suite struct CalibrationPipelineTests {
    let view = Size(width: 320, height: 240)

    func pipeline(_ output: any Output, touches: ScriptedTouches = ScriptedTouches(), rotation: PanelRotation = .none)
        throws -> CalibrationPipeline {
        let logical = rotation.logicalSize(panel: output.size).size
        let targets = try CalibrationTargets.layout(count: 3, in: logical)
        return CalibrationPipeline(output: output, input: touches, targets: targets,
                                   session: CalibrationSession(count: 3, screen: logical, settings: .init()),
                                   rotation: rotation, at: .zero, say: { _ in })
    }

    func expectShows(_ screen: TargetScreen, on output: HeadlessOutput) throws {
        let shown = try #require(output.snapshot())
        let want = try #require(PixelBuffer(width: shown.width, height: shown.height))
        screen.draw(into: want)
        let differing = (0..<shown.height).flatMap { y in (0..<shown.width).filter { shown[$0, y] != want[$0, y] } }
        #expect(differing.isEmpty, "\(differing.count) pixels differ")
    }

    @Test func theFirstTargetIsOneComposedFrameAndThenNothingWakesButTheTimeout() throws {
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 240)))
        let calibration = try pipeline(output)
        calibration.start()
        let outcome = VirtualRunner.run(calibration, limit: .seconds(10))
        #expect(outcome.hitLimit && outcome.timerWakeups == 0)
        #expect(calibration.presenter.composer.committedFrameCount == 1 && calibration.presenter.composer.scannedOutFrameCount == 0)
        try expectShows(TargetScreen(targets: calibration.targets, current: 0, done: 0), on: output)
        #expect(calibration.nextDeadline == .seconds(30))
    }

    @Test func aTurnedPanelShowsTheTurnedTargets() throws {
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 240)))
        let calibration = try pipeline(output, rotation: .clockwise90)
        calibration.start()
        _ = VirtualRunner.run(calibration, limit: .seconds(1))
        try expectShows(TargetScreen(targets: calibration.targets, current: 0, done: 0, rotation: .clockwise90), on: output)
    }

    @Test func eachAcceptedTouchRedrawsAndTheLastEndsTheRun() throws {
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 240)))
        let touches = ScriptedTouches()
        let calibration = try pipeline(output, touches: touches)
        var t = 0.5
        for target in calibration.targets {
            let finger = Contact(id: ContactID(1), position: target)
            touches.frames.append(TouchFrame(time: .seconds(t), contacts: [finger], began: [finger.id]))
            touches.frames.append(TouchFrame(time: .seconds(t + 0.1), contacts: [], ended: [finger]))
            t += 1
        }
        var finished = 0
        calibration.finished = { finished += 1 }
        calibration.start()
        let outcome = VirtualRunner.run(calibration)
        #expect(!outcome.hitLimit && finished == 1 && calibration.nextDeadline == nil)
        guard case .touches(let points) = calibration.outcome else {
            Issue.record("no touches: \(String(describing: calibration.outcome))")
            return
        }
        #expect(points == calibration.targets)
        // The first target, each next one, and the screen with every target done.
        #expect(calibration.presenter.composer.committedFrameCount == 4)
        // The run ends with the last frame in flight; its vblank shows it.
        calibration.presenter.dispatch(now: calibration.now + .seconds(1))
        try expectShows(TargetScreen(targets: calibration.targets, current: nil, done: 3), on: output)
    }
}
