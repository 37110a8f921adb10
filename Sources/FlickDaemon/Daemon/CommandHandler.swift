import FlickControl
import FlickCore
import FlickDisplay
import FoundationEssentials

/// What commands need from the service around the pipeline: its clock, names for `status`,
/// and the config it reloads. The daemon is it; without one (tests, fuzzing) commands run at the
/// pipeline's time and `reload` is unavailable. What is shown is the `ContentHost`'s.
public protocol CommandContext: AnyObject {
    /// The time commands are applied at (the loop's clock).
    var now: Instant { get }
    /// The input device(s) in use.
    var deviceName: String? { get }
    /// The display's one-line description.
    var displayName: String? { get }
    /// The event loop thread's scheduling (`SCHED_RR 1`), and why not real time if refused.
    var loopScheduling: String? { get }
    /// Re-reads the config file; throws what is wrong with it (the config in force stays).
    /// - Returns: what was applied.
    func reload() throws -> ConfigReload
}

/// What a reload applied, for `reload`'s reply: the file read (nil: none, the built-in
/// defaults) and the keys that changed.
public struct ConfigReload: Hashable, Sendable {
    public var config: String?
    public var changes: [ConfigChanges.Change]

    public init(config: String?, changes: [ConfigChanges.Change]) {
        self.config = config
        self.changes = changes
    }
}

/// Answers control-socket commands against the pipeline: programmatic scrolling and zooming,
/// pages, status, snapshots and reload. One request, one reply; the model's delegate events
/// follow through the pipeline's sink like any gesture's.
public final class CommandHandler {
    let pipeline: Pipeline
    /// The service around the pipeline, if any.
    public weak var context: (any CommandContext)?
    /// What is shown and where it came from (`load`, content providers, `status`), if anything
    /// loads content; without it those commands are unavailable.
    public weak var content: ContentHost?
    /// Where `snapshot` may write; nil turns snapshots off.
    public var snapshotDirectory: String?

    /// Creates a handler over a pipeline.
    public init(pipeline: Pipeline, context: (any CommandContext)? = nil) {
        self.pipeline = pipeline
        self.context = context
    }

    /// Answers one command (`subscribe` needs only the acknowledgement: the server keeps the list).
    /// - Parameter file: a file the client passed with the request (`snapshot` writes into it);
    ///   the caller closes it.
    public func handle(_ command: ControlCommand, id: Int?, file: Int32? = nil,
                       caller: ControlServer.Caller = ControlServer.Caller(id: 0)) -> ControlMessage {
        do {
            return try perform(command, id: id, file: file, caller: caller)
        } catch {
            return .failure(id: id, error)
        }
    }

    /// The pages of the content shown.
    private var pages: [Content.Page] { pipeline.presenter.composer.content?.pages ?? [] }

