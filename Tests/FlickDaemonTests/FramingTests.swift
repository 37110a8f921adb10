import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Testing

/// What the public sees of content that is not the panel's shape: fitted, filled and centred,
/// from the first frame, through pinches, and after attract mode — on the virtual clock, read
/// back from the headless panel's pixels.
@Suite struct FramingTests {
    static let panel = PixelSize(width: 1920, height: 1080)

    /// A 20000 × 20000 map (tiled: never decoded whole) framed by `configure`.
    func mapRig(_ configure: (inout Configuration) -> Void = { _ in }) throws -> PipelineRig {
        var configuration = Configuration()
        configuration.minimumZoomScale = .fit
        configuration.startZoomScale = .fit
        configure(&configuration)
        return try PipelineRig(size: Self.panel, content: try Content.testPattern(PixelSize(width: 20000, height: 20000)),
                               configuration: configuration, at: .seconds(1))
    }

    /// The columns of row `y` of the panel that are not the background.
    func drawnColumns(_ rig: PipelineRig, row y: Int) -> [Int] {
        let front = rig.output.headless.frontBuffer
        return (0..<Self.panel.width).filter { front[$0, y] != Color.black.pixel }
    }

    @Test func aMapStartingAtFitShowsWholeAndCentredOnTheFirstFrame() throws {
        let rig = try mapRig()
        rig.settle(seconds: 1)
        let first = try #require(rig.frames.first)
        #expect(first.zoomScale == 0.054 && first.contentOffset == Point(x: -420, y: 0))
        // 20000 × 0.054 = 1080 px square in the middle: background 0…419 and 1500…1919 on every
        // row sampled, and the map reaching both of its edges.
        for y in [0, 300, 540, 1079] {
            let drawn = drawnColumns(rig, row: y)
            #expect(drawn.first ?? 0 >= 420 && drawn.last ?? 1919 <= 1499, "row \(y): \(drawn.first ?? -1)…\(drawn.last ?? -1)")
        }
        let middle = drawnColumns(rig, row: 540)
        #expect(middle.first == 420 && middle.last == 1499, "\(middle.first ?? -1)…\(middle.last ?? -1)")
    }

    @Test func aNarrowMenuIsCentredOnAWidePanel() throws {
        let white = try #require(PixelBuffer(width: 1080, height: 4000))
        white.fill(Color.white.pixel)
        let rig = try PipelineRig(size: Self.panel, content: Content(image: white), at: .seconds(1))
        rig.settle(seconds: 1)
        #expect(rig.view.contentOffset == Point(x: -420, y: 0) && rig.view.zoomScale == 1)
        for y in [0, 540, 1079] {
            let drawn = drawnColumns(rig, row: y)
            #expect(drawn.first == 420 && drawn.last == 1499 && drawn.count == 1080, "row \(y)")
        }
        // Switched off, it is pinned to the left as UIKit pins it.
        var pinned = Configuration()
        pinned.centerContent = false
        let left = try PipelineRig(size: Self.panel, content: Content(image: white), configuration: pinned, at: .seconds(1))
        left.settle(seconds: 1)
        #expect(drawnColumns(left, row: 540).first == 0 && drawnColumns(left, row: 540).last == 1079)
    }

    @Test func aPinchBelowFitRubberBandsAndReturnsToFitCentredOnEveryFrame() throws {
        let rig = try mapRig()
        rig.settle(seconds: 1)
        let a = ContactID(1), b = ContactID(2)
        let start = rig.pipeline.now + .milliseconds(100)
        func fingers(_ gap: Double, centre: Point) -> [Contact] {
            [Contact(id: a, position: Point(x: centre.x - gap / 2, y: centre.y)),
             Contact(id: b, position: Point(x: centre.x + gap / 2, y: centre.y))]
        }
        var frames = [TouchFrame(time: start, contacts: fingers(700, centre: Point(x: 1200, y: 500)), began: [a, b])]
        for i in 1...30 {
            // Closing to 250 px while the centroid drifts left and down.
            let gap = 700 - 15 * Double(i), centre = Point(x: 1200 - 4 * Double(i), y: 500 + 3 * Double(i))
            frames.append(TouchFrame(time: start + .milliseconds(8 * Int64(i)), contacts: fingers(gap, centre: centre)))
        }
        let last = fingers(250, centre: Point(x: 1080, y: 590))
        frames.append(TouchFrame(time: start + .milliseconds(8 * 31), contacts: [], ended: last))
        let before = rig.frames.count
        rig.settle(frames, seconds: 5)
        let shown = rig.frames[before...]
        #expect(shown.contains { $0.zoomScale < 0.054 * 0.9 }, "the pinch went below fit")
        for frame in shown {
            let side = 20000 * frame.zoomScale
            #expect(abs(frame.contentOffset.x + (1920 - side) / 2) < 1e-6, "centred across at zoom \(frame.zoomScale)")
            #expect(abs(frame.contentOffset.y + (1080 - side) / 2) < 1e-6 || side >= 1080, "centred down at zoom \(frame.zoomScale)")
        }
        #expect(rig.view.zoomScale == 0.054 && rig.view.contentOffset == Point(x: -420, y: 0))
    }

    @Test func attractModeReturnsToTheHomeView() throws {
        let rig = try mapRig { $0.idleResetSeconds = 30 }
        rig.settle(seconds: 1)
        #expect(rig.pipeline.nextDeadline == nil, "at home: nothing armed")
        let t = rig.pipeline.now
        rig.pipeline.update(at: t) { v in try? v.setZoomScale(1, contentOffset: Point(x: 9000, y: 12000), animated: false, at: t) }
        rig.settle(seconds: 40, expectRest: false)
        #expect(rig.notices == [.attractMode(seconds: 30)])
        #expect(rig.view.zoomScale == 0.054 && rig.view.contentOffset == Point(x: -420, y: 0))
        #expect(rig.pipeline.nextDeadline == nil)
    }

    @Test func aHomeOffsetAtTheCentreOfAMapAtZoomOne() throws {
        let rig = try mapRig {
            $0.startZoomScale = 1
            $0.homeOffset = .center
        }
        rig.settle(seconds: 1)
        #expect(rig.view.zoomScale == 1 && rig.view.contentOffset == Point(x: 10000 - 960, y: 10000 - 540))
    }

    @Test func aDoubleTapZoomsFromTheStartScaleAndBackToIt() throws {
        let rig = try mapRig { $0.doubleTapScale = 0.5 }
        rig.settle(seconds: 1)
        func doubleTap(at t: Instant) -> [TouchFrame] {
            let f = ContactID(7), p = Point(x: 960, y: 540)
            return [TouchFrame(time: t, contacts: [Contact(id: f, position: p)], began: [f]),
                    TouchFrame(time: t + .milliseconds(50), contacts: [], ended: [Contact(id: f, position: p)]),
                    TouchFrame(time: t + .milliseconds(150), contacts: [Contact(id: f, position: p)], began: [f]),
                    TouchFrame(time: t + .milliseconds(200), contacts: [], ended: [Contact(id: f, position: p)])]
        }
        rig.settle(doubleTap(at: rig.pipeline.now + .milliseconds(100)), seconds: 5)
        #expect(rig.view.zoomScale == 0.5)
        rig.settle(doubleTap(at: rig.pipeline.now + .seconds(1)), seconds: 5)
        #expect(rig.view.zoomScale == 0.054 && rig.view.contentOffset == Point(x: -420, y: 0))
    }
}
