import FlickCore
import FlickDisplay
import FlickInput
import FlickSystem

/// Every key of the config file and how it is read into a `Configuration`. The loader rejects
/// keys not listed here; a test checks that `config/flickd.toml` shows every one.
enum ConfigSchema {
    typealias Reader = @Sendable (TOMLValue, inout Configuration) throws -> Void

    /// Keys by `section.key`.
    static let keys: [String: Reader] = {
        var k: [String: Reader] = [:]
        // [scroll]
        k["scroll.deceleration_rate"] = { v, c throws in
            let expected = "\"normal\", \"fast\" or a number between 0 and 1 (exclusive)"
            if let s = v.string {
                guard s == "normal" || s == "fast" else { throw ValueProblem(expected: expected, found: "\"\(s)\"") }
                c.decelerationRate = s == "normal" ? .normal : .fast
            } else {
                let d = try number(v, expected)
                guard let rate = try? DecelerationRate(d) else { throw ValueProblem(expected: expected, found: d.brief) }
                c.decelerationRate = rate
            }
        }
        k["scroll.bounces"] = bool(\.bounces)
        k["scroll.always_bounce_horizontal"] = bool(\.alwaysBounceHorizontal)
        k["scroll.always_bounce_vertical"] = bool(\.alwaysBounceVertical)
        k["scroll.paging"] = bool(\.paging)
        k["scroll.directional_lock"] = bool(\.directionalLock)
        k["scroll.scroll_enabled"] = bool(\.scrollEnabled)
        k["scroll.scrolls_to_top"] = bool(\.scrollsToTop)
        k["scroll.content_inset"] = { v, c throws in
            let n = try numbers(v, count: 4, "[top, left, bottom, right] in px, each at least 0")
            guard n.allSatisfy({ $0 >= 0 }) else { throw ValueProblem(expected: "[top, left, bottom, right] in px, each at least 0", found: "[" + n.map(\.brief).joined(separator: ", ") + "]") }
            c.contentInset = EdgeInsets(top: n[0], left: n[1], bottom: n[2], right: n[3])
        }
        k["scroll.rubber_band_coefficient"] = positive(\.physics.rubberBandCoefficient)
        k["scroll.spring_stiffness"] = positive(\.physics.springStiffness)
        k["scroll.spring_mass"] = positive(\.physics.springMass)
        k["scroll.minimum_fling_velocity"] = atLeastZero(\.physics.minimumFlingVelocity)
        k["scroll.maximum_fling_velocity"] = positive(\.physics.maximumFlingVelocity)
        k["scroll.paging_velocity_threshold"] = atLeastZero(\.physics.pagingVelocityThreshold)
        k["scroll.paging_distance_threshold"] = { v, c throws in
            let d = try number(v, "a fraction of a page between 0 and 1 (exclusive)")
            guard d > 0 && d < 1 else { throw ValueProblem(expected: "a fraction of a page between 0 and 1 (exclusive)", found: d.brief) }
            c.physics.pagingDistanceThreshold = d
        }
        k["scroll.directional_lock_ratio"] = positive(\.physics.directionalLockRatio)
        k["scroll.animation_duration"] = seconds(\.physics.animationDuration)
        k["scroll.animation_curve"] = choice(Dictionary(uniqueKeysWithValues: AnimationCurve.allCases.map { ($0.rawValue, $0) }),
                                             \.physics.animationCurve)
        k["scroll.animation_speed"] = { v, c throws in
            let expected = "a speed in px/s from 0 (off: every scroll takes animation_duration) to 1000000"
            let d = try number(v, expected)
            guard (0...1_000_000).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c.physics.animationSpeed = d
        }
        k["scroll.zoom_bounce_duration"] = seconds(\.physics.zoomBounceDuration)
        k["scroll.rest_distance"] = positive(\.physics.restDistance)
        k["scroll.spring_rest_distance"] = positive(\.physics.springRestDistance)
        k["scroll.spring_rest_speed"] = positive(\.physics.springRestSpeed)
        // [gestures]
        k["gestures.delays_content_touches"] = bool(\.gestures.delaysContentTouches)
        k["gestures.content_touch_delay_ms"] = milliseconds(\.gestures.contentTouchDelay)
        k["gestures.can_cancel_content_touches"] = bool(\.gestures.canCancelContentTouches)
        k["gestures.touch_slop_mm"] = positive(\.gestures.touchSlopMillimetres)
        k["gestures.touch_slop_px"] = positive(\.gestures.touchSlopPixels)
        k["gestures.imperceptible_motion_px_per_frame"] = atLeastZero(\.gestures.imperceptibleMotionPixelsPerFrame)
        k["gestures.long_press_ms"] = milliseconds(\.gestures.longPressDuration)
        k["gestures.double_tap_interval_ms"] = milliseconds(\.gestures.doubleTapInterval)
        k["gestures.double_tap_min_interval_ms"] = milliseconds(\.gestures.doubleTapMinimumInterval)
        k["gestures.double_tap_slop_mm"] = positive(\.gestures.doubleTapSlopMillimetres)
        k["gestures.double_tap_slop_px"] = positive(\.gestures.doubleTapSlopPixels)
        k["gestures.double_tap_action"] = choice(["zoom-toggle": DoubleTapAction.zoomToggle(scale: .factor(2)), "zoom-in": .zoomIn(scale: .factor(2)),
                                                  "content": .content], \.gestures.doubleTapAction)
        k["gestures.velocity_window_ms"] = milliseconds(\.gestures.velocityWindow)
        k["gestures.velocity_samples"] = { v, c throws in
            guard let n = v.int, (2...100).contains(n) else {
                throw ValueProblem(expected: "a whole number from 2 to 100", found: show(v))
            }
            c.gestures.velocitySamples = n
        }
        k["gestures.velocity_reset_gap_ms"] = milliseconds(\.gestures.velocityResetGap)
        k["gestures.pinch"] = bool(\.gestures.pinchEnabled)
        // [zoom]
        k["zoom.minimum_scale"] = { v, c throws in
            if v.string == "auto" { c.minimumZoomScale = nil; return }
            var setting = ScaleSetting.scale(1)
            try scaleSetting(v, ["auto", "fit", "fill"], into: &setting)
            c.minimumZoomScale = setting
        }
        k["zoom.start_scale"] = { v, c throws in try scaleSetting(v, ["fit", "fill", "width"], into: &c.startZoomScale) }
        k["zoom.maximum_scale"] = scale(\.maximumZoomScale)
        k["zoom.double_tap_scale"] = { v, c throws in
            let expected = "a step such as \"2x\" (a factor above 1, at most 1000) or a zoom scale \(ScrollView.zoomScaleLimitText)"
            if let s = v.string {
                guard s.hasSuffix("x"), let f = Double(s.dropLast()), DoubleTapZoom.factorRange.contains(f) else {
                    throw ValueProblem(expected: expected, found: "\"\(s)\"")
                }
                c.doubleTapScale = .factor(f)
                return
            }
            let d = try number(v, expected)
            guard ScrollView.zoomScaleLimitRange.contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c.doubleTapScale = .scale(d)
        }
        k["zoom.bounces_zoom"] = bool(\.bouncesZoom)
        // [input]
        k["input.device"] = { v, c throws in
            let s = try string(v, "\"auto\" or a device path such as \"/dev/input/event3\"")
            guard s == "auto" || s.hasPrefix("/") else {
                throw ValueProblem(expected: "\"auto\" or a device path such as \"/dev/input/event3\"", found: "\"\(s)\"")
            }
            c.inputDevice = s
        }
        k["input.match_name"] = text(\.inputMatchName)
        k["input.grab"] = bool(\.grab)
        k["input.minimum_touch_ms"] = milliseconds(\.minimumTouchDuration)
        k["input.resample"] = bool(\.resampleTouches)
        k["input.resample_max_prediction_ms"] = milliseconds(\.maximumPrediction, upTo: TouchConditioning.predictionLimit)
        k["input.resample_lead_ms"] = milliseconds(\.resampleLead, upTo: TouchConditioning.leadLimit)
        k["input.smoothing"] = bool(\.smoothTouches)
        k["input.smoothing_min_cutoff_hz"] = positive(\.smoothing.minimumCutoff)
        k["input.smoothing_beta"] = atLeastZero(\.smoothing.beta)
        k["input.smoothing_derivative_cutoff_hz"] = positive(\.smoothing.derivativeCutoff)
        k["input.rotation"] = quarterTurn { c, r in c.touchMapping.rotation = r }
        k["input.flip_x"] = bool(\.touchMapping.flipX)
        k["input.flip_y"] = bool(\.touchMapping.flipY)
        k["input.calibration"] = { v, c throws in
            if let a = v.array, a.isEmpty { c.touchMapping.calibration = nil; return }
            c.touchMapping.calibration = try numbers(v, count: 6, "[] or six numbers [a, b, c, d, e, f] (libinput's matrix)")
        }
        // [display]
        k["display.backend"] = choice(["auto": "auto", "drm": "drm", "fbdev": "fbdev", "headless": "headless", "wayland": "wayland"], \.displayBackend)
        k["display.card"] = text(\.drmCard)
        k["display.connector"] = text(\.drmConnector)
        k["display.fallback"] = choice(["fail": DisplayOpener.Fallback.fail, "headless": .headless], \.displayFallback)
        k["display.mode"] = { v, c throws in
            let s = try string(v, "\"preferred\" or \"WIDTHxHEIGHT\" or \"WIDTHxHEIGHT@HZ\"")
            guard s == "preferred" || ModeRequest(s) != nil else {
                throw ValueProblem(expected: "\"preferred\" or \"WIDTHxHEIGHT\" or \"WIDTHxHEIGHT@HZ\"", found: "\"\(s)\"")
            }
            c.displayMode = s
        }
        k["display.rotation"] = quarterTurn { c, r in c.panelRotation = PanelRotation(rawValue: r) ?? .none }
        k["display.background"] = colour(\.background)
        k["display.fbdev"] = text(\.fbdevDevice)
        k["display.wayland_buffers"] = choice(["auto": "auto", "shm": "shm"], \.waylandBuffers)
        k["display.headless_size"] = { v, c throws in
            let s = try string(v, "\"WIDTHxHEIGHT\", each from 1 to 16384")
            guard let size = PixelSize(parsing: s) else {
                throw ValueProblem(expected: "\"WIDTHxHEIGHT\", each from 1 to 16384", found: "\"\(s)\"")
            }
            c.headlessSize = size
        }
        k["display.headless_refresh_rate"] = { v, c throws in
            let d = try number(v, "a rate in Hz from 1 to 1000")
            guard (1...1000).contains(d) else { throw ValueProblem(expected: "a rate in Hz from 1 to 1000", found: d.brief) }
            c.headlessRefreshRate = d
        }
        k["display.realtime_priority"] = { v, c throws in
            let expected = "a SCHED_RR priority from 1 to \(LoopPriority.maximum), or 0 for none"
            guard let n = v.int, (0...Int(LoopPriority.maximum)).contains(n) else { throw ValueProblem(expected: expected, found: show(v)) }
            c.realtimePriority = Int32(n)
        }
        // [content]
        k["content.path"] = text(\.contentPath)
        k["content.center"] = bool(\.centerContent)
        k["content.placeholder"] = { v, c throws in
            let expected = "\"black\", \"background\", \"test-pattern\" or the absolute path of a PNG/JPEG splash"
            let s = try string(v, expected)
            switch s {
            case "black": c.placeholder = .black
            case "background": c.placeholder = .background
            case "test-pattern": c.placeholder = .testPattern
            case _ where s.hasPrefix("/"): c.placeholder = .image(s)
            default: throw ValueProblem(expected: expected, found: "\"\(s)\"")
            }
        }
        k["content.show_progress"] = bool(\.showProgress)
        k["content.provider_grace_s"] = { v, c throws in
            let expected = "seconds from 0 (the configured content at once) to 3600"
            let d = try number(v, expected)
            guard (0...3600).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c.providerGraceSeconds = d
        }
        k["content.page_direction"] = choice(["horizontal": PageDirection.horizontal, "vertical": .vertical], \.pageDirection)
        k["content.pixel_budget"] = { v, c throws in
            guard let n = v.int, n >= 1 << 16, n <= 1 << 30 else {
                throw ValueProblem(expected: "a pixel count from 65536 to 1073741824", found: show(v))
            }
            c.pixelBudget = n
        }
        k["content.cache_mb"] = { v, c throws in
            guard let n = v.int, (8...4096).contains(n) else {
                throw ValueProblem(expected: "MiB from 8 to 4096", found: show(v))
            }
            c.cacheMegabytes = n
        }
        k["content.cache_max_mb"] = { v, c throws in
            guard let n = v.int, (0...1_048_576).contains(n) else {
                throw ValueProblem(expected: "MB from 1 to 1048576, or 0 for no limit", found: show(v))
            }
            c.cacheMaxMegabytes = n
        }
        k["content.cache_directory"] = { v, c throws in
            guard let s = v.string, s.hasPrefix("/") else { throw ValueProblem(expected: "an absolute folder path", found: show(v)) }
            c.cacheDirectory = s
        }
        k["content.provider_timeout_ms"] = { v, c throws in
            let expected = "a time in milliseconds from 50 to 60000"
            guard let d = v.double ?? v.int.map(Double.init), (50...60_000).contains(d) else {
                throw ValueProblem(expected: expected, found: show(v))
            }
            c.providerTimeout = .nanoseconds(Int64((d * 1e6).rounded()))
        }
        k["content.provider_redraw_hz"] = { v, c throws in
            guard let d = v.double ?? v.int.map(Double.init), d == 0 || (1...1000).contains(d) else {
                throw ValueProblem(expected: "redraws a second from 1 to 1000, or 0 for no limit", found: show(v))
            }
            c.providerRedrawHz = d
        }
        k["content.load_directories"] = { v, c throws in
            let expected = "a list of absolute folder paths, such as [\"/srv/kiosk\"]"
            guard let a = v.array else { throw ValueProblem(expected: expected, found: show(v)) }
            var dirs: [String] = []
            for element in a {
                guard let s = element.string, s.hasPrefix("/") else {
                    throw ValueProblem(expected: expected, found: show(element))
                }
                dirs.append(s)
            }
            c.loadDirectories = dirs
        }
        k["content.watch"] = bool(\.watchContent)
        k["content.watch_settle_ms"] = { v, c throws in
            let expected = "a time in milliseconds from 50 to 10000"
            guard let d = v.double ?? v.int.map(Double.init), (50...10_000).contains(d) else {
                throw ValueProblem(expected: expected, found: show(v))
            }
            c.watchSettle = .nanoseconds(Int64((d * 1e6).rounded()))
        }
        // [content]: documents (PDF, SVG) drawn by flickd-render (docs/documents.md)
        k["content.page_gap_px"] = wholeNumber(\.pageGap, 0...4096, "px")
        k["content.document_width_px"] = wholeNumber(\.documentWidth, 0...16384, "px (0: the screen's width)")
        k["content.document_max_pages"] = wholeNumber(\.documentMaxPages, 1...100_000, "pages")
        k["content.render_restarts"] = wholeNumber(\.renderRestarts, 0...100, "restarts")
        k["content.link_highlight"] = bool(\.linkHighlight)
        k["content.render_memory_mb"] = wholeNumber(\.renderMemoryMegabytes, 256...16384, "MiB")
        // [kiosk]
        k["kiosk.idle_reset_seconds"] = { v, c throws in
            let d = try number(v, "seconds from 0 (off) to 86400")
            guard (0...86_400).contains(d) else { throw ValueProblem(expected: "seconds from 0 (off) to 86400", found: d.brief) }
            c.idleResetSeconds = d
        }
        k["kiosk.home_offset"] = { v, c throws in
            let expected = "\"top-left\", \"center\" or [x, y]: the offset in px at zoom.start_scale"
            switch v.string {
            case "top-left"?: c.homeOffset = .topLeft
            case "center"?, "centre"?: c.homeOffset = .center
            case nil:
                let n = try numbers(v, count: 2, expected)
                c.homeOffset = .offset(Point(x: n[0], y: n[1]))
            case let s?: throw ValueProblem(expected: expected, found: "\"\(s)\"")
            }
        }
        k["kiosk.scroll_to_top_strip_px"] = atLeastZero(\.gestures.scrollToTopStripHeight)
        // [indicators]
        k["indicators.enabled"] = bool(\.indicatorsEnabled)
        k["indicators.thickness_mm"] = positive(\.indicatorSizing.thicknessMillimetres)
        k["indicators.thickness"] = { v, c throws in
            let expected = "px greater than 0, or 0 (from thickness_mm)"
            let d = try number(v, expected)
            guard d.isFinite, d >= 0 else { throw ValueProblem(expected: expected, found: d.brief) }
            c.indicatorSizing.thicknessPixels = d > 0 ? d : nil
        }
        k["indicators.inset"] = atLeastZero(\.indicatorStyle.edgeInset)
        k["indicators.minimum_length"] = positive(\.indicatorStyle.minimumLength)
        k["indicators.style"] = choice(["default": IndicatorStyle.Scheme.default, "black": .black, "white": .white],
                                       \.indicatorStyle.scheme)
        k["indicators.scroll_indicator_insets"] = { v, c throws in
            let expected = "[top, left, bottom, right] in px, each at least 0"
            let n = try numbers(v, count: 4, expected)
            guard n.allSatisfy({ $0 >= 0 }) else { throw ValueProblem(expected: expected, found: "[" + n.map(\.brief).joined(separator: ", ") + "]") }
            c.indicatorStyle.insets = EdgeInsets(top: n[0], left: n[1], bottom: n[2], right: n[3])
        }
        k["indicators.color"] = { v, c throws in
            let expected = "\"\" (the style's) or a colour \"#RRGGBB\""
            if v.string == "" { c.indicatorStyle.color = nil; return }
            var colour = Color.black
            try colourReader(v, expected, into: &colour)
            c.indicatorStyle.color = colour
        }
        k["indicators.alpha"] = { v, c throws in
            let d = try number(v, "an opacity from 0 to 1")
            guard (0...1).contains(d) else { throw ValueProblem(expected: "an opacity from 0 to 1", found: d.brief) }
            c.indicatorStyle.alpha = d
        }
        k["indicators.fade_duration"] = seconds(\.physics.indicatorFadeDuration)
        k["indicators.flash_duration"] = seconds(\.physics.indicatorFlashDuration)
        // [log]
        k["log.level"] = choice(["trace": "trace", "debug": "debug", "info": "info", "notice": "notice", "warning": "warning",
                                 "error": "error", "critical": "critical"], \.logLevel)
        k["log.gestures"] = { v, c throws in
            // true and false are the key's first two values: configs written for them load unchanged.
            let expected = "\"all\", \"summary\" or \"none\" (true is \"all\", false is \"none\")"
            if let b = v.bool { c.logGestures = b ? .all : .none; return }
            guard let s = v.string, let level = GestureLogLevel(rawValue: s) else { throw ValueProblem(expected: expected, found: show(v)) }
            c.logGestures = level
        }
        // [control]
        k["control.socket"] = { v, c throws in
            let s = try string(v, "an absolute path for the control socket")
            guard s.hasPrefix("/"), s.utf8.count < 108 else {
                throw ValueProblem(expected: "an absolute path shorter than 108 bytes", found: "\"\(s)\"")
            }
            c.controlSocket = s
        }
        k["control.group"] = text(\.controlGroup)
        k["control.snapshot_directory"] = { v, c throws in
            let s = try string(v, "\"\" or an absolute folder path")
            guard s.isEmpty || s.hasPrefix("/") else { throw ValueProblem(expected: "\"\" or an absolute folder path", found: "\"\(s)\"") }
            c.snapshotDirectory = s
        }
        k["control.mode"] = { v, c throws in
            guard let n = v.int, (0...0o777).contains(n) else {
                throw ValueProblem(expected: "permission bits such as 0o660", found: show(v))
            }
            c.controlMode = n
        }
        // [state]
        k["state.path"] = text(\.statePath)
        k["state.save_delay_ms"] = milliseconds(\.stateSaveDelay)
        k["state.save_interval_s"] = { v, c throws in
            let expected = "seconds from 0 (no minimum) to 86400"
            let d = try number(v, expected)
            guard (0...86_400).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c.stateSaveInterval = .seconds(double: d)
        }
        k["state.restore"] = choice(["view": StateRestore.view, "home": .home], \.stateRestore)
        // [debug]
        k["debug.touch_overlay"] = bool(\.touchOverlay)
        // [power]
        k["power.dim_after_s"] = idleSeconds(\.power.dimAfterSeconds)
        k["power.off_after_s"] = idleSeconds(\.power.offAfterSeconds)
        k["power.dim_brightness"] = { v, c throws in
            guard let n = v.int, (1...100).contains(n) else {
                throw ValueProblem(expected: "a percent of the backlight's maximum from 1 to 100", found: show(v))
            }
            c.power.dimBrightness = n
        }
        k["power.on_hours"] = { v, c throws in
            let expected = "a list of windows \"HH:MM-HH:MM\" that do not overlap, such as [\"07:30-22:00\"] ([] = always)"
            guard let a = v.array else { throw ValueProblem(expected: expected, found: show(v)) }
            var texts: [String] = []
            for element in a {
                guard let s = element.string else { throw ValueProblem(expected: expected, found: show(element)) }
                texts.append(s)
            }
            do {
                c.power.onHours = try PowerSchedule.windows(texts)
            } catch {
                throw ValueProblem(message: "\(error): expected \(expected)")
            }
        }
        k["power.wake_outside_hours"] = bool(\.power.wakeOutsideHours)
        k["power.method"] = choice(Dictionary(uniqueKeysWithValues: PowerConfiguration.Method.allCases.map { ($0.rawValue, $0) }),
                                   \.power.method)
        k["power.backlight"] = { v, c throws in
            let s = try string(v, "\"\" (found) or a backlight's name under /sys/class/backlight")
            guard !s.contains("/") || s.hasPrefix("/sys/") else {
                throw ValueProblem(expected: "\"\" (found) or a backlight's name under /sys/class/backlight", found: "\"\(s)\"")
            }
            c.power.backlight = s
        }
        k["power.wake_guard_ms"] = milliseconds(\.power.wakeGuard, upTo: .seconds(10))
        // [metrics]
        k["metrics.textfile"] = { v, c throws in
            let expected = "\"\" (off) or an absolute path ending in .prom (node_exporter's textfile collector reads only those)"
            let s = try string(v, expected)
            guard s.isEmpty || (s.hasPrefix("/") && s.hasSuffix(".prom") && !s.hasSuffix("/.prom")) else {
                throw ValueProblem(expected: expected, found: "\"\(s)\"")
            }
            c.metricsTextfile = s
        }
        k["metrics.interval_s"] = { v, c throws in
            let expected = "seconds from 1 to 3600"
            let d = try number(v, expected)
            guard (1...3600).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c.metricsInterval = .seconds(double: d)
        }
        return k
    }()

