import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Logging

/// What the panel shows and where it came from — a file, a pyramid being built, a folder, a
/// content provider, or the placeholder standing in (`content.placeholder`: black by default,
/// never the test pattern unless asked) — and the view's saved position for it.
///
/// Passive, as the pipeline is (docs/ARCHITECTURE.md, "One loop, passive parts"): the pyramid build's fd (`fileDescriptors`) and the
/// provider session's deadlines (`nextDeadline`) are watched by the loop, which calls
/// `dispatch(now:)`; the control commands (`load`, `provide`, `tile`, `invalidate`) and a reload
/// call in from outside, and their caller re-arms the loop. It shows content on a
/// `ContentScreen` (the pipeline) and talks to a provider through a `ProviderLink` (the control
/// socket); it needs neither to be made, nor an sd-event loop.
///
/// What it does goes to the journal through its `Logger`, in the daemon's words.
public final class ContentHost: PassiveComponent {
    private var configuration: Configuration
    /// The content the command line asked for, which a reload does not change.
    private let pinnedPath: String?
    private let stateStore: StateStore?
    private let logger: Logger
    private let tileWorkers: Int
    private let clock: () -> Instant
    private var providers: ProviderHost!
    /// Where content is shown; set once the pipeline exists.
    public weak var screen: (any ContentScreen)?
    /// Carries messages to a content provider; set once the control socket is open.
    public var link: (any ProviderLink)? {
        get { providers.link }
        set { providers.link = newValue }
    }
    /// The content's name (its path, "provider NAME", or "test pattern").
    public private(set) var name: String?
    /// Which content a saved state belongs to: what shows now.
    public private(set) var identity = ""
    /// The pyramid being built off the loop, and the next one asked for.
    private var building: PyramidBuild?
    private var nextPyramid: (image: String, cacheDirectory: String)?
    /// The bar over the placeholder while the first content's pyramid is built
    /// (`content.show_progress`), and when to look at the build's percent next.
    private var progress: ProgressBar?
    private var progressDue: Instant?
    /// How often the bar follows the build: a visitor sees it move, the loop wakes once a second.
    static let progressInterval = Duration.seconds(1)

    /// A host for the content `configuration` names, or `pinnedPath` (the command line's).
    /// - Parameters:
    ///   - stateStore: where the view's position was saved; nil restores nothing.
    ///   - tileWorkers: threads making tiles of loaded content (0: as frames need them).
    ///   - clock: the loop's time.
    public init(configuration: Configuration, pinnedPath: String? = nil, stateStore: StateStore? = nil,
                logger: Logger = Logger(label: "flickd", factory: { _ in SwiftLogNoOpLogHandler() }),
                tileWorkers: Int = TileLoader.defaultWorkers, clock: @escaping () -> Instant) {
        self.configuration = configuration
        self.pinnedPath = pinnedPath
        self.stateStore = stateStore
        self.logger = logger
        self.tileWorkers = tileWorkers
        self.clock = clock
        providers = ProviderHost(clock: clock, logger: logger, timeout: configuration.providerTimeout,
                                 cacheBytes: configuration.cacheMegabytes << 20,
                                 requiredName: Self.requiredProvider(pinnedPath ?? configuration.contentPath),
                                 show: { [unowned self] content, name in self.presentProvided(content, name: name) },
                                 restore: { [unowned self] in self.restoreConfiguredContent() })
        providers.grace = .seconds(double: configuration.providerGraceSeconds)
    }

    // MARK: Start

    /// The content to start with, for a view of `view` pixels, and the view's saved position
    /// for it, if one was saved. A bad file is an error at start (nothing to keep showing yet)
    /// only if the command line asked for it; from the config, the placeholder stands in. For
    /// an image whose pyramid must be built first the placeholder shows until the build that
    /// `attach(_:)` starts is done.
    /// - Throws: `ContentError` naming the file and the reason.
    public func start(view: PixelSize) throws -> (content: Content, restore: (offset: Point, zoomScale: Double)?) {
        let loaded: ContentLoader.Loaded
        do {
            switch try prepare(pinnedPath ?? configuration.contentPath, view: view, configuration: configuration) {
            case .ready(let ready):
                loaded = ready
            case .pyramid(let image, let cacheDirectory):
                // Built off the loop (minutes for a huge map); the placeholder meanwhile.
                nextPyramid = (image, cacheDirectory)
                loaded = try placeholder(view: view, reason: "until the pyramid of \(image) is built")
                if configuration.showProgress, let page = loaded.content.image {
                    var bar = ProgressBar(page: page)
                    _ = bar.draw(0)
                    progress = bar
                }
            }
        } catch where pinnedPath == nil {
            logger.report(.error, "content: ", error)
            loaded = try placeholder(view: view, reason: "instead of content.path")
        }
        name = loaded.name
        identity = ContentIdentity.of(loaded.name)
        logger.info("content: \(loaded.name), \(loaded.content.summary)")
        return (loaded.content, savedPosition(for: nil))
    }

