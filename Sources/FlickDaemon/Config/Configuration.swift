import FlickCore
import FlickDisplay
import FlickInput

/// Everything a kiosk integrator tunes, as read from `/etc/flickd/flickd.toml`. `init()` holds
/// the defaults (`ScrollPhysics`, `GestureConfiguration`); `config/flickd.toml` lists every key with its default and why,
/// and a test keeps the two equal.
public struct Configuration: Hashable, Sendable {
    /// `[scroll]`: the UIScrollView physics and behaviour.
    public var physics = ScrollPhysics()
    public var decelerationRate = DecelerationRate.normal
    public var bounces = true
    public var alwaysBounceHorizontal = false
    public var alwaysBounceVertical = false
    public var paging = false
    public var directionalLock = false
    /// UIKit's `isScrollEnabled`: off, touches never scroll (they are the content's).
    public var scrollEnabled = true
    /// UIKit's `scrollsToTop`: off, the scroll-to-top strip is content like the rest.
    public var scrollsToTop = true
    public var contentInset = EdgeInsets.zero

    /// `[gestures]`: the recogniser's tunables (the double-tap zoom scale is `[zoom]`'s).
    public var gestures = GestureConfiguration()

    /// `[zoom]`: the smallest zoom may follow the content (`"fit"`, `"fill"`); nil (`"auto"`,
    /// the default): 1, or the start scale where that is smaller (`ContentFraming.minimumScale`).
    public var minimumZoomScale: ScaleSetting?
    public var maximumZoomScale = 4.0
    /// The home view's zoom: where content starts, attract mode returns and a double tap toggles.
    public var startZoomScale: ScaleSetting = 1
    /// A double tap's zoom: a step from where it lands (`"2x"`), or a zoom scale.
    public var doubleTapScale: DoubleTapZoom = .factor(2)
    public var bouncesZoom = true

    /// `[input]`.
    public var inputDevice = "auto"
    public var inputMatchName = ""
    public var grab = true
    /// A touch that ends sooner than this after it began is a phantom, dropped before gesture
    /// recognition (`PhantomTouchFilter`); below the shortest real tap recorded (51 µs).
    public var minimumTouchDuration = PhantomTouchFilter.defaultMinimumDuration
    public var touchMapping = TouchMapping()
    /// Whether fingers are resampled to the time each frame is shown (`TouchResampler`), and how
    /// far ahead of the latest report a position may be predicted.
    public var resampleTouches = true
    public var maximumPrediction = TouchConditioning.defaultMaximumPrediction
    /// How long before its vblank a frame of a resampled drag is prepared.
    public var resampleLead = TouchConditioning.defaultFrameLead
    /// Whether contact positions are smoothed (`TouchSmoother`), with the 1€ filter's tunables.
    public var smoothTouches = false
    public var smoothing = TouchConditioning.defaultSmoothing
    /// The smoothing and the prediction the keys above ask for, nil when off: what the pipeline's
    /// `TouchConditioning` is made of.
    public var touchSmoothing: OneEuroFilter.Parameters? { smoothTouches ? smoothing : nil }
    public var touchPrediction: Duration? { resampleTouches ? maximumPrediction : nil }
    /// The frame presenter's lead: frames are latched late only for resampled fingers.
    public var frameLead: Duration { resampleTouches && maximumPrediction > .zero ? resampleLead : .zero }

    /// `[display]`.
    public var displayBackend = "auto"
    /// What `auto` does when neither DRM nor fbdev opens.
    public var displayFallback = DisplayOpener.Fallback.fail
    public var drmCard = ""
    /// The DRM connector to drive (`HDMI-A-1`); "" = any connected one.
    public var drmConnector = ""
    public var displayMode = "preferred"
    public var panelRotation = PanelRotation.none
    public var background = Color.black
    public var fbdevDevice = "/dev/fb0"
    public var headlessSize = PixelSize(width: 1280, height: 800)
    public var headlessRefreshRate = 60.0
    /// A Wayland window's frame memory: "auto" (dma-bufs where the compositor takes them) or
    /// "shm" (`WaylandBufferPreference`).
    public var waylandBuffers = "auto"
    /// The event loop's `SCHED_RR` priority (`LoopPriority`), 0 = an ordinary thread.
    public var realtimePriority: Int32 = 1