    // MARK: Readers

    static func show(_ v: TOMLValue) -> String {
        if let s = v.string { return "\"\(s)\"" }
        if let i = v.int { return String(i) }
        if let d = v.double { return d.brief }
        if let b = v.bool { return String(b) }
        return "a \(v.kindName)"
    }

    static func number(_ v: TOMLValue, _ expected: String) throws -> Double {
        if let d = v.double { return d }
        if let i = v.int { return Double(i) }
        throw ValueProblem(expected: expected, found: show(v))
    }

    static func string(_ v: TOMLValue, _ expected: String) throws -> String {
        guard let s = v.string else { throw ValueProblem(expected: expected, found: show(v)) }
        return s
    }

    static func numbers(_ v: TOMLValue, count: Int, _ expected: String) throws -> [Double] {
        guard let a = v.array, a.count == count else { throw ValueProblem(expected: expected, found: show(v)) }
        var out: [Double] = []
        for element in a {
            let d = try number(element, expected)
            guard d.isFinite else { throw ValueProblem(expected: expected, found: d.brief) }
            out.append(d)
        }
        return out
    }

    /// A whole number in `range`, `unit` said in the error.
    static func wholeNumber(_ key: WritableKeyPath<Configuration, Int> & Sendable, _ range: ClosedRange<Int>,
                            _ unit: String) -> Reader {
        { v, c throws in
            let expected = "a whole number from \(range.lowerBound) to \(range.upperBound), in \(unit)"
            guard let n = v.int, range.contains(n) else { throw ValueProblem(expected: expected, found: show(v)) }
            c[keyPath: key] = n
        }
    }

