import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// The pipeline's frame pacing on a virtual clock and a headless display that presents each
/// committed frame at the next 60 Hz vblank.
@Suite struct PipelineTests {
    @Test func aStillSceneStopsProducingFrames() throws {
        let start = Instant.seconds(50)
        let rig = try PipelineRig(size: PixelSize(width: 400, height: 240),
                                  content: try Content.testPattern(PixelSize(width: 400, height: 10_000)), at: start)
        rig.settle(seconds: 0.5)
        #expect(rig.frames.count == 1)
        rig.settle(dragFrames(from: start + .seconds(1), at: 200, 200, by: 0, -15, steps: 10), seconds: 30)
        let frames = rig.frames.count
        #expect(frames > 100) // the flick animated frame by frame
        #expect(rig.scrollEvents.contains(.didEndDecelerating))
        // At rest, indicators faded: the last frame has them at 0, and nothing else is asked for.
        #expect(rig.frames.last?.indicatorOpacity == 0)
        #expect(rig.pipeline.nextDeadline == nil && rig.pipeline.presenter.state == .idle)
        let outcome = rig.settle(seconds: 30)
        #expect(outcome.timerWakeups == 0 && rig.frames.count == frames)
    }

    @Test func aFlashHoldsThenFadesWithoutSpinning() throws {
        let start = Instant.seconds(5)
        let rig = try PipelineRig(content: try Content.testPattern(PixelSize(width: 320, height: 2000)), at: start)
        rig.settle(seconds: 1)
        rig.pipeline.update(at: start + .seconds(1)) { $0.flashScrollIndicators(at: start + .seconds(1)) }
        let outcome = rig.settle(seconds: 4)
        let opacities = rig.frames.map(\.indicatorOpacity)
        #expect(opacities.contains(1) && opacities.last == 0)
        #expect(opacities.count < 40) // a flash, a hold and ~0.3 s of fade at 60 Hz
        #expect(outcome.timerWakeups <= 3 && rig.pipeline.nextDeadline == nil)
    }

    @Test func eachTapIsPublishedOnceWithTheDelayTimer() throws {
        let start = Instant.seconds(5)
        let rig = try PipelineRig(at: start)
        let touch = start + .seconds(1)
        let finger = ContactID(3)
        rig.settle([
            TouchFrame(time: touch, contacts: [Contact(id: finger, position: Point(x: 10, y: 10))], began: [finger]),
            TouchFrame(time: touch + .milliseconds(200), contacts: [], ended: [Contact(id: finger, position: Point(x: 10, y: 10))]),
        ], seconds: 3)
        let taps = rig.outputs.filter { if case .content(.tap) = $0.kind { true } else { false } }
        let downs = rig.outputs.filter { if case .content(.down) = $0.kind { true } else { false } }.map(\.time)
        #expect(taps.count == 1 && downs == [touch + .milliseconds(150)])
    }

    @Test func anAnimationThatBeginsWithoutVisibleChangeStillRunsAndDoesNotSpin() throws {
        let start = Instant.seconds(5)
        let rig = try PipelineRig(content: try Content.testPattern(PixelSize(width: 320, height: 2000)), at: start,
                                  restore: (Point(x: 0, y: 500), 1))
        rig.settle(seconds: 1)
        // To where it already is: 0.3 s of animation with nothing new to draw.
        let t1 = start + .seconds(1)
        rig.pipeline.update(at: t1) { try? $0.setContentOffset(Point(x: 0, y: 500), animated: true, at: t1) }
        var outcome = rig.settle(seconds: 2)
        #expect(rig.scrollEvents.last == .didEndScrollingAnimation)
        #expect(outcome.timerWakeups <= 30) // paced at 60 Hz for 0.3 s, not spinning

        // Scroll to top: the first step shows no change yet; it must still run to the top.
        let frames = rig.frames.count
        let t3 = start + .seconds(3)
        rig.pipeline.update(at: t3) { _ = $0.scrollToTop(at: t3) }
        outcome = rig.settle(seconds: 2)
        #expect(rig.scrollEvents.last == .didScrollToTop && rig.view.contentOffset.y == 0)
        #expect(rig.frames.count > frames + 10 && rig.pipeline.nextDeadline == nil)
    }

    @Test func theModelIsSteppedOncePerFrameToItsPresentationTime() throws {
        let start = Instant.seconds(2)
        let rig = try PipelineRig(at: start)
        rig.pipeline.update(at: start) { try? $0.setContentOffset(Point(x: 0, y: 900), animated: true, at: start) }
        rig.settle(seconds: 2)
        // Each frame of the animation shows the model stepped to the vblank it is presented at.
        let period = rig.output.refreshPeriod
        #expect(rig.presented.count >= 18)
        for (frame, vblank) in zip(rig.frames.dropFirst(2), rig.presented.dropFirst(2)) where frame.contentOffset.y < 900 {
            let p = min(max((vblank - start).inSeconds / 0.3, 0), 1)
            let eased = p < 0.5 ? 4 * p * p * p : 1 - (2 - 2 * p) * (2 - 2 * p) * (2 - 2 * p) / 2
            #expect(abs(frame.contentOffset.y - 900 * eased) < 1e-6, "frame for \(vblank), period \(period)")
        }
    }
}

