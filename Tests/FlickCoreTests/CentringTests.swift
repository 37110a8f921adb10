import FlickCore
import Testing

/// Content smaller than the viewport is centred in that axis (`centersContent`), at rest and
/// on every step of a pinch, its bounce and an animation; and the framing settings (fit, fill,
/// width, home view) worked out from the content and the viewport.
@Suite struct CentringTests {
    /// A 1080 × 4000 menu on a 1920 × 1080 panel.
    func menu(centred: Bool = true) throws -> ScrollView {
        var v = try ScrollView(boundsSize: Size(width: 1920, height: 1080), contentSize: Size(width: 1080, height: 4000))
        v.centersContent = centred
        try v.setZoomScaleLimits(minimum: 0.1, maximum: 4)
        return v
    }

    @Test func aNarrowContentIsCentredAndItsOffsetBoundsAreThatOffset() throws {
        let v = try menu()
        #expect(v.minimumOffset(.horizontal) == -420 && v.maximumOffset(.horizontal) == -420)
        #expect(v.minimumOffset(.vertical) == 0 && v.maximumOffset(.vertical) == 4000 - 1080)
        #expect(v.clampedOffset(Point(x: 0, y: 50)) == Point(x: -420, y: 50))
        let pinned = try menu(centred: false)
        #expect(pinned.minimumOffset(.horizontal) == 0 && pinned.maximumOffset(.horizontal) == 0)
    }

    @Test func theInsetsAreCentredWithTheContent() throws {
        var v = try menu()
        try v.setContentInset(EdgeInsets(top: 0, left: 100, bottom: 0, right: 20))
        // Room: 1920 − 1080 − 120 = 720; half each side, the left inset's 100 inside it.
        #expect(v.minimumOffset(.horizontal) == -100 - 360 && v.maximumOffset(.horizontal) == -460)
    }

    @Test func aSetOffsetAndADragKeepTheCentredAxisCentred() throws {
        var v = try menu()
        try v.setContentOffset(Point(x: 0, y: 200), animated: false, at: .zero)
        #expect(v.contentOffset == Point(x: -420, y: 200))
        v.touchDown(at: .milliseconds(10))
        v.drag(by: Vector(dx: -300, dy: -100), at: .milliseconds(20))
        #expect(v.contentOffset.x == -420)
    }

    @Test func withAlwaysBounceTheCentredAxisRubberBandsAndSpringsBackToTheCentre() throws {
        var v = try menu()
        v.alwaysBounceHorizontal = true
        try v.setContentOffset(Point(x: -420, y: 0), animated: false, at: .zero)
        v.touchDown(at: .milliseconds(10))
        v.drag(by: Vector(dx: -200, dy: 0), at: .milliseconds(20))
        #expect(v.contentOffset.x > -420)
        v.release(velocity: .zero, at: .milliseconds(30))
        v.advance(to: .seconds(3))
        #expect(!v.isAnimating && v.contentOffset.x == -420)
    }