    static func bool(_ key: WritableKeyPath<Configuration, Bool> & Sendable) -> Reader {
        { v, c throws in
            guard let b = v.bool else { throw ValueProblem(expected: "true or false", found: show(v)) }
            c[keyPath: key] = b
        }
    }

    static func text(_ key: WritableKeyPath<Configuration, String> & Sendable) -> Reader {
        { v, c throws in c[keyPath: key] = try string(v, "a string") }
    }

    static func positive(_ key: WritableKeyPath<Configuration, Double> & Sendable) -> Reader {
        { v, c throws in
            let d = try number(v, "a number greater than 0")
            guard d.isFinite, d > 0 else { throw ValueProblem(expected: "a number greater than 0", found: d.brief) }
            c[keyPath: key] = d
        }
    }

    static func atLeastZero(_ key: WritableKeyPath<Configuration, Double> & Sendable) -> Reader {
        { v, c throws in
            let d = try number(v, "a number of at least 0")
            guard d.isFinite, d >= 0 else { throw ValueProblem(expected: "a number of at least 0", found: d.brief) }
            c[keyPath: key] = d
        }
    }

    /// A zoom scale, within what the scroll view takes (`ScrollView.zoomScaleLimitRange`).
    static func scale(_ key: WritableKeyPath<Configuration, Double> & Sendable) -> Reader {
        { v, c throws in
            let expected = "a scale \(ScrollView.zoomScaleLimitText)"
            let d = try number(v, expected)
            guard ScrollView.zoomScaleLimitRange.contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c[keyPath: key] = d
        }
    }

