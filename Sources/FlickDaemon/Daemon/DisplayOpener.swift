import FlickCore
import FlickDisplay
import FlickWayland

/// Opens the display backend a `DisplayEndpoint` names; `auto` tries DRM/KMS, then fbdev, then
/// (with `WAYLAND_DISPLAY` set: a compositor holds the display) a Wayland window, and says why
/// each one it passed over did not open. A panel with neither is a failure, unless
/// `fallback` allows the headless backend: a black panel under a healthy-looking service is
/// worse than a service that says it has no display.
///
/// A DRM card whose monitor is off or unplugged is no failure: it opens as a
/// `DisconnectedOutput` waiting for that card (`Opened.waitingFor`), and the daemon attaches the
/// panel when a hotplug event brings one. Its fbdev emulation is never taken instead: that would
/// show on a mode fixed at start, unpaced, with nothing to say the panel is not what was meant.
public struct DisplayOpener {
    /// The DRM card and mode from the config (the endpoint's card wins).
    public var drm = DRMOutput.Configuration()
    /// The framebuffer device from the config (the endpoint's device wins).
    public var fbdevDevice = "/dev/fb0"
    /// The headless size when neither the endpoint nor the recording gives one.
    public var headlessSize = PixelSize(width: 1280, height: 800)
    /// The headless virtual refresh rate.
    public var headlessRefreshRate = 60.0
    /// Where the headless backend writes frames, if anywhere.
    public var capture: HeadlessOutput.Capture = .never
    /// What `auto` does when neither DRM nor fbdev opens (`display.fallback`).
    public var fallback = Fallback.fail
    /// The display devices to decide from; nil reads the kernel's at each `open` (tests give
    /// their own).
    public var devices: DisplayDevices?
    /// The compositor `auto` may take when the display cannot be had directly: the process's
    /// `WAYLAND_DISPLAY` (tests give their own, or nil).
    public var waylandDisplay: String? = Self.environmentWaylandDisplay
    /// A Wayland window's frame memory (`display.wayland_buffers`).
    public var waylandBuffers = WaylandBufferPreference.auto

    /// What `auto` does without a panel.
    public enum Fallback: String, Hashable, Sendable {
        /// Fail: the service does not start (EX_UNAVAILABLE).
        case fail
        /// Run on the headless backend, and say so (`Opened.isFallback`).
        case headless
    }

    /// Creates an opener with the defaults.
    public init() {}

    /// Creates an opener with the config's card, mode, framebuffer, headless size and rate, and
    /// fallback: `flickd run` and `flickd calibrate` open the same display the same way.
    public init(configuration: Configuration) {
        drm = .init(cardPath: configuration.drmCard.isEmpty ? nil : configuration.drmCard,
                    connectorName: configuration.drmConnector.isEmpty ? nil : configuration.drmConnector,
                    mode: configuration.modeRequest)
        fbdevDevice = configuration.fbdevDevice
        headlessSize = configuration.headlessSize
        headlessRefreshRate = configuration.headlessRefreshRate
        fallback = configuration.displayFallback
        waylandBuffers = WaylandBufferPreference(rawValue: configuration.waylandBuffers) ?? .auto
    }

    /// What was opened, and what was passed over on the way.
    public struct Opened {
        /// The backend.
        public var output: any Output
        /// One line for logs and `status`, e.g.
        /// `drm /dev/dri/card0 Virtual-1 1024x768@60 (atomic, 2 overlay planes)`.
        public var description: String
        /// Why earlier candidates of `auto` did not open.
        public var passedOver: [String]
        /// Whether `auto` fell back to the headless backend: nothing is shown on a panel.
        public var isFallback = false
        /// Things the config asked for that could not be had, each said once (a pinned
        /// connector that does not exist).
        public var warnings: [String] = []
        /// The DRM card whose monitor is awaited, when none is connected: `output` is then a
        /// `DisconnectedOutput`, and hotplug brings the panel.
        public var waitingFor: String?
    }

    /// A display that could not be opened.
    public struct Failure: FlickError {
        /// Each backend tried and why it failed.
        public var reasons: [String]
        public var context: ErrorContext { ErrorContext(reason: "no display: " + reasons.joined(separator: "; ")) }
        public var kind: ErrorKind { .unavailable }
    }

