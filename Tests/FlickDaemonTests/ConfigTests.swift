import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// The config file: defaults, the documented file, errors with file, line and key, reload.
@Suite struct ConfigTests {
    /// The repository's config/flickd.toml.
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config/flickd.toml").path

    @Test func shippedFileIsExactlyTheDefaults() throws {
        let (configuration, fromFile) = try ConfigLoader.load(path: Self.shipped)
        #expect(fromFile)
        #expect(configuration == Configuration())
    }

    @Test func shippedFileShowsEveryKey() throws {
        let text = try String(contentsOfFile: Self.shipped, encoding: .utf8)
        let lines = KeyLines(try TOMLValue.parse(text))
        for key in ConfigLoader.knownKeys {
            #expect(lines.line(of: key) > 0, "config/flickd.toml lacks \(key)")
        }
        // And a comment line of why above each.
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        for key in ConfigLoader.knownKeys {
            var i = lines.line(of: key) - 2
            while i >= 0, !all[i].hasPrefix("#"), all[i].contains("=") { i -= 1 }
            #expect(i >= 0 && all[i].hasPrefix("#"), "\(key) has no comment")
        }
    }

    @Test func decelerationRateTakesNamesOrAFraction() throws {
        #expect(try ConfigLoader.parse("[scroll]\ndeceleration_rate = \"fast\"\n", path: "f").decelerationRate == .fast)
        #expect(try ConfigLoader.parse("[scroll]\ndeceleration_rate = 0.995\n", path: "f").decelerationRate.rawValue == 0.995)
        let e = try #require(configError("# tuned\n\n[scroll]\nbounces = true\ndeceleration_rate = 1.5\n"))
        #expect(e.description == "flickd.toml:5: scroll.deceleration_rate: expected \"normal\", \"fast\" or a number between 0 and 1 (exclusive), got 1.5")
        #expect(configError("[scroll]\ndeceleration_rate = \"slow\"\n")?.line == 2)
        #expect(configError("[scroll]\ndeceleration_rate = 0\n") != nil)
    }

    @Test func unknownKeysAndSectionsAreErrors() throws {
        let key = try #require(configError("[scroll]\nbounces = true\nbouncy = false\n"))
        #expect(key.line == 3 && key.key == "scroll.bouncy" && key.message.hasPrefix("unknown key; [scroll] takes "))
        let section = try #require(configError("[scroll]\nbounces = true\n[physics]\nx = 1\n"))
        #expect(section.line == 3 && section.key == "physics" && section.message.contains("unknown section"))
    }

    /// Frames are latched late only for resampled fingers (issue 20, part 4).
    @Test func theFrameLeadFollowsResampling() throws {
        var c = Configuration()
        #expect(c.frameLead == .milliseconds(4))
        c.resampleLead = .milliseconds(7)
        #expect(c.frameLead == .milliseconds(7))
        c.resampleTouches = false
        #expect(c.frameLead == .zero)
        c.resampleTouches = true
        c.maximumPrediction = .zero
        #expect(c.frameLead == .zero)
    }

