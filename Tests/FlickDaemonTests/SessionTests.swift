import FlickCore
import Testing
@testable import FlickDaemon

/// The session's frame pacing on a virtual clock with a fake display that presents each
/// submitted frame at the next 60 Hz vblank.
@Suite struct SessionTests {
    final class FakeDisplay: FrameTarget, PresentationSource {
        let viewSize = Size(width: 800, height: 480)
        let refreshPeriod: Duration = .nanoseconds(16_666_667)
        var submitted: [(Instant, Point, Double)] = []
        var presentAt: Instant?

        func submit(_ view: ScrollView, indicatorOpacity: Double, at t: Instant, now: Instant) throws -> Bool {
            submitted.append((t, view.contentOffset, indicatorOpacity))
            presentAt = t
            return true
        }

        var fileDescriptor: Int32? { nil }
        var nextDeadline: Instant? { presentAt }
        func dispatch(now: Instant) -> [Instant] {
            guard let p = presentAt, p <= now else { return [] }
            presentAt = nil
            return [p]
        }
    }

    final class ScriptedTouches: TouchSource {
        var frames: ArraySlice<TouchFrame>
        init(_ frames: [TouchFrame]) { self.frames = frames[...] }
        var name: String { "script" }
        var fileDescriptors: [Int32] { [] }
        var nextDeadline: Instant? { frames.first?.time }
        var isFinished: Bool { frames.isEmpty }
        func dispatch(now: Instant) -> [TouchFrame] {
            var out: [TouchFrame] = []
            while let f = frames.first, f.time <= now { out.append(f); frames = frames.dropFirst() }
            return out
        }
    }

    /// Runs the session on virtual time until `end`; returns the timer wake-ups.
    func drive(_ session: Session, _ display: FakeDisplay, frames: [TouchFrame], until end: Instant) -> Int {
        let outcome = VirtualRunner.run(session, input: ScriptedTouches(frames), display: display, limit: end)
        #expect(!outcome.hitLimit)
        return outcome.timerWakeups
    }

    func flickFrames(from start: Instant) -> [TouchFrame] {
        var frames = [TouchFrame(time: start, contacts: [Contact(id: ContactID(1), position: Point(x: 400, y: 400))], began: [ContactID(1)])]
        for i in 1...10 {
            frames.append(TouchFrame(time: start + .milliseconds(8 * Int64(i)),
                                     contacts: [Contact(id: ContactID(1), position: Point(x: 400, y: 400 - 15 * Double(i)))]))
        }
        frames.append(TouchFrame(time: start + .milliseconds(88), contacts: [],
                                 ended: [Contact(id: ContactID(1), position: Point(x: 400, y: 250))]))
        return frames
    }

    @Test func aStillSceneStopsProducingFrames() throws {
        let display = FakeDisplay()
        let view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 800, height: 20_000))
        let start = Instant.seconds(50)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        var published: [GestureOutput] = []
        session.publish = { output, _ in published.append(output) }
        session.start()
        #expect(display.submitted.count == 1)
        _ = drive(session, display, frames: flickFrames(from: start + .seconds(1)), until: start + .seconds(30))
        let frames = display.submitted.count
        #expect(frames > 100) // the flick animated frame by frame
        #expect(published.contains { $0.kind == .scroll(.didEndDecelerating) })
        // At rest, indicators faded: the last frame has them at 0, and nothing else is asked for.
        #expect(display.submitted.last?.2 == 0)
        #expect(session.nextWakeup == nil && !session.framePending)
        let wakeups = drive(session, display, frames: [], until: start + .seconds(60))
        #expect(wakeups == 0 && display.submitted.count == frames)
    }

    @Test func aFlashHoldsThenFadesWithoutSpinning() throws {
        let display = FakeDisplay()
        let view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 800, height: 2000))
        let start = Instant.seconds(5)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        session.start()
        _ = drive(session, display, frames: [], until: start + .seconds(1))
        session.update(at: start + .seconds(1)) { $0.flashScrollIndicators(at: start + .seconds(1)) }
        let wakeups = drive(session, display, frames: [], until: start + .seconds(5))
        let opacities = display.submitted.map(\.2)
        #expect(opacities.contains(1) && opacities.last == 0)
        #expect(opacities.count < 40) // a flash, a hold and ~0.3 s of fade at 60 Hz
        #expect(wakeups <= 3 && session.nextWakeup == nil)
    }

    @Test func eachTapIsPublishedOnceWithTheDelayTimer() throws {
        let display = FakeDisplay()
        let view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 800, height: 2000))
        let start = Instant.seconds(5)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        var taps = 0, downs: [Instant] = []
        session.publish = { output, _ in
            if case .content(.tap) = output.kind { taps += 1 }
            if case .content(.down) = output.kind { downs.append(output.time) }
        }
        session.start()
        let touch = start + .seconds(1)
        let frames = [
            TouchFrame(time: touch, contacts: [Contact(id: ContactID(3), position: Point(x: 10, y: 10))], began: [ContactID(3)]),
            TouchFrame(time: touch + .milliseconds(200), contacts: [], ended: [Contact(id: ContactID(3), position: Point(x: 10, y: 10))]),
        ]
        _ = drive(session, display, frames: frames, until: start + .seconds(3))
        #expect(taps == 1 && downs == [touch + .milliseconds(150)])
    }

    @Test func anAnimationThatBeginsWithoutVisibleChangeStillRunsAndDoesNotSpin() throws {
        let display = FakeDisplay()
        var view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 800, height: 2000))
        try view.setContentOffset(Point(x: 0, y: 500), animated: false, at: .zero)
        let start = Instant.seconds(5)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        var published: [ScrollEvent] = []
        session.publish = { output, _ in if case .scroll(let e) = output.kind { published.append(e) } }
        session.start()
        _ = drive(session, display, frames: [], until: start + .seconds(1))

        // To where it already is: 0.3 s of animation with nothing new to draw.
        session.update(at: start + .seconds(1)) { try? $0.setContentOffset(Point(x: 0, y: 500), animated: true, at: start + .seconds(1)) }
        var wakeups = drive(session, display, frames: [], until: start + .seconds(3))
        #expect(published.last == .didEndScrollingAnimation)
        #expect(wakeups <= 30) // paced at 60 Hz for 0.3 s, not spinning

        // Scroll to top: the first step shows no change yet; it must still run to the top.
        let frames = display.submitted.count
        session.update(at: start + .seconds(3)) { _ = $0.scrollToTop(at: start + .seconds(3)) }
        wakeups = drive(session, display, frames: [], until: start + .seconds(5))
        #expect(published.last == .didScrollToTop && session.recognizer.scrollView.contentOffset.y == 0)
        #expect(display.submitted.count > frames + 10 && session.nextWakeup == nil)
    }
}

