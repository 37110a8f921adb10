import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Logging

/// The content host's side of content providers: at most one app at a time drawing the content
/// on request over the control socket (docs/protocol.md, "Content providers").
///
/// States: **waiting** (no provider; the configured content shows) → `provide` → **serving**
/// (its content shows; requests go out, answers and invalidations come in) → the connection
/// goes, or other content is shown → **waiting**. A provider that goes leaves its last frame on
/// screen for `grace` (**grace**: nothing is asked of it; a provider that connects meanwhile is
/// shown at once), then the configured content returns; the journal says each once.
///
/// Passive: what must happen after the current wake-up (a session's end noticed inside a
/// frame, a new provider's requests let go once the reply to its `provide` is out) is a
/// deadline, `nextDeadline`, that the loop meets with `dispatch(now:)`.
final class ProviderHost {
    /// The app serving, its tiles and its counters.
    struct Session {
        var caller: ControlServer.Caller
        var name: String
        var provider: TileProvider
        var store: TileStore
        /// What it shows (a document's links are added to it as they come).
        weak var content: Content?
    }

    /// Event types a provider receives without subscribing: its content's touches.
    static let touchEvents: Set<String> = ["contentTouchDown", "contentTouchMove", "contentTouchUp", "contentTouchCancel",
                                           "tap", "doubleTap", "longPress"]

    private let clock: () -> Instant
    private let logger: Logger
    /// Carries messages to the provider's connection; set once the socket is open.
    weak var link: (any ProviderLink)?
    /// Shows a provider's content, named, from its home position.
    private let show: (Content, String) -> Void
    /// Brings the configured content back.
    private let restore: () -> Void
    /// How long a request may wait for its answer (`content.provider_timeout_ms`).
    var timeout: Duration
    /// The tile cache's budget (`content.cache_mb`).
    var cacheBytes: Int
    /// The only name shown, when the configured content is `provider:NAME`.
    var requiredName: String?
    /// How long a gone provider's last frame stays (`content.provider_grace_s`).
    var grace: Duration = .zero
    /// When a gone provider's grace ends, and its name.
    private var graceEnds: (at: Instant, name: String)?
    private(set) var session: Session?
    /// When to end a session outside whatever noticed its connection gone (a send inside a
    /// frame), and whose.
    private var ending: (at: Instant, caller: ControlServer.Caller)?
    /// When to let a new provider's requests go, after the reply to its `provide` has.
    private var starting: Instant?

    init(clock: @escaping () -> Instant, logger: Logger, timeout: Duration, cacheBytes: Int, requiredName: String?,
         show: @escaping (Content, String) -> Void, restore: @escaping () -> Void) {
        self.clock = clock
        self.logger = logger
        self.timeout = timeout
        self.cacheBytes = cacheBytes
        self.requiredName = requiredName
        self.show = show
        self.restore = restore
    }

    /// When `dispatch(now:)` has something to do, if ever.
    var nextDeadline: Instant? { [ending?.at, starting, graceEnds?.at].compactMap { $0 }.min() }

    /// Does what is due at `t`: a new provider's requests go, a gone provider's session ends.
    func dispatch(now t: Instant) {
        if let at = starting, at <= t {
            starting = nil
            session?.provider.isPaused = false
        }
        if let ending, ending.at <= t {
            self.ending = nil
            endGoneSession(of: ending.caller, at: t)
        }
        if let graceEnds, graceEnds.at <= t {
            self.graceEnds = nil
            logger.notice("content provider \(graceEnds.name) did not come back within content.provider_grace_s: showing the configured content")
            restore()
        }
    }

    /// The provider as `status` reports it, while one serves.
    var status: ControlProviderStatus? {
        guard let session else { return nil }
        let p = session.provider
        var status = ControlProviderStatus(name: session.name, connected: true, pending: p.pendingCount, drawn: p.drawn,
                                           timeouts: p.timeouts, cancelled: p.cancelled,
                                           invalidations: session.store.invalidations, latencyMs: p.meanLatencyMs)
        let cache = session.store.cache
        status.tilesOverwritten = cache.overwrites
        status.tilesIntoKeptBuffers = cache.reuses
        status.tilesIntoNewBuffers = cache.misses
        if let deferred = session.store.redrawsDeferred {
            status.redrawsDeferred = deferred.total
            status.redrawsWaiting = deferred.now
        }
        let presented = session.store.presentLatencies.map { Double($0.nanoseconds) / 1e6 }.sorted()
        if !presented.isEmpty {
            status.presentedP50Ms = presented[presented.count / 2]
            status.presentedP99Ms = presented[min(presented.count - 1, presented.count * 99 / 100)]
        }
        return status
    }