    /// Shows from now on on `screen`, and starts building the pyramid `start` found missing.
    public func attach(_ screen: any ContentScreen) {
        self.screen = screen
        if let pending = nextPyramid {
            nextPyramid = nil
            buildPyramid(of: pending.image, into: pending.cacheDirectory)
            if progress != nil { progressDue = clock() + Self.progressInterval }
        }
    }

    /// The view's saved position, if it was saved for what shows now (said in the journal; at
    /// start an unreadable state file too). `provider` names a provider's content shown again.
    private func savedPosition(for provider: String?) -> (offset: Point, zoomScale: Double)? {
        guard let stateStore else { return nil }
        let (saved, warning) = stateStore.load()
        if let warning, provider == nil { logger.warning("\(warning)") }
        guard let saved, saved.content == identity else { return nil }
        let restored = "state: restored offset (\(saved.offsetX), \(saved.offsetY)) zoom \(saved.zoomScale)"
        logger.info("\(restored)\(provider.map { " for \($0)" } ?? "")")
        return (Point(x: saved.offsetX, y: saved.offsetY), saved.zoomScale)
    }

    // MARK: The loop's side

    /// Readable when the pyramid being built is done.
    public var fileDescriptors: [Descriptor] { building.map { [$0.fileDescriptor] } ?? [] }

    /// When a content provider's session must next be seen to, if ever.
    public var nextDeadline: Instant? { [providers.nextDeadline, progressDue].compactMap { $0 }.min() }

    /// Does what is due at `t`: a provider's requests let go or its session ended (the
    /// configured content back), a pyramid built shown.
    public func dispatch(now t: Instant) {
        providers.dispatch(now: t)
        if let due = progressDue, due <= t, let build = building {
            progressDue = t + Self.progressInterval
            if progress?.draw(build.percent) == true { screen?.contentChanged(at: t) }
        }
        if let build = building, let result = build.takeResult() { pyramidBuilt(build, result) }
    }

    // MARK: Commands

    /// The control socket's `load`: content from inside the allowed folders only.
    /// - Throws: `ContentError` saying why not; the content on screen stays.
    public func load(_ path: String) throws {
        let resolved: String
        do {
            resolved = try ContentLoader.allowed(path, directories: configuration.loadDirectories)
        } catch {
            logger.report(.warning, "content rejected: ", error)
            throw error
        }
        try show(path: resolved, configuration: configuration)
    }

    /// A reload: the configured content shows if it changed (and the command line named none);
    /// a provider serving keeps its session, the next one meets the new terms.
    public func apply(_ next: Configuration) {
        if pinnedPath == nil && next.contentPath != configuration.contentPath {
            try? show(path: next.contentPath, configuration: next)
        }
        providers.timeout = next.providerTimeout
        providers.grace = .seconds(double: next.providerGraceSeconds)
        providers.cacheBytes = next.cacheMegabytes << 20
        providers.requiredName = Self.requiredProvider(pinnedPath ?? next.contentPath)
        configuration = next
    }

    /// The image whose pyramid is being built, for `status`.
    public var pyramidBuilding: ControlPyramidStatus? {
        building.map { ControlPyramidStatus(image: $0.image, percent: $0.percent) }
    }

    /// The content provider as `status` reports it, while one serves.
    public var providerStatus: ControlProviderStatus? { providers.status }

    /// The serving provider's requests and the tiles they fill, while one serves.
    public var providerTiles: (provider: TileProvider, store: TileStore)? {
        providers.session.map { ($0.provider, $0.store) }
    }

    /// `provide`: makes `caller` the content provider with the pool it passed, and shows its
    /// content; its requests go at the next `dispatch(now:)`, after the reply.
    /// - Throws: why not, as the reply says it.
    public func provide(_ declared: ControlCommand.Provide, pool: Int32?,
                        caller: ControlServer.Caller) throws(ControlError) -> ControlProviderStatus {
        try providers.provide(declared, pool: pool, caller: caller)
    }

    /// `tile`: the provider's answer to one of its requests.
    /// - Throws: why it is refused.
    public func answerTile(_ request: Int, drawn: Bool, caller: ControlServer.Caller) throws(ControlError) {
        try providers.answer(request, drawn: drawn, caller: caller)
    }

    /// `invalidate`: the provider's content changed in a rectangle (unscaled content pixels).
    /// - Throws: why it is refused.
    public func invalidate(x: Double, y: Double, width: Double, height: Double,
                           caller: ControlServer.Caller) throws(ControlError) {
        try providers.invalidate(x: x, y: y, width: width, height: height, caller: caller) {
            screen?.contentChanged(at: clock())
        }
    }

    /// A connection went: if it was the provider's, its content goes at the next `dispatch(now:)`.
    public func disconnected(_ caller: ControlServer.Caller) {
        providers.disconnected(caller)
    }

    // MARK: Showing