    /// A 20000² map on 1920 × 1080, pinched below its fitted scale: centred in both axes
    /// wherever it is smaller than the panel, on every step of the pinch and of its bounce.
    @Test func aPinchBelowFitIsCentredOnEveryStepAndBouncesBackToFit() throws {
        var v = try ScrollView(boundsSize: Size(width: 1920, height: 1080), contentSize: Size(width: 20000, height: 20000))
        v.centersContent = true
        let fit = ScaleSetting.fit.resolved(content: v.unscaledContentSize, viewport: v.boundsSize)
        #expect(fit == 1080.0 / 20000)
        try v.setZoomScaleLimits(minimum: fit, maximum: 4)
        try v.setZoomScale(fit, contentOffset: .zero, animated: false, at: .zero)
        #expect(v.contentOffset == Point(x: -(1920 - 1080) / 2, y: 0))
        _ = v.takeReports()

        func checkCentred(_ view: ScrollView, _ step: String) {
            for axis in Axis.allCases {
                let room = view.boundsSize[axis] - view.contentSize[axis]
                if room > 0 { #expect(abs(view.contentOffset[axis] + room / 2) < 1e-9, "\(step) \(axis)") }
            }
        }
        var t = Instant.milliseconds(100)
        v.touchDown(at: t)
        v.beginZooming(focus: Point(x: 1500, y: 300), at: t)
        var centroid = Point(x: 1500, y: 300)
        for _ in 0..<20 {
            t = t + .milliseconds(8)
            // Fingers closing while their centroid wanders: the pan must not move a centred axis.
            let next = Point(x: centroid.x - 7, y: centroid.y + 5)
            v.pinch(by: 0.95, from: centroid, to: next, at: t)
            centroid = next
            checkCentred(v, "pinch at \(t)")
        }
        #expect(v.zoomScale < fit)
        for report in v.takeReports() {
            if case let .event(_, _, state) = report {
                let room = 1920 - 20000 * state.zoomScale
                #expect(abs(state.contentOffset.x + room / 2) < 1e-9, "a message's state is centred")
            }
        }
        v.endZooming(at: t)
        v.release(velocity: .zero, at: t)
        #expect(v.isZoomBouncing)
        while v.isAnimating {
            t = t + .milliseconds(16)
            v.advance(to: t)
            checkCentred(v, "bounce at \(t)")
        }
        #expect(v.zoomScale == fit && v.contentOffset == Point(x: -420, y: 0))
    }

    /// With `alwaysBounce…` the fingers of a pinch hold that axis as a drag does (it follows
    /// their pan, rubber-banded), and the bounce after the lift brings it back to the centre.
    @Test func withAlwaysBounceAPinchPansTheCentredAxisAndItsBounceCentresIt() throws {
        var v = try ScrollView(boundsSize: Size(width: 1920, height: 1080), contentSize: Size(width: 20000, height: 20000))
        v.centersContent = true
        v.alwaysBounceHorizontal = true
        try v.setZoomScaleLimits(minimum: 0.054, maximum: 4)
        try v.setZoomScale(0.054, contentOffset: .zero, animated: false, at: .zero)
        var t = Instant.milliseconds(100), centroid = Point(x: 900, y: 500)
        v.touchDown(at: t)
        v.beginZooming(focus: centroid, at: t)
        var previous = v.contentOffset.x
        for _ in 0..<10 {
            t = t + .milliseconds(8)
            let next = Point(x: centroid.x + 10, y: centroid.y)
            v.pinch(by: 1, from: centroid, to: next, at: t)
            centroid = next
            // The content follows the fingers right: the offset only falls, never snaps back.
            #expect(v.contentOffset.x < previous)
            previous = v.contentOffset.x
        }
        v.endZooming(at: t)
        v.release(velocity: .zero, at: t)
        v.advance(to: t + .seconds(3))
        #expect(!v.isAnimating && v.zoomScale == 0.054 && v.contentOffset.x == -420)
    }

    @Test func anAnimatedZoomOutIsCentredOnEveryFrame() throws {
        var v = try menu()
        try v.setZoomScale(2, contentOffset: Point(x: 500, y: 2000), animated: false, at: .zero)
        try v.setZoomScale(0.5, animated: true, at: .milliseconds(10))
        var t = Instant.milliseconds(10)
        while v.isAnimating {
            t = t + .milliseconds(16)
            v.advance(to: t)
            if v.contentSize.width < 1920 { #expect(abs(v.contentOffset.x + (1920 - v.contentSize.width) / 2) < 1e-9) }
        }
        #expect(v.zoomScale == 0.5 && v.contentOffset.x == -(1920 - 540) / 2)
    }

    @Test func fitFillAndWidthFollowTheContentTheViewportAndTheInsets() {
        let map = Size(width: 20000, height: 20000), tall = Size(width: 1080, height: 4000)
        let panel = Size(width: 1920, height: 1080)
        #expect(ScaleSetting.fit.resolved(content: map, viewport: panel) == 0.054)
        #expect(ScaleSetting.fill.resolved(content: map, viewport: panel) == 0.096)
        #expect(ScaleSetting.width.resolved(content: tall, viewport: panel) == 1920.0 / 1080)
        #expect(ScaleSetting.fit.resolved(content: tall, viewport: panel, inset: EdgeInsets(top: 40, left: 0, bottom: 40, right: 0))
                == 1000.0 / 4000)
        #expect(ScaleSetting.scale(3).resolved(content: map, viewport: panel) == 3)
        #expect(ScaleSetting.fit.resolved(content: .zero, viewport: panel) == 1)
        // Within the model's range, whatever the content.
        #expect(ScaleSetting.fit.resolved(content: Size(width: 1e9, height: 1), viewport: panel) == 0.001)
    }

    @Test func aFitAboveTheMaximumIsHeldToIt() throws {
        var v = try ScrollView(boundsSize: Size(width: 1920, height: 1080), contentSize: Size(width: 100, height: 100))
        var framing = ContentFraming()
        framing.minimumScale = .fit
        framing.maximumScale = 4
        try framing.apply(to: &v)
        #expect(v.minimumZoomScale == 4 && v.maximumZoomScale == 4)
        framing.maximumScale = 20
        try framing.apply(to: &v)
        #expect(v.minimumZoomScale == 10.8)
    }

    @Test func theHomeViewIsTheStartScaleAtTheHomeOffset() throws {
        var v = try ScrollView(boundsSize: Size(width: 1920, height: 1080), contentSize: Size(width: 4000, height: 3000))
        var framing = ContentFraming()
        framing.minimumScale = 0.1
        try framing.apply(to: &v)
        #expect(framing.home(of: v) == (Point(x: 0, y: 0), 1))
        framing.homeOffset = .center
        #expect(framing.home(of: v) == (Point(x: 1040, y: 960), 1))
        framing.homeOffset = .offset(Point(x: 5000, y: -30))
        #expect(framing.home(of: v) == (Point(x: 2080, y: 0), 1))
        // Fitted: the whole map, centred across, whatever the home offset asks.
        framing.startScale = .fit
        framing.homeOffset = .topLeft
        let home = framing.home(of: v)
        #expect(home.zoomScale == 0.36 && abs(home.offset.x + (1920 - 1440) / 2) < 1e-9 && home.offset.y == 0)
        // Width: a 4000 px wide content fills 1920 px.
        framing.startScale = .width
        #expect(framing.home(of: v).zoomScale == 0.48)
    }
}