/// Attract mode on the virtual clock.
@Suite struct IdleResetTests {
    /// Runs the session on virtual time up to `end` (a reset still pending then is expected).
    func run(_ session: Session, _ display: SessionTests.FakeDisplay, frames: [TouchFrame], until end: Instant) {
        _ = VirtualRunner.run(session, input: SessionTests.ScriptedTouches(frames), display: display, limit: end)
    }

    @Test func afterTheDelayTheViewAnimatesHomeThenNothingWakes() throws {
        let display = SessionTests.FakeDisplay()
        var view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 1600, height: 4000))
        try view.setZoomScaleLimits(minimum: 1, maximum: 4)
        let start = Instant.seconds(10)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        let home = IdleReset.home(of: view)
        session.idleReset = IdleReset(delay: .seconds(30), offset: home.offset, zoomScale: home.zoomScale)
        var resets = 0
        session.didIdleReset = { resets += 1 }
        session.start()
        // At home: no wake-up at all.
        run(session, display, frames: [], until: start + .seconds(1))
        #expect(session.nextWakeup == nil)

        // An app moves and zooms the view at t = 2 s; nothing happens for 30 s after that.
        session.update(at: start + .seconds(2)) { v in
            try? v.setZoomScale(2, animated: false, at: start + .seconds(2))
            try? v.setContentOffset(Point(x: 300, y: 900), animated: false, at: start + .seconds(2))
        }
        #expect(session.nextWakeup == start + .seconds(32))
        run(session, display, frames: [], until: start + .seconds(31))
        #expect(resets == 0 && session.recognizer.scrollView.contentOffset == Point(x: 300, y: 900))

        // Then it goes home, animated, once; at home nothing is armed any more.
        run(session, display, frames: [], until: start + .seconds(40))
        #expect(resets == 1)
        #expect(session.recognizer.scrollView.contentOffset == Point(x: 0, y: 0) && session.recognizer.scrollView.zoomScale == 1)
        #expect(session.nextWakeup == nil)
    }

    @Test func aTouchPostponesTheReset() throws {
        let display = SessionTests.FakeDisplay()
        var view = try ScrollView(boundsSize: display.viewSize, contentSize: Size(width: 800, height: 4000))
        try view.setContentOffset(Point(x: 0, y: 1000), animated: false, at: .zero)
        let start = Instant.seconds(10)
        let session = Session(recognizer: GestureRecognizer(scrollView: view), target: display, at: start)
        session.idleReset = IdleReset(delay: .seconds(5), offset: .zero, zoomScale: 1)
        session.start()
        let touch = start + .seconds(4)
        let frames = [
            TouchFrame(time: touch, contacts: [Contact(id: ContactID(1), position: Point(x: 10, y: 300))], began: [ContactID(1)]),
            TouchFrame(time: touch + .milliseconds(90), contacts: [], ended: [Contact(id: ContactID(1), position: Point(x: 10, y: 300))]),
        ]
        run(session, display, frames: frames, until: start + .seconds(9))
        #expect(session.recognizer.scrollView.contentOffset.y == 1000)
        #expect(session.nextWakeup == touch + .milliseconds(90) + .seconds(5))
        run(session, display, frames: [], until: start + .seconds(12))
        #expect(session.recognizer.scrollView.contentOffset.y == 0)
    }
}
