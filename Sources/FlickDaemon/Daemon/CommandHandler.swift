import FlickControl
import FlickCore
import FlickDisplay

/// Answers control-socket commands against the session: programmatic scrolling and zooming,
/// pages, status, snapshots and reload. One request, one reply; the model's delegate events
/// follow through the session's publisher like any gesture's.
public final class CommandHandler {
    private let session: Session
    private let display: DisplayTarget
    /// Where `snapshot` may write; nil turns snapshots off.
    public var snapshotDirectory: String?
    /// Extra status fields: the input device(s) in use.
    public var deviceName: () -> String? = { nil }
    /// The display's one-line description.
    public var displayName: String?
    /// Reloads config and content; returns an error text, or nil when it applied.
    public var reload: () -> String? = { nil }
    /// Loads other content from a path; returns an error text, or nil when it is shown.
    public var load: (String) -> String? = { _ in "loading content is not available" }
    /// Called after a command changed the session, so the loop re-arms its timer.
    public var didChange: () -> Void = {}
    /// The clock commands are applied at (the loop's; tests inject their own).
    public var clock: () -> Instant = EventLoop.monotonicNow

    /// Creates a handler over a session and its display.
    public init(session: Session, display: DisplayTarget) {
        self.session = session
        self.display = display
    }

    /// Answers one command (`subscribe` needs only the acknowledgement: the server keeps the list).
    public func handle(_ command: ControlCommand, id: Int?) -> ControlMessage {
        do {
            let message = try perform(command, id: id)
            didChange()
            return message
        } catch {
            return .failure(id: id, error)
        }
    }

    private func perform(_ command: ControlCommand, id: Int?) throws(ControlError) -> ControlMessage {
        let now = clock()
        switch command {
        case .status:
            return .reply(id: id, status: status())
        case let .setOffset(x, y, animated):
            try update(now) { v, t throws(ScrollViewError) in
                try v.setContentOffset(Point(x: x, y: y), animated: animated, at: t)
            }
        case let .scrollRectToVisible(x, y, width, height, animated):
            try update(now) { v, t throws(ScrollViewError) in
                try v.scrollRectToVisible(Rect(x: x, y: y, width: width, height: height), animated: animated, at: t)
            }
        case let .setZoomScale(scale, animated):
            try update(now) { v, t throws(ScrollViewError) in try v.setZoomScale(scale, animated: animated, at: t) }
        case let .zoomToRect(x, y, width, height, animated):
            try update(now) { v, t throws(ScrollViewError) in
                try v.zoom(to: Rect(x: x, y: y, width: width, height: height), animated: animated, at: t)
            }
        case let .showPage(page, animated):
            let pages = display.content?.pages ?? []
            guard !pages.isEmpty else { throw .failed("no content is loaded") }
            guard pages.indices.contains(page) else {
                throw .badField(command: "page", field: "page", expected: "from 0 to \(pages.count - 1)")
            }
            let origin = pages[page].frame.origin
            try update(now) { v, t throws(ScrollViewError) in
                let target = v.clampedOffset(Point(x: origin.x * v.zoomScale, y: origin.y * v.zoomScale))
                try v.setContentOffset(target, animated: animated, at: t)
            }
        case .scrollToTop:
            _ = session.update(at: now) { v in v.scrollToTop(at: now) }
        case .stop:
            session.update(at: now) { v in v.stopScrollingAndZooming(at: now) }
        case .flashIndicators:
            session.update(at: now) { v in v.flashScrollIndicators(at: now) }
        case .subscribe:
            return .reply(id: id)
        case .snapshot(let name):
            try snapshot(named: name)
            return .reply(id: id)
        case .reload:
            if let problem = reload() { throw .failed(problem) }
            return .reply(id: id)
        case .load(let path):
            if let problem = load(path) { throw .failed(problem) }
            return .reply(id: id)
        }
        // A command that moves the view answers with where it goes, as the model applied it
        // (zoom clamped to its limits, a rectangle's offset clamped into the bounds).
        let destination = session.recognizer.scrollView.destination
        return .reply(id: id, applied: destination.offset, zoomScale: destination.zoomScale)
    }

    private func update(_ now: Instant,
                        _ body: (inout ScrollView, Instant) throws(ScrollViewError) -> Void) throws(ControlError) {
        do {
            try session.update(at: now) { v in try body(&v, now) }
        } catch let error as ScrollViewError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Writes the frame on screen as PNG into the snapshot folder. The name must be a plain file
    /// name: a client never chooses a path outside that folder.
    private func snapshot(named name: String) throws(ControlError) {
        guard let directory = snapshotDirectory else {
            throw .failed("snapshots are off: start flickd with --snapshot-dir DIR")
        }
        guard !name.contains("/"), name != ".", name != "..", name.hasSuffix(".png") else {
            throw .badField(command: "snapshot", field: "path", expected: "a file name ending in .png (written into \(directory))")
        }
        guard let buffer = display.output.snapshot() else { throw .failed("the display is closed") }
        do {
            try PNGCodec.write(buffer, to: directory + "/" + name)
        } catch {
            throw .failed("\(error)")
        }
    }

    /// The view's state, the page in view and what is in use.
    public func status() -> ControlStatus {
        let v = session.recognizer.scrollView
        return ControlStatus(
            offset: [v.contentOffset.x, v.contentOffset.y], zoomScale: v.zoomScale,
            contentSize: [v.contentSize.width, v.contentSize.height],
            boundsSize: [v.boundsSize.width, v.boundsSize.height],
            tracking: v.isTracking, dragging: v.isDragging, decelerating: v.isDecelerating,
            zooming: v.isZooming, scrolling: v.isScrolling, page: currentPage(v),
            device: deviceName(), content: contentName,
            display: displayName, frames: display.renderLoop.committedFrameCount)
    }

    /// The content's name for `status`.
    public var contentName: String?

    /// The page whose frame holds the viewport's centre, if the content has pages.
    func currentPage(_ v: ScrollView) -> Int? {
        guard let pages = display.content?.pages, !pages.isEmpty else { return nil }
        let centre = Point(x: (v.contentOffset.x + v.boundsSize.width / 2) / v.zoomScale,
                           y: (v.contentOffset.y + v.boundsSize.height / 2) / v.zoomScale)
        return pages.firstIndex { page in
            let f = page.frame
            return centre.x >= f.minX && centre.x < f.maxX && centre.y >= f.minY && centre.y < f.maxY
        }
    }
}