    private func perform(_ command: ControlCommand, id: Int?, file: Int32?,
                         caller: ControlServer.Caller) throws(ControlError) -> ControlMessage {
        let now = context?.now ?? pipeline.now
        switch command {
        case .status:
            return .reply(id: id, status: status())
        case let .setOffset(x, y, animated):
            let asked = Point(x: x, y: y)
            try update(now) { v, t throws(ScrollViewError) in
                // The model keeps UIKit's unclamped setContentOffset; the protocol promises the
                // bounds, since an offset past them shows nothing until a touch springs it back.
                guard asked.isFinite else { throw .invalidPoint(name: "content offset", value: asked) }
                try v.setContentOffset(v.clampedOffset(asked), animated: animates(animated), at: t)
            }
        case let .scrollRectToVisible(x, y, width, height, animated):
            try update(now) { v, t throws(ScrollViewError) in
                try v.scrollRectToVisible(Rect(x: x, y: y, width: width, height: height), animated: animates(animated), at: t)
            }
        case let .setZoomScale(scale, animated):
            try update(now) { v, t throws(ScrollViewError) in try v.setZoomScale(scale, animated: animates(animated), at: t) }
        case let .zoomToRect(x, y, width, height, animated):
            try update(now) { v, t throws(ScrollViewError) in
                try v.zoom(to: Rect(x: x, y: y, width: width, height: height), animated: animates(animated), at: t)
            }
        case let .showPage(page, animated):
            let pages = pages
            guard !pages.isEmpty else { throw .failed("no content is loaded") }
            guard pages.indices.contains(page) else {
                throw .badField(command: "page", field: "page", expected: "from 0 to \(pages.count - 1)")
            }
            let origin = pages[page].frame.origin
            try update(now) { v, t throws(ScrollViewError) in
                let target = v.clampedOffset(Point(x: origin.x * v.zoomScale, y: origin.y * v.zoomScale))
                try v.setContentOffset(target, animated: animates(animated), at: t)
            }
        case .scrollToTop(let animated):
            // An app asking for what the switch forbids hears why, rather than an ok that moved nothing.
            guard pipeline.update(at: now, { v in v.scrollToTop(animated: animates(animated), at: now) }) else {
                throw .failed("scrolls-to-top is off (scroll.scrolls_to_top, or the scrolls-to-top command): "
                              + "set-offset moves the view instead")
            }
        case .stop:
            pipeline.update(at: now) { v in v.stopScrollingAndZooming(at: now) }
        case .flashIndicators:
            pipeline.update(at: now) { v in v.flashScrollIndicators(at: now) }
        case .touchOverlay(let on):
            pipeline.touchOverlay = on
            return .reply(id: id)
        case let .setSwitch(which, on):
            // Until the next reload, as touch-overlay; a touch in progress keeps what it began with.
            var gestures = pipeline.recognizer.configuration
            switch which {
            case .scrollEnabled: pipeline.update(at: now) { v in v.isScrollEnabled = on }
            case .scrollsToTop: pipeline.update(at: now) { v in v.scrollsToTop = on }
            case .delaysContentTouches: gestures.delaysContentTouches = on
            case .canCancelContentTouches: gestures.canCancelContentTouches = on
            }
            if gestures != pipeline.recognizer.configuration { pipeline.setGestureConfiguration(gestures) }
            return .reply(id: id)
        case .subscribe:
            return .reply(id: id)
        case .snapshot(let name):
            try snapshot(named: name, into: file)
            return .reply(id: id)
        case .reload:
            guard let context else { throw .failed("reloading is not available") }
            let applied: ConfigReload
            do { applied = try context.reload() } catch { throw .failed("\(error)") }
            var reply = ControlMessage.reply(id: id)
            reply.config = applied.config
            reply.changes = applied.changes.map(\.line)
            return reply
        case .load(let path):
            guard let content else { throw .failed("loading content is not available") }
            do { try content.load(path) } catch { throw .failed("\(error)") }
            return .reply(id: id)
        case .provide(let declared):
            guard let content else { throw .failed("content providers are not available") }
            var reply = ControlMessage.reply(id: id)
            reply.provider = try content.provide(declared, pool: file, caller: caller)
            return reply
        case let .tile(request, drawn):
            guard let content else { throw .failed("content providers are not available") }
            try content.answerTile(request, drawn: drawn, caller: caller)
            return .reply(id: id)
        case let .invalidate(x, y, width, height):
            guard let content else { throw .failed("content providers are not available") }
            try content.invalidate(x: x, y: y, width: width, height: height, caller: caller)
            return .reply(id: id)
        case .documentError(let failure):
            guard let content else { throw .unknownCommand("documentError") }
            try content.documentError(failure, caller: caller)
            return .reply(id: id)
        case let .links(page, links):
            guard let content else { throw .unknownCommand("links") }
            try content.documentLinks(page: page, links: links, caller: caller)
            return .reply(id: id)
        case .display(let state):
            try display(state, at: now)
            return .reply(id: id)
        case .claim(let contact):
            if let refusal = pipeline.claim(ContactID(contact), at: now) {
                throw .failed(ErrorContext(source: "'claim'", key: "contact \(contact)", reason: "\(refusal)").rendered)
            }
            return .reply(id: id)
        }
        // A command that moves the view answers with where it goes, as the model applied it
        // (zoom clamped to its limits, an offset clamped into the bounds at that zoom).
        let destination = pipeline.scrollView.destination
        return .reply(id: id, applied: destination.offset, zoomScale: destination.zoomScale)
    }

    /// Whether a command asking to animate does: not with no panel, where no frame would step
    /// the animation, so `status` (and the panel that comes) see the view where it goes at once.
    private func animates(_ asked: Bool) -> Bool { asked && pipeline.isConnected }