/// `scroll.animation_curve` and `scroll.animation_speed` (issue 21, part 5) in the assembled
/// pipeline: each frame of a programmatic scroll shows the model at its vblank, exactly on the
/// configured curve, and a reload (the daemon's `apply`: the new config onto the live view)
/// changes the next animation.
@Suite struct AnimationConfigTests {
    @Test func theCurveAndSpeedShapeTheFramesAndAReloadChangesThem() throws {
        let start = Instant.seconds(2)
        var configuration = Configuration()
        configuration.physics.animationCurve = .linear
        configuration.physics.animationSpeed = 1500
        let rig = try PipelineRig(configuration: configuration, at: start)
        rig.pipeline.update(at: start) { try? $0.setContentOffset(Point(x: 0, y: 900), animated: true, at: start) }
        rig.settle(seconds: 2)
        // 900 px at 1500 px/s: 0.6 s, evenly.
        #expect(rig.presented.count >= 36)
        var checked = 0
        for (frame, vblank) in zip(rig.frames, rig.presented) where vblank > start {
            // To the nanosecond of the vblank: at 1500 px/s, a 10⁻⁴ px.
            #expect(abs(frame.contentOffset.y - min(900, 1500 * (vblank - start).inSeconds)) < 1e-4, "frame for \(vblank)")
            checked += 1
        }
        #expect(checked >= 36 && rig.scrollEvents.last == .didEndScrollingAnimation)

        // Reloaded with the defaults: 0.3 s, eased in and out, whatever the distance.
        let next = Configuration()
        let back = start + .seconds(3)
        rig.pipeline.update(at: back) { v in try? next.apply(to: &v) }
        let shown = rig.frames.count
        rig.pipeline.update(at: back) { try? $0.setContentOffset(.zero, animated: true, at: back) }
        rig.settle(seconds: 2)
        let frames = Array(zip(rig.frames, rig.presented).dropFirst(shown)).filter { $0.1 > back }
        #expect(frames.count >= 17)
        for (frame, vblank) in frames {
            let p = min(max((vblank - back).inSeconds / 0.3, 0), 1)
            let eased = p < 0.5 ? 4 * p * p * p : 1 - (2 - 2 * p) * (2 - 2 * p) * (2 - 2 * p) / 2
            #expect(abs(frame.contentOffset.y - 900 * (1 - eased)) < 1e-4, "frame for \(vblank)")
        }
        #expect(rig.view.contentOffset == .zero)
    }
}

/// Attract mode on the virtual clock.
@Suite struct IdleResetTests {
    @Test func afterTheDelayTheViewAnimatesHomeThenNothingWakes() throws {
        var configuration = Configuration()
        configuration.minimumZoomScale = 1
        configuration.maximumZoomScale = 4
        configuration.idleResetSeconds = 30
        let start = Instant.seconds(10)
        let rig = try PipelineRig(content: try Content.testPattern(PixelSize(width: 1600, height: 4000)),
                                  configuration: configuration, at: start)
        // At home: no wake-up at all.
        rig.settle(seconds: 1)
        #expect(rig.pipeline.nextDeadline == nil)

        // An app moves and zooms the view at t = 2 s; nothing happens for 30 s after that.
        let t2 = start + .seconds(2)
        rig.pipeline.update(at: t2) { v in
            try? v.setZoomScale(2, animated: false, at: t2)
            try? v.setContentOffset(Point(x: 300, y: 900), animated: false, at: t2)
        }
        rig.settle(seconds: 1, expectRest: false)
        #expect(rig.pipeline.nextDeadline == start + .seconds(32))
        rig.settle(seconds: 28, expectRest: false)
        #expect(rig.notices.isEmpty && rig.view.contentOffset == Point(x: 300, y: 900))

        // Then it goes home, animated, once; at home nothing is armed any more.
        rig.settle(seconds: 9)
        #expect(rig.notices == [.attractMode(seconds: 30)])
        #expect(rig.view.contentOffset == Point(x: 0, y: 0) && rig.view.zoomScale == 1)
        #expect(rig.pipeline.nextDeadline == nil)
    }

    @Test func aTouchPostponesTheReset() throws {
        var configuration = Configuration()
        configuration.idleResetSeconds = 5
        let start = Instant.seconds(10)
        let rig = try PipelineRig(content: try Content.testPattern(PixelSize(width: 320, height: 4000)),
                                  configuration: configuration, at: start, restore: (Point(x: 0, y: 1000), 1))
        let touch = start + .seconds(4)
        let finger = ContactID(1)
        rig.settle([
            TouchFrame(time: touch, contacts: [Contact(id: finger, position: Point(x: 10, y: 150))], began: [finger]),
            TouchFrame(time: touch + .milliseconds(90), contacts: [], ended: [Contact(id: finger, position: Point(x: 10, y: 150))]),
        ], seconds: 9, expectRest: false)
        #expect(rig.view.contentOffset.y == 1000)
        #expect(rig.pipeline.nextDeadline == touch + .milliseconds(90) + .seconds(5))
        rig.settle(seconds: 3)
        #expect(rig.view.contentOffset.y == 0)
    }
}