    /// `[content]`.
    public var contentPath = ""
    public var pageDirection = PageDirection.horizontal
    public var pixelBudget = 32 << 20
    /// The decoded-tile cache of tiled content, in MiB.
    public var cacheMegabytes = 64
    /// Where pyramids of images too big to decode whole are built (systemd's `CacheDirectory=`
    /// when left at this default).
    public var cacheDirectory = "/var/cache/flickd"
    /// The most the pyramids in `cacheDirectory` may take on disk, in MB, the least recently
    /// shown removed first (`PyramidCache`); 0: no limit.
    public var cacheMaxMegabytes = 4096
    /// `cacheMaxMegabytes` in bytes, nil for no limit.
    public var cacheLimit: Int64? { cacheMaxMegabytes > 0 ? Int64(cacheMaxMegabytes) << 20 : nil }
    /// Where the control socket's `load` may take content from (absolute folders).
    public var loadDirectories: [String] = []
    /// How long a content provider's tile may take before its request is given up.
    public var providerTimeout: Duration = .milliseconds(1000)
    /// How many times a second an app's whole view may be redrawn (`RedrawBudget`); 0: no limit.
    public var providerRedrawHz = 30.0
    /// Documents (docs/documents.md): the gap between pages, a page's width at zoom 1 (0: the
    /// screen's), the most pages, the helper's restarts in a row and its memory limit.
    public var pageGap = 16
    public var documentWidth = 0
    public var documentMaxPages = 2000
    public var renderRestarts = 3
    /// A document's link flashes when tapped.
    public var linkHighlight = true
    public var renderMemoryMegabytes = 512

    /// `[kiosk]`: attract mode after this long without a touch (0: off); the scroll-to-top
    /// strip is `gestures.scrollToTopStripHeight`.
    public var idleResetSeconds = 0.0

    /// `[indicators]`.
    public var indicatorsEnabled = true
    public var indicatorStyle = IndicatorStyle()
    /// `indicators.thickness_mm` and `indicators.thickness`: the style's sizes for the panel.
    public var indicatorSizing = IndicatorSizing()

    /// `[log]`.
    public var logLevel = "info"
    public var logGestures = GestureLogLevel.summary

    /// `[debug]`: dots and trails under the fingers (bring-up).
    public var touchOverlay = false

    /// `[power]`: the panel dimmed and off when idle or outside its hours (docs/power.md).
    public var power = PowerConfiguration()

    /// `[control]`.
    public var controlSocket = "/run/flickd/control.sock"
    public var controlGroup = ""
    public var controlMode = 0o660
    /// Where `snapshot NAME` writes; "" = `snapshots/` beside the control socket.
    public var snapshotDirectory = ""

    /// The snapshot folder in force: the configured one, else `snapshots/` in the control
    /// socket's folder (under systemd, the service's RuntimeDirectory).
    public var snapshotFolder: String {
        if !snapshotDirectory.isEmpty { return snapshotDirectory }
        let socket = controlSocket
        guard let slash = socket.lastIndex(of: "/") else { return "snapshots" }
        return String(socket[..<slash]) + "/snapshots"
    }

    /// `[metrics]`: the Prometheus text file (node_exporter's textfile collector), "" = off, and
    /// the shortest time between two writes of it.
    public var metricsTextfile = ""
    public var metricsInterval = Duration.seconds(15)

    /// `[state]`.
    public var statePath = "/var/lib/flickd/state.json"
    public var stateSaveDelay = Duration.milliseconds(1000)
    /// With `stateRestore == .view`, the shortest time between two writes of the view: each
    /// is a small synced write, what wears an SD card.
    public var stateSaveInterval = Duration.seconds(1800)
    /// Whether a start shows the view saved for the content, or its home view.
    public var stateRestore = StateRestore.home

    /// `[content]`: what shows while the content is not there, and how long a gone provider's
    /// last frame stays.
    public var placeholder = Placeholder.black
    public var providerGraceSeconds = 10.0
    /// Whether a bar over a solid placeholder follows a pyramid being built.
    public var showProgress = true
    /// `content.watch`: content replaced on disk is shown without a reload, once it has been
    /// complete for `watchSettle` (`content.watch_settle_ms`).
    public var watchContent = true
    public var watchSettle = Duration.milliseconds(500)

