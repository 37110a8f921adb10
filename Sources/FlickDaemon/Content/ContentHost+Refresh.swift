import FlickCore
import FlickDisplay
import Logging

/// Content kept fresh: read again when it changed on disk (a reload, or the watch), and what
/// `load` chose kept with the saved state.
extension ContentHost {
    /// Reads the wanted content again if it changed on disk since it was shown (and was not
    /// refused as it is now). Gone, or broken, the content on screen stays and `contentError`
    /// says why.
    func refresh(because why: String) {
        guard let path = wanted else { return }
        guard let signature = ContentIdentity.signature(of: path) else {
            let error = "\(path): no such file or folder (deleted?); keeping \(name ?? "no content")"
            if contentError != error { logger.error("content: \(error)") }
            contentError = error
            refusedSignature = nil
            return
        }
        guard signature != shownSignature, signature != refusedSignature else { return }
        logger.notice("content: \(path) \(why): reading it again")
        try? show(path: path, configuration: configuration, origin: .refreshed)
    }

    /// Watches the wanted content with `content.watch` on, none otherwise; said once when the
    /// watch cannot be had (the content shows all the same, read again at a reload).
    func rewatch() {
        let target = configuration.watchContent ? wanted : nil
        if let watch, watch.path == target {
            watch.settle = configuration.watchSettle
            return
        }
        watch = nil
        guard let target else { return }
        do {
            watch = try ContentWatch(path: target, settle: configuration.watchSettle)
        } catch {
            logger.report(.warning, "content: not watching \(target) for changes (a reload reads it again): ", error)
        }
    }

    /// Where the view goes on content that replaced the content it showed: the same offset and
    /// zoom (clamped into the new content by the model), and for pages, the same place on the
    /// same page (the one under the view's top-left corner; the same file, wherever pages before
    /// it went, else the same index or the last).
    static func position(_ view: (offset: Point, zoomScale: Double), from old: [Content.Page],
                         onto new: [Content.Page]) -> (offset: Point, zoomScale: Double) {
        guard old.count > 1 || new.count > 1, let last = new.indices.last else { return view }
        let z = view.zoomScale
        let corner = Point(x: view.offset.x / z, y: view.offset.y / z)
        guard let was = old.firstIndex(where: { page in
            let f = page.frame
            return corner.x >= f.minX && corner.x < f.maxX && corner.y >= f.minY && corner.y < f.maxY
        }) else { return view }
        // The same page is the same file where pages come from files (pages before it may have
        // gone), else the same index.
        let source = old[was].source
        let now = source.flatMap { source in new.firstIndex { $0.source == source } } ?? min(was, last)
        let from = old[was].frame.origin, to = new[now].frame.origin
        return (Point(x: view.offset.x + (to.x - from.x) * z, y: view.offset.y + (to.y - from.y) * z), z)
    }

    // MARK: What load chose, across restarts

    /// The state to save for the view at `offset` and `zoomScale`: which content it is on, under
    /// which home view, and what `load` chose.
    public func persistedState(offset: Point, zoomScale: Double) -> PersistedState {
        PersistedState(content: identity, offsetX: offset.x, offsetY: offset.y, zoomScale: zoomScale,
                       loaded: loaded?.path, loadedUnder: loaded?.under, home: configuration.homeView)
    }

    /// What `load` chose before a restart, if the config's `content.path` is still the one it was
    /// chosen under and the path is still allowed; otherwise nil, said, and dropped from the
    /// saved state so a later config cannot bring it back.
    func restoredLoad() -> String? {
        guard let stateStore, case let (saved?, _) = stateStore.load(), let path = saved.loaded else { return nil }
        var forget = saved
        forget.loaded = nil
        forget.loadedUnder = nil
        guard saved.loadedUnder == configuration.contentPath else {
            logger.notice("content: content.path changed since load chose \(path): the config's content")
            try? stateStore.save(forget)
            return nil
        }
        do {
            let resolved = try ContentLoader.allowed(path, directories: configuration.loadDirectories)
            loaded = (resolved, configuration.contentPath)
            logger.info("content: \(resolved), chosen with load before the restart")
            return resolved
        } catch {
            logger.report(.warning, "content: what load chose before the restart is not shown again: ", error)
            try? stateStore.save(forget)
            return nil
        }
    }
}
