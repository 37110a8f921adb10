import FlickControl

/// What a fleet's monitoring reads about one kiosk, in Prometheus' text exposition format
/// (node_exporter's textfile collector reads it: `metrics.textfile`).
///
/// Counters only ever grow while the daemon runs; a restart starts them at zero, which
/// Prometheus' `rate()` and `increase()` expect (and `flickd_start_time_seconds` tells). Uptime is
/// not a sample of its own: a value that changes every second would rewrite the file, and wake
/// the daemon, every interval of an idle kiosk; `time() - flickd_start_time_seconds` is the
/// uptime, as `process_start_time_seconds` is for every Prometheus client.
public struct KioskMetrics: Hashable, Sendable {
    /// When the daemon started, in seconds since the Unix epoch.
    public var startTime: Double = 0
    /// The daemon's version and its control protocol's, so a fleet sees which kiosks run what.
    public var version = flickVersion
    public var protocolVersion = controlProtocolVersion
    /// Fingers that touched the panel (each contact once, phantoms not counted).
    public var touches = 0
    /// Gestures recognised, by kind (`tap`, `flick`, …: the journal's `FLICK_GESTURE`).
    public var gestures: [String: Int] = [:]
    /// Touches dropped as phantoms (too short, or with no position).
    public var phantomTouches = 0
    /// Frames that reached the panel.
    public var framesPresented = 0
    /// Frames that reached it a refresh or more after the vblank they were prepared for.
    public var framesLate = 0
    /// Whether a panel is connected and driven (1) or not (0).
    public var displayConnected = true
    /// The panel's power state: `on`, `dim` or `off`.
    public var powerState = "on"
    /// What is shown (its path, `provider NAME`, the placeholder), if anything.
    public var content: String?
    /// The content provider serving, if one is.
    public var provider: String?
    /// Whether that provider is connected (it may be within `content.provider_grace_s`).
    public var providerConnected = false
    /// Whether the content on disk is not what shows (`status`' `contentError`: a file
    /// replaced by a broken one or deleted, content that could not be shown at start).
    public var contentError = false
    /// Config reloads applied, and refused (a bad file: the old config stayed).
    public var reloadsAccepted = 0
    public var reloadsRefused = 0

    /// Creates metrics with every counter at zero.
    public init(startTime: Double = 0) {
        self.startTime = startTime
    }

    /// The power states a kiosk can be in, each a sample of `flickd_display_power_state` (one 1,
    /// the others 0: the convention for an enum, so a dashboard can count kiosks per state).
    public static let powerStates = ["on", "dim", "off"]

    /// The file's text: every metric with its `# HELP` and `# TYPE`, in a fixed order.
    public var text: String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric("flickd_build_info", "gauge", "The daemon's version and control protocol (always 1; they are the labels).",
               [(Self.labels(["version": version, "protocol": String(protocolVersion)]), "1")])
        metric("flickd_start_time_seconds", "gauge", "When flickd started, in seconds since the Unix epoch.",
               [("", Self.number(startTime))])
        metric("flickd_touches_total", "counter", "Fingers that touched the panel (phantom touches not counted).",
               [("", String(touches))])
        metric("flickd_gestures_total", "counter", "Gestures recognised, by kind.",
               gestures.keys.sorted().map { (Self.labels(["kind": $0]), String(gestures[$0] ?? 0)) })
        metric("flickd_phantom_touches_total", "counter", "Touches dropped as phantoms (too short, or with no position).",
               [("", String(phantomTouches))])
        metric("flickd_frames_presented_total", "counter", "Frames that reached the panel.", [("", String(framesPresented))])
        metric("flickd_frames_late_total", "counter", "Frames that reached the panel after the vblank they were prepared for.",
               [("", String(framesLate))])
        metric("flickd_display_connected", "gauge", "Whether a panel is connected and driven.",
               [("", displayConnected ? "1" : "0")])
        metric("flickd_display_power_state", "gauge", "The panel's power state: 1 for the state it is in.",
               Self.powerStates.map { (Self.labels(["state": $0]), $0 == powerState ? "1" : "0") })
        metric("flickd_content_info", "gauge", "What is shown (always 1; the content is the label).",
               content.map { [(Self.labels(["content": $0]), "1")] } ?? [])
        metric("flickd_content_error", "gauge",
               "Whether the content on disk cannot be shown (broken, deleted, refused): flickctl status and the journal say why.",
               [("", contentError ? "1" : "0")])
        metric("flickd_provider_connected", "gauge", "Whether the content provider serving is connected, by name.",
               provider.map { [(Self.labels(["provider": $0]), providerConnected ? "1" : "0")] } ?? [])
        metric("flickd_reloads_total", "counter", "Config reloads, applied or refused (the config in force stayed).",
               [(Self.labels(["result": "accepted"]), String(reloadsAccepted)),
                (Self.labels(["result": "refused"]), String(reloadsRefused))])
        return out
    }

    /// `{name="value",…}`, values escaped as the format asks (backslash, double quote, newline).
    static func labels(_ pairs: [String: String]) -> String {
        let body = pairs.keys.sorted().map { key in
            let value = (pairs[key] ?? "").replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
                .replacing("\n", with: "\\n")
            return "\(key)=\"\(value)\""
        }
        return "{" + body.joined(separator: ",") + "}"
    }

    /// A sample value: whole numbers without a fraction, others as Swift prints them (which the
    /// format's float syntax reads).
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return x.isNaN ? "NaN" : (x > 0 ? "+Inf" : "-Inf") }
        return x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
    }
}