    /// `[content]`'s `center` and `[kiosk]`'s `home_offset`.
    public var centerContent = true
    public var homeOffset = ContentFraming.HomeOffset.topLeft

    /// The defaults.
    public init() {}

    /// How the content is framed: the zoom limits, the home view, centring.
    public var framing: ContentFraming {
        var f = ContentFraming()
        f.minimumScale = minimumZoomScale
        f.maximumScale = maximumZoomScale
        f.startScale = startZoomScale
        f.homeOffset = homeOffset
        f.centersContent = centerContent
        return f
    }

    /// The home view as the config writes it (`zoom.start_scale`, `kiosk.home_offset`), saved
    /// with the view: a view saved under another home is not restored.
    public var homeView: String {
        let offset = switch homeOffset {
        case .topLeft: "\"top-left\""
        case .center: "\"center\""
        case let .offset(p): "[\(p.x), \(p.y)]"
        }
        return "start_scale = \(startZoomScale), home_offset = \(offset)"
    }

    /// The recogniser's tunables with the double-tap zoom scales filled in.
    public var gestureConfiguration: GestureConfiguration {
        var g = gestures
        g.doubleTapHomeScale = startZoomScale
        switch g.doubleTapAction {
        case .zoomToggle: g.doubleTapAction = .zoomToggle(scale: doubleTapScale)
        case .zoomIn: g.doubleTapAction = .zoomIn(scale: doubleTapScale)
        case .content: break
        }
        return g
    }

    /// The compositor's indicator look on a panel of unknown density (transparent when
    /// indicators are off).
    public var effectiveIndicatorStyle: IndicatorStyle { effectiveIndicatorStyle(pixelsPerMillimetre: nil) }

    /// The compositor's indicator look on a panel of `panel` pixels at `pixelsPerMillimetre`
    /// (nil: unknown), sized by `indicatorSizing` (transparent when indicators are off).
    public func effectiveIndicatorStyle(pixelsPerMillimetre: Double?, panel: Size? = nil) -> IndicatorStyle {
        var style = indicatorSizing.sized(indicatorStyle, pixelsPerMillimetre: pixelsPerMillimetre, panel: panel)
        if !indicatorsEnabled { style.alpha = 0 }
        return style
    }

    /// The config with the control socket, the state file and the pyramid cache moved into the
    /// folders systemd made for the service (`RuntimeDirectory=`, `StateDirectory=`,
    /// `CacheDirectory=`, passed as `$RUNTIME_DIRECTORY`, `$STATE_DIRECTORY` and
    /// `$CACHE_DIRECTORY`), where the file leaves them at their defaults.
    public func placed(in environment: [String: String]) -> Configuration {
        var c = self
        let defaults = Configuration()
        func first(_ name: String) -> String? {
            environment[name]?.split(separator: ":").first.map(String.init).flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        if c.controlSocket == defaults.controlSocket, let dir = first("RUNTIME_DIRECTORY") { c.controlSocket = dir + "/control.sock" }
        if c.statePath == defaults.statePath, let dir = first("STATE_DIRECTORY") { c.statePath = dir + "/state.json" }
        if c.cacheDirectory == defaults.cacheDirectory, let dir = first("CACHE_DIRECTORY") { c.cacheDirectory = dir }
        return c
    }

    /// The DRM mode asked for, nil for the connector's preferred one.
    public var modeRequest: ModeRequest? { displayMode == "preferred" ? nil : ModeRequest(displayMode) }

    /// Applies the scroll, zoom and physics settings to a view.
    /// - Throws: `ScrollViewError` when a combination is invalid (minimum above maximum zoom).
    public func apply(to view: inout ScrollView) throws(ScrollViewError) {
        try view.setPhysics(physics)
        // The inset first: a fitted scale fits the viewport less the inset.
        try view.setContentInset(contentInset)
        try framing.apply(to: &view)
        view.decelerationRate = decelerationRate
        view.bounces = bounces
        view.alwaysBounceHorizontal = alwaysBounceHorizontal
        view.alwaysBounceVertical = alwaysBounceVertical
        view.bouncesZoom = bouncesZoom
        view.isPagingEnabled = paging
        view.isDirectionalLockEnabled = directionalLock
        view.isScrollEnabled = scrollEnabled
        view.scrollsToTop = scrollsToTop
    }
}