    /// Reads a zoom scale into `setting`: a number in the model's range, or one of the words
    /// `ScaleSetting` has among `words` (the error names all of `words`).
    static func scaleSetting(_ v: TOMLValue, _ words: [String], into setting: inout ScaleSetting) throws {
        let named = words.map { "\"\($0)\"" }.joined(separator: ", ")
        let expected = "\(named) or a scale \(ScrollView.zoomScaleLimitText)"
        if let s = v.string {
            let settings: [String: ScaleSetting] = ["fit": .fit, "fill": .fill, "width": .width]
            guard words.contains(s), let named = settings[s] else { throw ValueProblem(expected: expected, found: "\"\(s)\"") }
            setting = named
            return
        }
        let d = try number(v, expected)
        guard ScrollView.zoomScaleLimitRange.contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
        setting = .scale(d)
    }

    /// A duration in seconds of something shown on screen: at most a minute. Longer is no
    /// animation a visitor would wait for, and an absurd value (1e308) would keep frames coming
    /// for ever.
    static func seconds(_ key: WritableKeyPath<Configuration, Double> & Sendable) -> Reader {
        { v, c throws in
            let d = try number(v, "a time in seconds from 0 to 60")
            guard (0...60).contains(d) else { throw ValueProblem(expected: "a time in seconds from 0 to 60", found: d.brief) }
            c[keyPath: key] = d
        }
    }

