import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Logging

/// What the panel shows and where it came from — a file, a pyramid being built, a folder, a
/// content provider, or the placeholder standing in (`content.placeholder`: black by default,
/// never the test pattern unless asked) — and the view's saved position for it.
///
/// Content from a file is kept fresh (ContentHost+Refresh.swift): a reload reads it again when it
/// changed on disk, and with `content.watch` an inotify watch shows a replaced file once it is
/// complete, the view kept where it was; a broken one keeps the content on screen and says why
/// (`contentError`). Content chosen with `load` is saved with the state and shown again after a
/// restart, until `load` chooses again or the config's `content.path` changes.
///
/// Passive, as the pipeline is (docs/ARCHITECTURE.md, "One loop, passive parts"): the pyramid
/// build's and the content watch's fds (`fileDescriptors`) and the provider session's and the
/// watch's deadlines (`nextDeadline`) are watched by the loop, which calls
/// `dispatch(now:)`; the control commands (`load`, `provide`, `tile`, `invalidate`) and a reload
/// call in from outside, and their caller re-arms the loop. It shows content on a
/// `ContentScreen` (the pipeline) and talks to a provider through a `ProviderLink` (the control
/// socket); it needs neither to be made, nor an sd-event loop.
///
/// What it does goes to the journal through its `Logger`, in the daemon's words.
public final class ContentHost: PassiveComponent {
    var configuration: Configuration
    /// The content the command line asked for, which a reload does not change.
    let pinnedPath: String?
    let stateStore: StateStore?
    /// `state.restore` as it was at start: whether a saved view is shown again.
    let stateRestore: StateRestore
    let logger: Logger
    let tileWorkers: Int
    let clock: () -> Instant
    var providers: ProviderHost!
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
    /// Why the content on disk is not what shows (a replaced file that is broken, a deleted
    /// one, content that could not be shown at start), for `status`; nil when it is.
    public internal(set) var contentError: String? {
        didSet { if (contentError == nil) != (oldValue == nil) { contentErrorChanged?() } }
    }
    /// Called when the content on disk becomes unshowable or showable again: it may happen
    /// with no request or frame to notice it (a file replaced while nothing moves).
    public var contentErrorChanged: (() -> Void)?
    /// Called when `load` chose content that is now shown: the state is worth saving.
    public var chosen: (() -> Void)?
    /// The file or folder whose content shows or is wanted (nil: a provider's, none), and its
    /// signature when it was shown; a signature refused already is not read again.
    var wanted: String?
    var shownSignature: ContentIdentity.Signature?
    var refusedSignature: ContentIdentity.Signature?
    /// The pages of what shows, to keep the page in view when it is replaced.
    var shownPages: [Content.Page] = []
    /// The `.dzi` of the pyramid that shows, if one does: a trim of the cache leaves it in place.
    var shownPyramid: String?
    /// What `load` chose, and the config's `content.path` it was chosen under.
    var loaded: (path: String, under: String)?
    /// The image `load` chose whose pyramid is being built.
    var loadPending: String?
    /// The inotify watch on `wanted` (`content.watch`).
    var watch: ContentWatch?
    /// The preview decoded before a pyramid is built, the pyramid being built off the loop,
    /// and the next one asked for (ContentHost+Pyramids.swift).
    var previewing: PyramidPreview?
    var building: PyramidBuild?
    /// The image whose preview shows while its pyramid is built, and the preview's size.
    var previewShown: (image: String, size: PixelSize)?
    /// The cache trimmed off the loop a grace after a pyramid shows.
    lazy var cacheTrimmer = CacheTrimmer(logger: logger)
    var nextPyramid: (image: String, cacheDirectory: String)?
    /// The bar over the placeholder while the first content's pyramid is built
    /// (`content.show_progress`), and when to look at the build's percent next.
    var progress: ProgressBar?
    var progressDue: Instant?
    /// The document flickd-render draws (ContentHost+Documents.swift), and the one `start` found,
    /// to start once the control socket can take the helper's connection.
    var documents: DocumentHost?
    var nextDocument: (path: String, files: [String])?
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
        stateRestore = configuration.stateRestore
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
        var path = pinnedPath ?? configuration.contentPath
        if pinnedPath == nil, let chosen = restoredLoad() { path = chosen }
        let first: ContentLoader.Loaded
        do {
            first = try startingContent(path, view: view)
        } catch where loaded != nil {
            logger.report(.error, "content: what load chose cannot be shown, the configured content instead: ", error)
            loaded = nil
            path = configuration.contentPath
            first = try startingContent(path, view: view)
        }
        shownPages = first.content.pages
        name = first.name
        identity = ContentIdentity.of(first.name)
        logger.info("content: \(first.name), \(first.content.summary)")
        sayZoom(of: first.content, name: first.name, view: view)
        rewatch()
        return (first.content, savedPosition(for: nil))
    }

    /// The content `path` names at start, or the placeholder standing in for it (content from
    /// the config that cannot be shown, or whose pyramid is built first).
    /// - Throws: `ContentError` for content the command line or `load` chose.
    private func startingContent(_ path: String, view: PixelSize) throws -> ContentLoader.Loaded {
        let signature = ContentIdentity.signature(of: path)
        wanted = Self.isFile(path) ? path : nil
        let loaded: ContentLoader.Loaded
        do {
            switch try prepare(path, view: view, configuration: configuration) {
            case .ready(let ready):
                loaded = ready
                shownSignature = signature
            case .pyramid(let image, let cacheDirectory):
                // Built off the loop (minutes for a huge map); the placeholder meanwhile.
                nextPyramid = (image, cacheDirectory)
                loaded = try placeholder(view: view, reason: "until the pyramid of \(image) is built")
                if configuration.showProgress, let page = loaded.content.image {
                    var bar = ProgressBar(page: page)
                    _ = bar.draw(0)
                    progress = bar
                }
            case .document(let files):
                // The helper starts once the control socket can take its connection (`attach`).
                nextDocument = (path, files)
                loaded = try placeholder(view: view, reason: "until flickd-render has laid out \(path)")
                shownSignature = signature
            }
        } catch where pinnedPath == nil && self.loaded == nil {
            logger.report(.error, "content: ", error)
            contentError = "\(error)"
            refusedSignature = signature
            loaded = try placeholder(view: view, reason: "instead of content.path")
        }
        return loaded
    }

    /// Whether `path` names content on disk (not none, not a provider's).
    static func isFile(_ path: String) -> Bool { !path.isEmpty && ContentLoader.providerName(path) == nil }

    /// Shows from now on on `screen`, and starts building the pyramid `start` found missing.
    public func attach(_ screen: any ContentScreen) {
        self.screen = screen
        if let pending = nextPyramid {
            nextPyramid = nil
            buildPyramid(of: pending.image, into: pending.cacheDirectory)
            if progress != nil { progressDue = clock() + Self.progressInterval }
        }
        if let pending = nextDocument {
            nextDocument = nil
            startDocument(pending.path, files: pending.files)
        }
    }

    // MARK: The loop's side

    /// Readable when the pyramid being built is done, or the content changed on disk.
    public var fileDescriptors: [Descriptor] {
        [previewing?.fileDescriptor, building?.fileDescriptor, watch?.fileDescriptor, cacheTrimmer.fileDescriptor].compactMap { $0 }
            + (documents?.fileDescriptors ?? [])
    }

    /// When a content provider's session must next be seen to, or changed content has settled.
    public var nextDeadline: Instant? {
        [providers.nextDeadline, progressDue, watch?.nextDeadline, documents?.nextDeadline(provider: helperSession?.provider),
         cacheTrimmer.nextDeadline]
            .compactMap { $0 }.min()
    }

    /// Does what is due at `t`: a provider's requests let go or its session ended (the
    /// configured content back), a pyramid built shown.
    public func dispatch(now t: Instant) {
        providers.dispatch(now: t)
        documents?.dispatch(now: t, provider: helperSession?.provider)
        if let due = progressDue, due <= t, let build = building {
            progressDue = t + Self.progressInterval
            if progress?.draw(build.percent) == true { screen?.contentChanged(at: t) }
        }
        if let preview = previewing, let result = preview.takeResult() { previewDecoded(preview, result) }
        if let build = building, let result = build.takeResult() { pyramidBuilt(build, result) }
        cacheTrimmer.dispatch(now: t, building: building != nil || previewing != nil, cacheDirectory: configuration.cacheDirectory,
                              inUse: shownPyramid.map { [$0] } ?? [], limit: configuration.cacheLimit)
        if let watch, watch.dispatch(now: t) { refresh(because: "changed on disk") }
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
        try show(path: resolved, configuration: configuration, origin: .load)
    }

    /// A reload: the configured content shows if it changed (and the command line named none);
    /// a provider serving keeps its session, the next one meets the new terms.
    /// Content on disk that changed since it was shown is read again (what `load` chose too);
    /// a new `content.path` is the config's content, over what `load` chose.
    public func apply(_ next: Configuration) {
        let previous = configuration
        configuration = next
        providers.timeout = next.providerTimeout
        providers.grace = .seconds(double: next.providerGraceSeconds)
        providers.cacheBytes = next.cacheMegabytes << 20
        if let store = providers.session?.store { paceRedraws(of: store) }
        providers.requiredName = Self.requiredProvider(pinnedPath ?? next.contentPath)
        if pinnedPath == nil && next.contentPath != previous.contentPath {
            if let chosen = loaded { logger.notice("content: content.path changed: the config's content instead of \(chosen.path), which load chose") }
            loaded = nil
            wanted = Self.isFile(next.contentPath) ? next.contentPath : nil
            try? show(path: next.contentPath, configuration: next, origin: .configured)
        } else {
            refresh(because: "changed on disk since it was shown (reload)")
            relayDocument()
        }
        rewatch()
    }

    /// Whether the pyramid cache is being trimmed off the loop (`CacheTrimmer`).
    public var isTrimmingCache: Bool { cacheTrimmer.isRunning }

    /// The image whose pyramid is being built, for `status`.
    public var pyramidBuilding: ControlPyramidStatus? {
        if let preview = previewing { return ControlPyramidStatus(image: preview.image, percent: 0) }
        return building.map { build in
            ControlPyramidStatus(image: build.image, percent: build.percent,
                                 preview: previewShown.flatMap { $0.image == build.image ? "\($0.size)" : nil })
        }
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
        if declared.document != nil || documents?.isHelper(caller) == true {
            return try provideDocument(declared, pool: pool, caller: caller)
        }
        let status = try providers.provide(declared, pool: pool, caller: caller)
        // An app's content took the place of the document's.
        stopDocument()
        return status
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
        if let documents, documents.isHelper(caller) {
            providers.release(caller)
            documents.disconnected(at: clock())
            return
        }
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
    func placeholder(view: PixelSize, reason: String) throws -> ContentLoader.Loaded {
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

    /// Why content is shown: `load` chose it, the config names it, or it changed on disk.
    enum Origin {
        case load, configured, refreshed
    }

    /// `path` (its file's `signature`) is what shows now, or will once its helper provides: the
    /// file watched, no error kept, and `load`'s choice remembered (the state saves it).
    private func noteShown(_ path: String, signature: ContentIdentity.Signature?, origin: Origin, configuration: Configuration) {
        wanted = Self.isFile(path) ? path : nil
        shownSignature = signature
        refusedSignature = nil
        contentError = nil
        if origin == .load {
            self.loaded = (path, configuration.contentPath)
            chosen?()
        }
    }

    /// Loads content and shows it: content that changed on disk where the view was (clamped
    /// into it, on the same page), other content from its home position. On a problem the
    /// content on screen stays, and the problem is logged and thrown (and kept for `status`,
    /// unless `load` chose it: its reply says it). An image that needs its pyramid built is
    /// shown once it is (the content on screen stays meanwhile).
    func show(path: String, configuration: Configuration, origin: Origin) throws {
        guard let screen else { return }
        let signature = ContentIdentity.signature(of: path)
        let keeping = name == path ? screen.position : nil
        do {
            let loaded: ContentLoader.Loaded
            switch try prepare(path, view: screen.viewPixels, configuration: configuration) {
            case .ready(let ready):
                loaded = ready
            case .pyramid(let image, let cacheDirectory):
                if origin == .load { loadPending = image }
                buildPyramid(of: image, into: cacheDirectory)
                return
            case .document(let files):
                // What shows stays until the helper provides (or the fallback, if it cannot).
                startDocument(path, files: files)
                noteShown(path, signature: signature, origin: origin, configuration: configuration)
                rewatch()
                return
            }
            stopDocument()
            let pages = shownPages
            try present(loaded.content, name: loaded.name)
            if let keeping {
                let kept = Self.position(keeping, from: pages, onto: loaded.content.pages)
                screen.restore(offset: kept.offset, zoomScale: kept.zoomScale, at: clock())
            }
            noteShown(path, signature: signature, origin: origin, configuration: configuration)
            logger.info("content loaded: \(loaded.name), \(loaded.content.summary)")
            shownPyramid = loaded.pyramid
            if let pyramid = loaded.pyramid {
                PyramidCache.markShown(pyramid)
                cacheTrimmer.shown(at: clock())
            }
        } catch {
            logger.report(.error, "content rejected, \(stays(refusing: path)): ", error)
            if origin != .load {
                contentError = "\(error); \(stays(refusing: path))"
                refusedSignature = signature
            }
            throw error
        }
        rewatch()
    }

    /// Shows `content` from its home position (ending a content provider's session: its
    /// content is no longer what shows).
    func present(_ content: Content, name: String) throws {
        providers.contentReplaced()
        try screen?.present(content, at: clock())
        if let view = screen?.viewPixels { sayZoom(of: content, name: name, view: view) }
        self.name = name
        identity = ContentIdentity.of(name)
        shownPages = content.pages
        shownPyramid = nil
    }

    /// The provider's content, named (its size is valid: `provide` checked it), where the view
    /// was when the same provider was last shown (the daemon restarted, the app reconnected).
    private func presentProvided(_ content: Content, name: String) {
        // A document's helper started again: the view stays where it was.
        let document = documents.map { $0.path == name } ?? false
        let keeping = document && name == self.name ? screen?.position : nil
        do {
            try present(content, name: name)
            if let store = content.tiles { paceRedraws(of: store) }
            if !document {
                // The app's content is its own to change: nothing on disk is watched for it.
                wanted = nil
                shownSignature = nil
                rewatch()
            }
            contentError = nil
            if let keeping {
                screen?.restore(offset: keeping.offset, zoomScale: keeping.zoomScale, at: clock())
            } else if let saved = savedPosition(for: name) {
                screen?.restore(offset: saved.offset, zoomScale: saved.zoomScale, at: clock())
            }
        } catch {
            logger.report(.error, "content: cannot show \(name): ", error)
        }
    }

    /// An app's changed tiles are asked for at most `content.provider_redraw_hz` views a second.
    private func paceRedraws(of store: TileStore) {
        guard let view = screen?.viewPixels else { return }
        store.paceRedraws(viewsPerSecond: configuration.providerRedrawHz,
                          viewTiles: RedrawBudget.viewTiles(of: view, tileSize: store.source.grid.tileSize), clock: clock)
    }

    /// What the config (or the command line, or `load`) shows: after a content provider went.
    private func restoreConfiguredContent() {
        try? show(path: pinnedPath ?? loaded?.path ?? configuration.contentPath, configuration: configuration, origin: .configured)
    }

    /// The name a provider must have for the content configured, if it names one.
    private static func requiredProvider(_ path: String) -> String? {
        ContentLoader.providerName(path).flatMap { $0.isEmpty ? nil : $0 }
    }
}