    /// Opens the endpoint.
    /// - Throws: `Failure` with the reason for each backend tried.
    public func open(_ endpoint: DisplayEndpoint) throws(Failure) -> Opened {
        switch endpoint {
        case .drm(let card):
            return try openDRM(card: card, devices: devices ?? DisplayDevices.survey(card: card ?? drm.cardPath, fbdev: fbdevDevice))
        case .fbdev(let device): return try openFbdev(device: device)
        case .headless(let size): return try openHeadless(size: size)
        case .wayland(let size): return try openWayland(size: size, socket: nil)
        case .auto:
            var reasons: [String] = []
            let devices = devices ?? DisplayDevices.survey(card: drm.cardPath, fbdev: fbdevDevice)
            do {
                return try openDRM(card: nil, devices: devices)
            } catch {
                reasons += error.reasons
            }
            if !devices.cards.isEmpty && devices.fbdevIsDRMEmulation {
                reasons.append("fbdev: \(fbdevDevice) is the DRM card's own emulation, not a display of its own: not taken")
            } else {
                do {
                    var opened = try openFbdev(device: nil)
                    opened.passedOver = reasons
                    return opened
                } catch {
                    reasons += error.reasons
                }
            }
            // The display is another's (a compositor is DRM master): a window on that compositor.
            if let socket = waylandDisplay {
                do {
                    var opened = try openWayland(size: nil, socket: socket)
                    opened.passedOver = reasons
                    return opened
                } catch {
                    reasons += error.reasons
                }
            }
            guard fallback == .headless else {
                throw Failure(reasons: reasons + ["the headless fallback is off (display.fallback = \"fail\")"])
            }
            var opened = try open(.headless(size: nil))
            opened.passedOver = reasons
            opened.isFallback = true
            return opened
        }
    }

    /// Opens the card with a connected connector (the pinned one, if it exists), or waits for
    /// one on a card that has none connected.
    private func openDRM(card: String?, devices: DisplayDevices) throws(Failure) -> Opened {
        var configuration = drm
        if let card { configuration.cardPath = card }
        var warnings: [String] = []
        if let name = configuration.connectorName, !devices.cards.isEmpty, !devices.connectorNames.contains(name) {
            warnings.append("display.connector = \"\(name)\" names no connector (there are "
                + devices.connectorNames.joined(separator: ", ") + "): the first connected one is taken")
            configuration.connectorName = nil
        }
        let found = devices.connected(named: configuration.connectorName)
        // A card that opened with no monitor on it (a card that did not open says why below).
        let opened = devices.cards.first { configuration.cardPath == nil || $0.path == configuration.cardPath }
        if found == nil, let awaited = opened?.path {
            let what = configuration.connectorName.map { "connector \($0)" } ?? "a monitor"
            return Opened(output: DisconnectedOutput(size: waitingSize), description: "drm \(awaited): waiting for \(what) to be connected",
                          passedOver: [], warnings: warnings, waitingFor: awaited)
        }
        if let found {
            configuration.cardPath = found.card.path
            configuration.connectorName = found.connector.name
        }
        do {
            let output = try DRMOutput(configuration)
            let planes = output.usesPlanes ? "atomic, \(output.overlayPlaneCount) overlay planes" : "no overlay planes: every frame composed"
            return Opened(output: output, description: "drm \(output.cardPath) \(output.connector.name) \(output.mode) (\(planes))",
                          passedOver: [], warnings: warnings)
        } catch {
            throw Failure(reasons: ["drm: \(error)"])
        }
    }

    /// The size the view is laid out for while no monitor is connected: the configured mode's,
    /// else the headless size (the real one comes with the monitor).
    var waitingSize: PixelSize {
        drm.mode.map { PixelSize(width: max(1, $0.width), height: max(1, $0.height)) } ?? headlessSize
    }

    private func openFbdev(device: String?) throws(Failure) -> Opened {
        let path = device ?? fbdevDevice
        do {
            let output = try FbdevOutput(device: path)
            return Opened(output: output, description: "fbdev \(path) \(output.size)", passedOver: [])
        } catch {
            throw Failure(reasons: ["fbdev: \(error)"])
        }
    }

    private func openHeadless(size: PixelSize?) throws(Failure) -> Opened {
        let size = size ?? headlessSize
        guard let output = HeadlessOutput(size: size, refreshRate: headlessRefreshRate, capture: capture) else {
            throw Failure(reasons: ["headless: unusable size \(size) or refresh rate \(headlessRefreshRate) Hz"])
        }
        return Opened(output: output, description: "headless \(size)@\(headlessRefreshRate.formatted(maxFractionDigits: 2))",
                      passedOver: [])
    }
}

extension Double {
    /// At most `digits` decimals, trailing zeros dropped (`60`, `59.94`).
    func formatted(maxFractionDigits digits: Int) -> String {
        let scale = (0..<digits).reduce(1.0) { acc, _ in acc * 10 }
        let rounded = (self * scale).rounded() / scale
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
