import Testing
@testable import FlickCore

@Suite struct ScrollValidationTests {
    @Test func badSizesAreRejected() {
        for bad in [Size(width: .nan, height: 1), Size(width: 1, height: .infinity), Size(width: -1, height: 5)] {
            // NaN never equals itself, so compare the messages.
            let content = #expect(throws: ScrollViewError.self) {
                _ = try ScrollView(boundsSize: Size(width: 10, height: 10), contentSize: bad)
            }
            #expect(content?.description.hasPrefix("content size: expected finite, non-negative width and height, got \(bad)") == true)
            let bounds = #expect(throws: ScrollViewError.self) {
                _ = try ScrollView(boundsSize: bad, contentSize: Size(width: 10, height: 10))
            }
            #expect(bounds?.description.hasPrefix("bounds size: expected finite, non-negative width and height, got \(bad)") == true)
        }
    }

    @Test func zoomLimitsAreChecked() throws {
        var view = try ScrollView(boundsSize: Size(width: 10, height: 10), contentSize: Size(width: 10, height: 10))
        #expect(throws: ScrollViewError.invalidZoomRange(minimum: 3, maximum: 2)) {
            try view.setZoomScaleLimits(minimum: 3, maximum: 2)
        }
        #expect(throws: ScrollViewError.self) { try view.setZoomScaleLimits(minimum: 0, maximum: 2) }
        #expect(throws: ScrollViewError.self) { try view.setZoomScaleLimits(minimum: .nan, maximum: 2) }
        #expect(throws: ScrollViewError.self) { try view.setZoomScale(-1, animated: false, at: .zero) }
        #expect(view.minimumZoomScale == 1 && view.maximumZoomScale == 1)
    }

    @Test func decelerationRateRange() throws {
        for bad in [0.0, 1.0, -0.5, 1.5, .nan, .infinity] {
            let error = #expect(throws: ScrollViewError.self) { _ = try DecelerationRate(bad) }
            #expect(error?.description.hasPrefix("deceleration rate: expected normal, fast or a number between 0 and 1 (exclusive), got \(bad.brief)") == true)
        }
        #expect(try DecelerationRate(parsing: "normal") == .normal)
        #expect(try DecelerationRate(parsing: "fast").rawValue == 0.99)
        #expect(try DecelerationRate(parsing: "0.995").rawValue == 0.995)
        #expect(throws: ScrollViewError.self) { _ = try DecelerationRate(parsing: "slow") }
        let message = ScrollViewError.invalidDecelerationRate(1.5).description
        #expect(message.contains("1.5") && message.contains("between 0 and 1"))
    }

    @Test func nonFiniteInputsNeverReachTheOffset() throws {
        var h = ScrollHarness()
        #expect(throws: ScrollViewError.self) { try h.view.setContentOffset(Point(x: .nan, y: 0), animated: false, at: h.now) }
        #expect(throws: ScrollViewError.self) {
            try h.view.scrollRectToVisible(Rect(x: 0, y: .infinity, width: 1, height: 1), animated: true, at: h.now)
        }
        h.down()
        h.view.drag(by: Vector(dx: .nan, dy: 5), at: h.now)
        h.view.drag(by: Vector(dx: 0, dy: -.infinity), at: h.now)
        h.up(vx: .nan, vy: .infinity)
        h.runToRest()
        #expect(h.view.contentOffset.isFinite)
        #expect(!h.view.takeDiagnostics().isEmpty)
    }

    @Test func badTunablesAreNamed() {
        var physics = ScrollPhysics()
        physics.springStiffness = -1
        #expect(throws: ScrollViewError.invalidTunable(name: "spring_stiffness", value: -1, expected: "a finite number greater than 0")) {
            try physics.validate()
        }
        physics = ScrollPhysics()
        physics.pagingDistanceThreshold = 1.2
        #expect(throws: ScrollViewError.self) { try physics.validate() }
    }

    @Test func timeNeverGoesBack() throws {
        var h = ScrollHarness()
        h.down(); h.move(dy: -30); h.up(vy: -2000)
        h.advance(ms: 200)
        h.view.advance(to: h.now)
        let y = h.view.contentOffset.y
        h.view.advance(to: h.now - .milliseconds(100))
        #expect(h.view.contentOffset.y == y)
    }
}