    private func update(_ now: Instant,
                        _ body: (inout ScrollView, Instant) throws(ScrollViewError) -> Void) throws(ControlError) {
        do {
            try pipeline.update(at: now) { v in try body(&v, now) }
        } catch let error as ScrollViewError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Writes the frame on screen as PNG, what the commands before it did in it even before the
    /// panel shows that (`Pipeline.snapshot()`): into the file the client passed (a regular file it
    /// opened for writing, so it chooses the path with its own permissions), else as `name` in
    /// the snapshot folder — a plain file name, so a client never writes outside that folder.
    private func snapshot(named name: String?, into file: Int32?) throws(ControlError) {
        guard let buffer = pipeline.snapshot() else { throw .failed("the display is closed") }
        if let file {
            do { try PNGCodec.write(buffer, into: file, name: "the snapshot's file") } catch { throw .failed("\(error)") }
            return
        }
        guard let directory = snapshotDirectory else { throw .failed("snapshots are off: no snapshot folder") }
        guard let name else {
            throw .missingField(command: "snapshot", field: "path (or a file passed with the request, as flickctl does)")
        }
        guard !name.contains("/"), name != ".", name != "..", name.hasSuffix(".png") else {
            throw .badField(command: "snapshot", field: "path", expected: "a file name ending in .png (written into \(directory))")
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do { try PNGCodec.write(buffer, to: directory + "/" + name) } catch { throw .failed("\(error)") }
    }

    /// The view's state, the page in view and what is in use.
    public func status() -> ControlStatus {
        let v = pipeline.scrollView
        var status = ControlStatus(
            offset: [v.contentOffset.x, v.contentOffset.y], zoomScale: v.zoomScale,
            contentSize: [v.contentSize.width, v.contentSize.height],
            boundsSize: [v.boundsSize.width, v.boundsSize.height],
            tracking: v.isTracking, dragging: v.isDragging, decelerating: v.isDecelerating,
            zooming: v.isZooming, scrolling: v.isScrolling, zoomBouncing: v.isZoomBouncing, page: currentPage(v),
            device: context?.deviceName, content: content?.name,
            display: context?.displayName, frames: pipeline.presenter.composer.committedFrameCount)
        status.pageCount = pages.isEmpty ? nil : pages.count
        status.power = pipeline.power?.state.rawValue
        status.powerNote = pipeline.power?.startNote
        if let power = pipeline.power, power.isOff { status.powerReason = power.machine.schedule?.offReason(at: context?.now ?? pipeline.now) }
        status.building = content?.pyramidBuilding
        status.provider = content?.providerStatus
        status.document = content?.documentStatus
        status.contentError = content?.contentError
        status.loop = context?.loopScheduling
        let drm = DRMCallCounts.now
        if drm.total > 0 {
            status.drm = ControlDRMStatus(framebuffersAdded: drm.framebuffersAdded, framebuffersRemoved: drm.framebuffersRemoved,
                                          commits: drm.commits, other: drm.other, pannedFrames: drm.pannedFrames)
        }
        if let tiles = pipeline.tiles {
            let grid = tiles.source.grid
            status.tiles = ControlTileStatus(levels: grid.maxLevel - tiles.source.lowestLevel + 1, tileSize: grid.tileSize,
                                             cacheBytes: tiles.cache.usedBytes, cacheBudgetBytes: tiles.cache.budgetBytes,
                                             cached: tiles.cache.count, pending: tiles.pendingCount,
                                             failed: tiles.failed.count, frames: tiles.frames,
                                             framesFromCoarser: tiles.framesFromCoarser,
                                             bandBytes: pipeline.presenter.composer.bandBytes,
                                             framesWithHoles: tiles.framesWithHoles)
        }
        return status
    }

    /// The page whose frame holds the viewport's centre, if the content has pages.
    func currentPage(_ v: ScrollView) -> Int? {
        guard !pages.isEmpty else { return nil }
        let centre = Point(x: (v.contentOffset.x + v.boundsSize.width / 2) / v.zoomScale,
                           y: (v.contentOffset.y + v.boundsSize.height / 2) / v.zoomScale)
        return pages.firstIndex { page in
            let f = page.frame
            return centre.x >= f.minX && centre.x < f.maxX && centre.y >= f.minY && centre.y < f.maxY
        }
    }
}
