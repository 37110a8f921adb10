import FlickCore
@testable import FlickDaemon
import Testing

/// The zoom and state keys a kiosk map is set up with: a minimum that follows the start scale
/// unless the file sets one, a double tap that steps or goes to a scale, and whether a start
/// restores the saved view; refused values name file, line, key and what was expected.
@Suite struct ZoomConfigTests {
    @Test func theMinimumFollowsTheStartUnlessTheFileSetsIt() throws {
        #expect(Configuration().minimumZoomScale == nil)
        #expect(try ConfigLoader.parse("[zoom]\nstart_scale = \"fit\"\n", path: "f").minimumZoomScale == nil)
        #expect(try ConfigLoader.parse("[zoom]\nminimum_scale = \"auto\"\n", path: "f").minimumZoomScale == nil)
        // Written, even as the old default, it is the integrator's.
        #expect(try ConfigLoader.parse("[zoom]\nminimum_scale = 1\n", path: "f").minimumZoomScale == .scale(1))
        #expect(try ConfigLoader.parse("[zoom]\nminimum_scale = \"fill\"\n", path: "f").minimumZoomScale == .fill)
        let e = try #require(configError("[zoom]\nminimum_scale = \"width\"\n"))
        #expect(e.description == "flickd.toml:2: zoom.minimum_scale: expected \"auto\", \"fit\", \"fill\" or a scale from 0.001 to 1000, got \"width\"")
        // A maximum below 1 needs no minimum to go with it any more: the minimum follows.
        #expect(configError("[zoom]\nmaximum_scale = 0.5\n") == nil)
        #expect(configError("[zoom]\nminimum_scale = 1\nmaximum_scale = 0.5\n")?.key == "zoom.minimum_scale")
    }

    /// The minimum the framing works out on a 4000² map on an 800×480 view: fit is 480/4000.
    @Test(arguments: [
        (ScaleSetting.fit, nil, 0.12, 0.12), (.fill, nil, 0.2, 0.2), (.width, nil, 0.2, 0.2), (0.5, nil, 0.5, 0.5),
        (2, nil, 1, 2), (.fit, .scale(1), 1, 1), (.fit, .scale(0.05), 0.05, 0.12), (1, .fit, 0.12, 1),
    ] as [(ScaleSetting, ScaleSetting?, Double, Double)])
    func theEffectiveMinimumAndStart(start: ScaleSetting, minimum: ScaleSetting?, expectedMinimum: Double, expectedStart: Double) throws {
        var c = Configuration()
        c.startZoomScale = start
        c.minimumZoomScale = minimum
        let zoom = try ZoomSummary(configuration: c, content: Size(width: 4000, height: 4000), view: Size(width: 800, height: 480))
        #expect(zoom.minimum == expectedMinimum && zoom.start == expectedStart, "\(zoom.line)")
    }

    @Test func theSummarySaysWhichKeysMadeEachNumber() throws {
        var c = Configuration()
        c.startZoomScale = .fit
        let fit = try ZoomSummary(configuration: c, content: Size(width: 20000, height: 20000), view: Size(width: 800, height: 480))
        #expect(fit.line == "zoom: starts at 0.024 (start_scale = \"fit\"), minimum 0.024 (the start's: minimum_scale = \"auto\"), "
                + "maximum 4, for 20000x20000 content on a 800x480 view")
        c.minimumZoomScale = 1
        let held = try ZoomSummary(configuration: c, content: Size(width: 20000, height: 20000), view: Size(width: 800, height: 480))
        #expect(held.line == "zoom: starts at 1 (start_scale = \"fit\", 0.024 held within the limits), minimum 1 (minimum_scale = 1), "
                + "maximum 4, for 20000x20000 content on a 800x480 view")
    }

    @Test func aDoubleTapTakesAStepOrAScale() throws {
        #expect(Configuration().doubleTapScale == .factor(2))
        #expect(Configuration().gestureConfiguration.doubleTapAction == .zoomToggle(scale: .factor(2)))
        func parsed(_ value: String) throws -> DoubleTapZoom {
            try ConfigLoader.parse("[zoom]\ndouble_tap_scale = \(value)\n", path: "f").doubleTapScale
        }
        #expect(try parsed("\"2x\"") == .factor(2))
        #expect(try parsed("\"2.5x\"") == .factor(2.5))
        #expect(try parsed("\"1.25x\"").description == "\"1.25x\"")
        #expect(try parsed("3") == .scale(3))
        #expect(try parsed("0.5") == .scale(0.5))
        let zoomIn = try ConfigLoader.parse("[gestures]\ndouble_tap_action = \"zoom-in\"\n[zoom]\ndouble_tap_scale = \"3x\"\n", path: "f")
        #expect(zoomIn.gestureConfiguration.doubleTapAction == .zoomIn(scale: .factor(3)))
        #expect(DoubleTapZoom.factor(2.5).target(from: 0.024) == 0.024 * 2.5 && DoubleTapZoom.scale(2).target(from: 0.024) == 2)
    }

    @Test(arguments: ["\"2y\"", "\"-1x\"", "\"0x\"", "\"1x\"", "\"x\"", "\"nanx\"", "\"2000x\"", "0", "true"])
    func aBadDoubleTapScaleNamesFileLineKeyAndWhatWasExpected(value: String) throws {
        let e = try #require(configError("# kiosk\n[zoom]\nmaximum_scale = 8\ndouble_tap_scale = \(value)\n"))
        #expect(e.description == "flickd.toml:4: zoom.double_tap_scale: expected a step such as \"2x\" (a factor above 1, at most 1000) "
                + "or a zoom scale from 0.001 to 1000, got \(value)", "\(e)")
    }

    @Test func aStartRestoresTheViewOnlyWhenAsked() throws {
        #expect(Configuration().stateRestore == .home)
        #expect(try ConfigLoader.parse("[state]\nrestore = \"view\"\n", path: "f").stateRestore == .view)
        #expect(try ConfigLoader.parse("[state]\nrestore = \"home\"\n", path: "f").stateRestore == .home)
        let e = try #require(configError("[state]\npath = \"/tmp/s.json\"\nrestore = \"last\"\n"))
        #expect(e.description == "flickd.toml:3: state.restore: expected one of \"home\", \"view\", got \"last\"")
        #expect(ConfigChanges.takes("state.restore") == .restart)
    }

    @Test func theHomeViewSavedWithTheStateIsTheConfigsOwn() {
        var c = Configuration()
        #expect(c.homeView == "start_scale = 1, home_offset = \"top-left\"")
        c.startZoomScale = .fit
        c.homeOffset = .offset(Point(x: 120, y: 40.5))
        #expect(c.homeView == "start_scale = \"fit\", home_offset = [120.0, 40.5]")
        c.startZoomScale = 0.25
        #expect(c.homeView.hasPrefix("start_scale = 0.25,"))
    }
}