    @Test func wrongTypesAndRangesAreErrors() throws {
        let cases: [(String, String, Int, String)] = [
            ("[scroll]\nbounces = \"yes\"\n", "scroll.bounces", 2, "expected true or false, got \"yes\""),
            ("[zoom]\nmaximum_scale = -2\n", "zoom.maximum_scale", 2, "expected a scale from 0.001 to 1000, got -2"),
            ("[input]\nrotation = 45\n", "input.rotation", 2, "expected 0, 90, 180 or 270, got 45"),
            ("[input]\ncalibration = [1, 0, 0]\n", "input.calibration", 2, "expected [] or six numbers"),
            ("[display]\nbackground = \"red\"\n", "display.background", 2, "expected a colour \"#RRGGBB\", got \"red\""),
            ("[display]\nmode = \"big\"\n", "display.mode", 2, "expected \"preferred\""),
            ("[gestures]\ncontent_touch_delay_ms = -1\n", "gestures.content_touch_delay_ms", 2, "from 0 to 60000"),
            ("[gestures]\ndouble_tap_action = \"zoom\"\n", "gestures.double_tap_action", 2, "expected one of \"content\", \"zoom-in\", \"zoom-toggle\""),
            ("[content]\npixel_budget = 10\n", "content.pixel_budget", 2, "expected a pixel count"),
            ("[control]\nsocket = \"relative.sock\"\n", "control.socket", 2, "expected an absolute path"),
            ("\n[zoom]\nmaximum_scale = 2\nminimum_scale = 3\n", "zoom.minimum_scale", 4, "expected at most zoom.maximum_scale (2), got 3"),
            ("[scroll]\nminimum_fling_velocity = 9000\n", "scroll.minimum_fling_velocity", 2, "at most maximum_fling_velocity"),
            ("[content]\nload_directories = [\"srv\"]\n", "content.load_directories", 2, "expected a list of absolute folder paths"),
            ("[content]\nload_directories = \"/srv\"\n", "content.load_directories", 2, "expected a list of absolute folder paths"),
            ("[kiosk]\nidle_reset_seconds = -5\n", "kiosk.idle_reset_seconds", 2, "expected seconds from 0 (off) to 86400, got -5"),
            ("[kiosk]\nscroll_to_top_strip_px = true\n", "kiosk.scroll_to_top_strip_px", 2, "expected a number of at least 0"),
            ("[input]\nresample_lead_ms = 20\n", "input.resample_lead_ms", 2, "expected a time in milliseconds from 0 to 17, got 20"),
            // Absurd values that once stopped or hung the daemon (RELIABILITY.md, fuzzing #21–#24).
            ("[indicators]\nfade_duration = 1e300\n", "indicators.fade_duration", 2, "expected a time in seconds from 0 to 60"),
            ("[scroll]\nanimation_duration = 61\n", "scroll.animation_duration", 2, "expected a time in seconds from 0 to 60"),
            ("[scroll]\nbounces = true\nanimation_curve = \"bouncy\"\n", "scroll.animation_curve", 3,
             "expected one of \"ease-in-out\", \"ease-out\", \"linear\", got \"bouncy\""),
            ("[scroll]\nanimation_curve = 1\n", "scroll.animation_curve", 2, "expected one of \"ease-in-out\""),
            ("[scroll]\nanimation_speed = -1\n", "scroll.animation_speed", 2,
             "expected a speed in px/s from 0 (off: every scroll takes animation_duration) to 1000000, got -1"),
            ("[scroll]\nanimation_speed = 1e300\n", "scroll.animation_speed", 2, "expected a speed in px/s from 0"),
            ("[scroll]\nanimation_speed = \"fast\"\n", "scroll.animation_speed", 2, "expected a speed in px/s from 0"),
            ("[zoom]\nminimum_scale = 5e-324\n", "zoom.minimum_scale", 2, "expected \"auto\", \"fit\", \"fill\" or a scale from 0.001 to 1000"),
            ("[zoom]\nminimum_scale = \"width\"\n", "zoom.minimum_scale", 2,
             "expected \"auto\", \"fit\", \"fill\" or a scale from 0.001 to 1000, got \"width\""),
            ("[zoom]\nstart_scale = \"whole\"\n", "zoom.start_scale", 2,
             "expected \"fit\", \"fill\", \"width\" or a scale from 0.001 to 1000, got \"whole\""),
            ("[kiosk]\nhome_offset = \"middle\"\n", "kiosk.home_offset", 2,
             "expected \"top-left\", \"center\" or [x, y]: the offset in px at zoom.start_scale, got \"middle\""),
            ("[kiosk]\nhome_offset = [1, 2, 3]\n", "kiosk.home_offset", 2, "expected \"top-left\", \"center\" or [x, y]"),
            ("[content]\ncenter = \"yes\"\n", "content.center", 2, "expected true or false"),
            ("[content]\nprovider_redraw_hz = 0.5\n", "content.provider_redraw_hz", 2,
             "expected redraws a second from 1 to 1000, or 0 for no limit, got 0.5"),
            ("[scroll]\nspring_mass = 5e-324\n", "scroll.spring_mass", 2, "a frequency √(stiffness/mass) from 0.1 to 10000"),
        ]
        for (text, key, line, message) in cases {
            let e = try #require(configError(text), "\(key)")
            #expect(e.key == key && e.line == line, "\(e)")
            #expect(e.message.contains(message), "\(e.message)")
        }
    }

