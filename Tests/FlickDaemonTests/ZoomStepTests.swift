import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// A map far bigger than the panel set up with `start_scale = "fit"` alone: it starts whole and
/// centred, can be zoomed out to there and no further, and a double tap steps in from fit about
/// the finger and comes back to fit (the pipeline as the daemon builds it, on the virtual clock).
@Suite struct ZoomStepTests {
    static let panel = PixelSize(width: 800, height: 480)
    /// 4000 × 4000 on 800 × 480: 480 / 4000, a 480 px square with 160 px either side.
    static let fit = 0.12
    static let home = Point(x: -160, y: 0)

    func mapRig(_ configure: (inout Configuration) -> Void = { _ in }) throws -> PipelineRig {
        var configuration = Configuration()
        configuration.startZoomScale = .fit
        configure(&configuration)
        let rig = try PipelineRig(size: Self.panel, content: try Content.testPattern(PixelSize(width: 4000, height: 4000)),
                                  configuration: configuration, at: .seconds(1))
        rig.settle(seconds: 1)
        return rig
    }

    /// Two taps 100 ms apart at `p`, from 100 ms after now.
    func doubleTap(_ rig: PipelineRig, at p: Point) -> [TouchFrame] {
        let t = rig.pipeline.now + .milliseconds(100), f = ContactID(7)
        return [TouchFrame(time: t, contacts: [Contact(id: f, position: p)], began: [f]),
                TouchFrame(time: t + .milliseconds(50), contacts: [], ended: [Contact(id: f, position: p)]),
                TouchFrame(time: t + .milliseconds(150), contacts: [Contact(id: f, position: p)], began: [f]),
                TouchFrame(time: t + .milliseconds(200), contacts: [], ended: [Contact(id: f, position: p)])]
    }

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

    @Test func fitAloneStartsTheMapWholeAndIsTheMinimum() throws {
        let rig = try mapRig()
        #expect(rig.view.zoomScale == Self.fit && rig.view.contentOffset == Self.home)
        #expect(rig.view.minimumZoomScale == Self.fit && rig.view.maximumZoomScale == 4)
        // A minimum the file sets is kept: the start is held to it, the top-left corner at zoom 1.
        let held = try mapRig { $0.minimumZoomScale = 1 }
        #expect(held.view.zoomScale == 1 && held.view.contentOffset == Point(x: 0, y: 0) && held.view.minimumZoomScale == 1)
    }

    @Test func aDoubleTapFromFitStepsInAboutTheFingerAndASecondComesBackToFit() throws {
        let rig = try mapRig()
        let finger = Point(x: 400, y: 240)
        let under = rig.pipeline.recognizer.contentPoint(finger)
        #expect(under == Point(x: 2000, y: 2000))
        let before = rig.frames.count
        rig.settle(doubleTap(rig, at: finger), seconds: 5)
        let zooms = rig.frames[before...].map(\.zoomScale)
        // "2x", the default: no frame past 4× fit (an absolute 2 would have gone 16× in 0.3 s).
        #expect(zooms.allSatisfy { $0 <= 4 * Self.fit + 1e-12 }, "\(zooms.max() ?? 0)")
        #expect(close(rig.view.zoomScale, 2 * Self.fit), "\(rig.view.zoomScale)")
        #expect(rig.pipeline.recognizer.contentPoint(finger).distance(to: under) < 0.5)
        rig.settle(doubleTap(rig, at: finger), seconds: 5)
        #expect(rig.view.zoomScale == Self.fit && rig.view.contentOffset == Self.home)
    }

    @Test func aZoomInDoubleTapStepsEveryTimeUpToTheMaximum() throws {
        let rig = try mapRig {
            $0.gestures.doubleTapAction = .zoomIn(scale: 2)
            $0.doubleTapScale = .factor(2.5)
            $0.maximumZoomScale = 0.5
        }
        rig.settle(doubleTap(rig, at: Point(x: 400, y: 240)), seconds: 5)
        #expect(close(rig.view.zoomScale, 2.5 * Self.fit), "\(rig.view.zoomScale)")
        rig.settle(doubleTap(rig, at: Point(x: 400, y: 240)), seconds: 5)
        #expect(rig.view.zoomScale == 0.5, "0.75 capped at maximum_scale")
    }

    @Test func aScaleStillZoomsToThatScale() throws {
        let rig = try mapRig { $0.doubleTapScale = 2 }
        rig.settle(doubleTap(rig, at: Point(x: 400, y: 240)), seconds: 5)
        #expect(rig.view.zoomScale == 2)
        rig.settle(doubleTap(rig, at: Point(x: 400, y: 240)), seconds: 5)
        #expect(rig.view.zoomScale == Self.fit && rig.view.contentOffset == Self.home)
    }
}
