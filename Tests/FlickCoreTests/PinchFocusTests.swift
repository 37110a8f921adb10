import RealModule
import Testing
@testable import FlickCore

/// Issue 21, part 2: a pinch is also a pan. Whatever path two fingers take — moving together
/// while zooming, zooming in and out, turning about each other, after a one-finger drag took a
/// directional lock, past the zoom limits — the content point that began under their centroid
/// stays under it (within 0.5 screen px), as in UIKit.
@Suite struct PinchFocusTests {
    /// Two fingers at `centre`, `radius` from it on either side, turned `angle` radians.
    struct Pose {
        var centre: Point
        var radius: Double
        var angle: Double = 0

        var fingers: (Point, Point) {
            let dx = radius * Double.cos(angle), dy = radius * Double.sin(angle)
            return (Point(x: centre.x - dx, y: centre.y - dy), Point(x: centre.x + dx, y: centre.y + dy))
        }
    }

    /// A named path: where the fingers are at each of `steps` reports (8 ms apart), given the
    /// fraction `f` of the way (0 at the down, 1 at the last move).
    struct Path: CustomStringConvertible {
        var name: String
        var steps = 40
        var pose: @Sendable (Double) -> Pose
        var description: String { name }
    }

    static let paths: [Path] = [
        // The issue's case: 300 × 200 px while zooming 1 → 3.
        Path(name: "moving 300×200 while zooming 1→3") { f in
            Pose(centre: Point(x: 250 + 300 * f, y: 140 + 200 * f), radius: 50 + 100 * f)
        },
        Path(name: "zooming in and back out along a curve") { f in
            let s = Double.sin(f * Double.pi)
            return Pose(centre: Point(x: 400 + 200 * Double.sin(2 * Double.pi * f), y: 240 - 120 * f), radius: 60 + 120 * s)
        },
        Path(name: "turning half a turn while zooming 1→2 and moving left") { f in
            Pose(centre: Point(x: 500 - 250 * f, y: 200 + 60 * f), radius: 80 + 80 * f, angle: Double.pi * f)
        },
        Path(name: "zooming out 1→0.6 while moving up and left") { f in
            Pose(centre: Point(x: 600 - 200 * f, y: 380 - 220 * f), radius: 200 - 80 * f, angle: 0.3)
        },
        Path(name: "quick and jagged: 12 reports, alternating sideways") { f in
            let zig = (f * 12).rounded().truncatingRemainder(dividingBy: 2) == 0 ? 1.0 : -1.0
            return Pose(centre: Point(x: 300 + 150 * f + 20 * zig, y: 240 + 40 * zig), radius: 70 + 90 * f, angle: 0.8 * f)
        },
    ]

    /// Content and an offset that leave every path above inside the bounds and the zoom limits,
    /// where the content must follow the fingers exactly.
    static func harness(lock: Bool = false, maximumZoom: Double = 5) -> GestureHarness {
        GestureHarness(content: Size(width: 2400, height: 1600), scroll: {
            try $0.setZoomScaleLimits(minimum: 0.5, maximum: maximumZoom)
            try $0.setContentOffset(Point(x: 700, y: 500), animated: false, at: .zero)
            $0.isDirectionalLockEnabled = lock
        })
    }

    /// Runs `path` as a pinch; the worst distance, in screen px, between the centroid and the
    /// content point that began under it, whether the view stayed in bounds, and the view at the
    /// last move (before the lift, which may fling).
    static func worstSlip(_ path: Path, on h: inout GestureHarness,
                          startFinger: Bool = false) -> (slip: Double, inBounds: Bool, last: ScrollView) {
        var pose = path.pose(0)
        var (a, b) = pose.fingers
        if startFinger {
            // One finger drags along x first, long enough to take a directional lock.
            h.down(1, a.x + 60, a.y); h.send()
            for i in 1...6 { h.advance(ms: 8); h.move(1, a.x + 60 - 10 * Double(i), a.y); h.send() }
            h.advance(ms: 8); h.move(1, a.x, a.y); h.down(2, b.x, b.y); h.send()
        } else {
            h.down(1, a.x, a.y); h.down(2, b.x, b.y); h.send()
        }
        #expect(h.view.isZooming, "\(path): the pinch did not begin")
        let anchor = h.recognizer.contentPoint(pose.centre)
        var worst = 0.0, inBounds = true
        for i in 1...path.steps {
            pose = path.pose(Double(i) / Double(path.steps))
            (a, b) = pose.fingers
            h.advance(ms: 8); h.move(1, a.x, a.y); h.move(2, b.x, b.y); h.send()
            worst = max(worst, h.recognizer.contentPoint(pose.centre).distance(to: anchor) * h.view.zoomScale)
            inBounds = inBounds && h.view.isInBounds
        }
        let last = h.view
        h.advance(ms: 8); h.up(1); h.up(2); h.send()
        h.settle()
        #expect(grammarViolation(GestureHarness.scroll(h.take())) == nil, "\(path)")
        return (worst, inBounds, last)
    }

    @Test(arguments: paths) func theContentUnderTheCentroidStaysUnderIt(_ path: Path) {
        var h = Self.harness()
        let run = Self.worstSlip(path, on: &h)
        #expect(run.inBounds, "\(path) left the bounds: the test would measure the rubber band")
        #expect(run.slip <= 0.5, "\(path): the content slipped \(run.slip) px from under the fingers")
    }

    @Test func theIssuesPathEndsAtTripleZoomWithTheContentUnderTheFingers() {
        var h = Self.harness()
        let run = Self.worstSlip(Self.paths[0], on: &h)
        #expect(abs(run.last.zoomScale - 3) < 1e-9)
        #expect(run.slip <= 0.5)
        // Where it ends: the content point (950, 640) under the centroid (550, 340) at zoom 3.
        #expect(run.last.contentOffset.distance(to: Point(x: 950 * 3 - 550, y: 640 * 3 - 340)) < 1e-6)
    }

    @Test(arguments: paths) func aDirectionalLockTakenByTheFirstFingerDoesNotHoldThePinch(_ path: Path) {
        var h = Self.harness(lock: true)
        let run = Self.worstSlip(path, on: &h, startFinger: true)
        #expect(run.inBounds)
        #expect(run.slip <= 0.5, "\(path): the content slipped \(run.slip) px from under the fingers")
    }

    /// Past the maximum the scale rubber-bands, and the content still scales about the fingers:
    /// the point under them stays under them at the banded scale, and bounces back after.
    @Test func pastTheMaximumTheBandedScaleStillKeepsTheContentUnderTheFingers() {
        var h = Self.harness(maximumZoom: 2)
        let path = Path(name: "zooming 1→4 (max 2) while moving") { f in
            Pose(centre: Point(x: 250 + 200 * f, y: 140 + 100 * f), radius: 50 + 150 * f)
        }
        let run = Self.worstSlip(path, on: &h)
        #expect(run.inBounds)
        #expect(run.slip <= 0.5, "the content slipped \(run.slip) px from under the fingers")
        #expect(h.view.zoomScale == 2 && h.view.isInBounds)
    }
}