    /// A rule of two keys names the key at its line with that key's value; what was expected
    /// and what was found are fields of their own (the journal's `FLICK_ERROR_EXPECTED`, …).
    @Test func theSpringRuleNamesTheLaterKeyWithItsOwnValue() throws {
        let e = try #require(configError("[scroll]\nspring_stiffness = 100\nspring_mass = 5e-324\n"))
        #expect(e.description == "flickd.toml:3: scroll.spring_mass: expected with spring_stiffness 100, a frequency "
                + "√(stiffness/mass) from 0.1 to 10000 per second, got 5e-324", "\(e)")
        #expect(e.found == "5e-324" && e.expected?.hasPrefix("with spring_stiffness") == true)
        let first = try #require(configError("[scroll]\nspring_mass = 5e-324\nspring_stiffness = 100\n"))
        #expect(first.key == "scroll.spring_stiffness" && first.line == 3 && first.found == "100", "\(first)")
    }

    @Test func syntaxErrorsCarryTheirLine() throws {
        let e = try #require(configError("[scroll]\nbounces = true\nrate = = 3\n"))
        #expect(e.line == 3 && e.key.isEmpty && e.description.hasPrefix("flickd.toml:3: TOML syntax"))
    }

    @Test func valuesMapOntoTheModel() throws {
        let c = try ConfigLoader.parse("""
            [scroll]
            paging = true
            content_inset = [10, 0, 20, 0]
            animation_curve = "linear"
            animation_speed = 800
            [zoom]
            maximum_scale = 3
            double_tap_scale = 2.5
            [input]
            rotation = 90
            calibration = [1, 0, 0, 0, 1, 0]
            [display]
            rotation = 270
            background = "#102030"
            [indicators]
            enabled = false
            [control]
            mode = 0o600
            [content]
            load_directories = ["/srv/kiosk", "/usr/share/flickd"]
            provider_redraw_hz = 0
            [kiosk]
            idle_reset_seconds = 90
            scroll_to_top_strip_px = 24
            """, path: "f")
        var view = try ScrollView(boundsSize: Size(width: 100, height: 100), contentSize: Size(width: 1000, height: 1000))
        try c.apply(to: &view)
        #expect(view.isPagingEnabled && view.maximumZoomScale == 3 && view.contentInset.top == 10)
        #expect(view.physics.animationCurve == .linear && view.physics.animationSpeed == 800)
        #expect(c.gestureConfiguration.doubleTapAction == .zoomToggle(scale: 2.5))
        #expect(c.touchMapping.rotation == 90 && c.touchMapping.calibration == [1, 0, 0, 0, 1, 0])
        #expect(c.panelRotation == .clockwise270 && c.background == Color(rgb: 0x102030))
        #expect(c.effectiveIndicatorStyle.alpha == 0 && c.controlMode == 0o600)
        #expect(c.loadDirectories == ["/srv/kiosk", "/usr/share/flickd"] && c.idleResetSeconds == 90)
        #expect(c.gestureConfiguration.scrollToTopStripHeight == 24)
        #expect(c.providerRedrawHz == 0 && Configuration().providerRedrawHz == 30)
    }

    @Test func socketAndStateGoIntoSystemdsFoldersUnlessTheFileSaysOtherwise() throws {
        let env = ["RUNTIME_DIRECTORY": "/run/flickd", "STATE_DIRECTORY": "/var/lib/private/flickd:/other"]
        let placed = Configuration().placed(in: env)
        #expect(placed.controlSocket == "/run/flickd/control.sock" && placed.statePath == "/var/lib/private/flickd/state.json")
        var own = Configuration()
        own.controlSocket = "/tmp/mine.sock"
        own.statePath = "/data/state.json"
        #expect(own.placed(in: env) == own)
        #expect(Configuration().placed(in: [:]) == Configuration())
    }

    @Test func missingFiles() throws {
        let (defaults, fromFile) = try ConfigLoader.load(path: "/nonexistent/flickd.toml", explicit: false)
        #expect(defaults == Configuration() && !fromFile)
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: "/nonexistent/flickd.toml", explicit: true) }
    }
}