    /// An idle time in seconds: 0 (never) to a day.
    static func idleSeconds(_ key: WritableKeyPath<Configuration, Double> & Sendable) -> Reader {
        { v, c throws in
            let expected = "seconds from 0 (never) to 86400"
            let d = try number(v, expected)
            guard (0...86_400).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c[keyPath: key] = d
        }
    }

    /// A time in milliseconds from 0 to `limit` (a minute unless the key says less).
    static func milliseconds(_ key: WritableKeyPath<Configuration, Duration> & Sendable, upTo limit: Duration = .seconds(60)) -> Reader {
        { v, c throws in
            let most = limit.inMilliseconds
            let expected = "a time in milliseconds from 0 to \(most.brief)"
            let d = try number(v, expected)
            guard (0...most).contains(d) else { throw ValueProblem(expected: expected, found: d.brief) }
            c[keyPath: key] = .nanoseconds(Int64((d * 1e6).rounded()))
        }
    }

    static func choice<T: Sendable>(_ options: [String: T], _ key: WritableKeyPath<Configuration, T> & Sendable) -> Reader {
        { v, c throws in
            let names = options.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            let s = try string(v, "one of \(names)")
            guard let value = options[s] else { throw ValueProblem(expected: "one of \(names)", found: "\"\(s)\"") }
            c[keyPath: key] = value
        }
    }

    static func quarterTurn(_ set: @escaping @Sendable (inout Configuration, Int) -> Void) -> Reader {
        { v, c throws in
            guard let n = v.int, [0, 90, 180, 270].contains(n) else {
                throw ValueProblem(expected: "0, 90, 180 or 270", found: show(v))
            }
            set(&c, n)
        }
    }

    static func colour(_ key: WritableKeyPath<Configuration, Color> & Sendable) -> Reader {
        { v, c throws in try colourReader(v, "a colour \"#RRGGBB\"", into: &c[keyPath: key]) }
    }

    /// Reads `"#RRGGBB"` into `colour`, naming `expected` when it is anything else.
    static func colourReader(_ v: TOMLValue, _ expected: String, into colour: inout Color) throws {
        let s = try string(v, expected)
        guard s.count == 7, s.hasPrefix("#"), let rgb = UInt32(s.dropFirst(), radix: 16) else {
            throw ValueProblem(expected: expected, found: "\"\(s)\"")
        }
        colour = Color(rgb: rgb)
    }
}