    /// `provide`: checks the declaration and the pool, then shows the app's content.
    /// - Parameter document: for flickd-render's connection, the document's name (its content
    ///   path) and its pages: shown under that name, with those pages, and sent no touches.
    func provide(_ declared: ControlCommand.Provide, pool fd: Int32?, caller: ControlServer.Caller,
                 document: (name: String, pages: [Content.Page], links: DocumentLinks)? = nil) throws(ControlError) -> ControlProviderStatus {
        if let session {
            throw .failed(session.caller == caller ? "this connection already provides the content"
                          : "another provider (\(session.name)) is connected")
        }
        if let requiredName, declared.name != requiredName {
            throw .badField(command: "provide", field: "name", expected: "\(requiredName) (content.path is provider:\(requiredName))")
        }
        guard let fd else {
            throw .missingField(command: "provide", field: "the pool (a memfd passed with the request, SCM_RIGHTS)")
        }
        let pool: SharedTilePool
        do {
            pool = try SharedTilePool(fd: fd, slots: declared.slots, tileSize: declared.tileSize)
        } catch {
            logger.warning("content provider \(declared.name) refused: \(error)")
            throw .failed("\(error)")
        }
        let size = PixelSize(width: declared.width, height: declared.height)
        guard let source = ProviderSource(name: "provider \(declared.name)", size: size, detail: declared.detail,
                                          tileSize: declared.tileSize,
                                          opaque: declared.opaque, background: declared.background.map { Color(rgb: $0) }),
              let provider = TileProvider(grid: source.grid, contentScale: source.contentScale, pool: pool, format: declared.opaque ? .xrgb8888 : .argb8888,
                                          timeout: timeout, clock: clock) else {
            throw .failed("the content cannot be made (out of descriptors or memory)")
        }
        let store: TileStore
        do {
            store = try TileStore(source: source, cacheBytes: cacheBytes, fetcher: provider)
        } catch {
            throw .failed("\(error)")
        }
        provider.send = { [weak link] message in link?.send(message, to: caller) }
        if document == nil { link?.subscribe(caller, to: Self.touchEvents) }
        let name = document?.name ?? "provider \(declared.name)"
        // Showing may draw a frame at once: its requests wait until the reply is out.
        provider.isPaused = true
        starting = clock()
        let content = Content(tiles: store, pages: document?.pages)
        if let links = document?.links { content.links = links }
        show(content, name)
        // After `show`: showing ends any session, and this one has just begun.
        session = Session(caller: caller, name: declared.name, provider: provider, store: store, content: content)
        let levels = source.grid.maxLevel + 1
        logger.notice("content provider \(declared.name) connected: \(declared.width)x\(declared.height), \(levels) levels of \(declared.tileSize) px tiles, \(declared.slots) slots")
        return ControlProviderStatus(name: declared.name, levels: source.grid.maxLevel + 1, slotBytes: pool.slotBytes,
                                     stride: pool.stride)
    }

    /// `tile`: the provider's answer to one request.
    func answer(_ request: Int, drawn: Bool, caller: ControlServer.Caller) throws(ControlError) {
        let session = try serving(caller, "tile")
        do {
            try session.provider.answer(request, drawn: drawn)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// `invalidate`: the provider's content changed there; the view stays where it is.
    func invalidate(x: Double, y: Double, width: Double, height: Double, caller: ControlServer.Caller,
                    redraw: () -> Void) throws(ControlError) {
        let session = try serving(caller, "invalidate")
        session.store.invalidate(x: x, y: y, width: width, height: height)
        redraw()
    }

    /// A connection went: if it was the provider's, its content goes (after this wake-up).
    func disconnected(_ caller: ControlServer.Caller) {
        guard session?.caller == caller else { return }
        ending = (clock(), caller)
    }

    /// flickd-render's connection went: its session ends at once, its content stays on screen
    /// (the tiles drawn already) until the helper started again provides, or the fallback shows.
    func release(_ caller: ControlServer.Caller) {
        guard let session, session.caller == caller else { return }
        session.provider.stop()
        self.session = nil
        if ending?.caller == caller { ending = nil }
    }

    /// Other content is shown (`load`, a reload, a pyramid built): the provider no longer is.
    func contentReplaced() {
        graceEnds = nil
        guard let session else { return }
        session.provider.stop()
        logger.notice("content provider \(session.name): its content was replaced; it is asked for nothing more")
        self.session = nil
    }

    private func endGoneSession(of caller: ControlServer.Caller, at t: Instant) {
        guard let session, session.caller == caller else { return }
        let p = session.provider
        p.stop()
        self.session = nil
        let gone = "content provider \(session.name) disconnected (\(p.drawn) tiles drawn, \(p.timeouts) timed out)"
        guard grace > .zero else {
            logger.notice("\(gone): showing the configured content")
            restore()
            return
        }
        // Its tiles stay in the store: the frame a visitor was looking at, not a blank panel,
        // while the app restarts.
        graceEnds = (t + grace, session.name)
        logger.notice("\(gone): its last frame stays for up to \(grace.inSeconds.brief) s, until it comes back")
    }

    private func serving(_ caller: ControlServer.Caller, _ command: String) throws(ControlError) -> Session {
        guard let session, session.caller == caller else {
            throw .failed("'\(command)': this connection is not the content provider (send provide first)")
        }
        return session
    }
}