    /// What showing `path` takes; no content ("") and a provider not connected yet are the
    /// placeholder.
    private func prepare(_ path: String, view: PixelSize, configuration: Configuration) throws -> ContentLoader.Plan {
        if path.isEmpty { return .ready(try placeholder(view: view, reason: "(content.path is empty)")) }
        if let provider = ContentLoader.providerName(path) {
            let waiting = provider.isEmpty ? "a content provider" : "content provider \(provider)"
            return .ready(try placeholder(view: view, reason: "until \(waiting) connects"))
        }
        return try ContentLoader.prepare(path: path, view: view, configuration: configuration, workers: tileWorkers)
    }

    /// The placeholder, named for `status`, said in the journal with why it shows. A splash that
    /// cannot be shown is said, and black stands in for it.
    private func placeholder(view: PixelSize, reason: String) throws -> ContentLoader.Loaded {
        let chosen = configuration.placeholder
        do {
            let content = try chosen.content(view: view, configuration: configuration, workers: tileWorkers)
            logger.notice("content: showing the placeholder (\(chosen)) \(reason)")
            return ContentLoader.Loaded(content: content, name: "placeholder (\(chosen))")
        } catch {
            guard chosen != .black else { throw error }
            logger.report(.error, "content: the placeholder \(chosen) cannot be shown, black instead: ", error)
            let content = try Placeholder.black.content(view: view, configuration: configuration, workers: tileWorkers)
            return ContentLoader.Loaded(content: content, name: "placeholder (black)")
        }
    }

    /// Loads content and shows it from its home position. On a problem the content on screen
    /// stays, and the problem is logged and thrown. An image that needs its pyramid built is
    /// shown once it is (the content on screen stays meanwhile).
    private func show(path: String, configuration: Configuration) throws {
        guard let screen else { return }
        do {
            let loaded: ContentLoader.Loaded
            switch try prepare(path, view: screen.viewPixels, configuration: configuration) {
            case .ready(let ready):
                loaded = ready
            case .pyramid(let image, let cacheDirectory):
                buildPyramid(of: image, into: cacheDirectory)
                return
            }
            try present(loaded.content, name: loaded.name)
            logger.info("content loaded: \(loaded.name), \(loaded.content.summary)")
        } catch {
            logger.report(.error, "content rejected, keeping \(name ?? "no content"): ", error)
            throw error
        }
    }

    /// Shows `content` from its home position (ending a content provider's session: its
    /// content is no longer what shows).
    private func present(_ content: Content, name: String) throws {
        providers.contentReplaced()
        try screen?.present(content, at: clock())
        self.name = name
        identity = ContentIdentity.of(name)
    }

    /// The provider's content, named (its size is valid: `provide` checked it), where the view
    /// was when the same provider was last shown (the daemon restarted, the app reconnected).
    private func presentProvided(_ content: Content, name: String) {
        do {
            try present(content, name: name)
            if let saved = savedPosition(for: name) {
                screen?.restore(offset: saved.offset, zoomScale: saved.zoomScale, at: clock())
            }
        } catch {
            logger.report(.error, "content: cannot show \(name): ", error)
        }
    }

    /// What the config (or the command line) shows: after a content provider went.
    private func restoreConfiguredContent() {
        try? show(path: pinnedPath ?? configuration.contentPath, configuration: configuration)
    }

    /// The name a provider must have for the content configured, if it names one.
    private static func requiredProvider(_ path: String) -> String? {
        ContentLoader.providerName(path).flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: Pyramids

    /// Builds `image`'s pyramid off the loop and shows the image when it is done; a build under
    /// way for another image finishes first, then this one starts.
    private func buildPyramid(of image: String, into cacheDirectory: String) {
        if let building {
            if building.image != image { nextPyramid = (image, cacheDirectory) }
            return
        }
        let size = (try? PyramidBuilder.imageSize(of: image)).map { "\($0)" } ?? "?"
        guard let build = PyramidBuild(image: image, cacheDirectory: cacheDirectory, logger: logger) else {
            logger.error("content: cannot start a thread to build the pyramid of \(image)")
            return
        }
        building = build
        let shown = name ?? "nothing"
        logger.notice("content: \(image) is \(size), over content.pixel_budget: building its pyramid in \(cacheDirectory) (once; \(shown) is shown meanwhile)")
    }

    /// The build ended: the image is shown, or why not is logged and the content on screen stays.
    private func pyramidBuilt(_ build: PyramidBuild, _ result: Result<String, ContentError>) {
        // Its descriptor stays open while the loop's watch holds it.
        building = nil
        progress = nil
        progressDue = nil
        switch result {
        case .success(let descriptor):
            logger.info("content: pyramid of \(build.image) built in \(descriptor): \(build.lastProgress ?? "")")
            try? show(path: build.image, configuration: configuration)
        case .failure(let error):
            logger.report(.error, "content: the pyramid of \(build.image) could not be built, keeping \(name ?? "no content"): ", error)
        }
        if let next = nextPyramid {
            nextPyramid = nil
            buildPyramid(of: next.image, into: next.cacheDirectory)
        }
    }
}
