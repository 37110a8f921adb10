import FlickCore
import FlickDisplay

/// Where content starts: its home view, said in the journal as the zoom it comes to, or the
/// view saved for it, when `state.restore` asks for that and the home view it was saved under
/// is the one configured now.
extension ContentHost {
    /// Says in the journal the zoom `content` starts at and its limits on a view of `view`
    /// pixels (not for the placeholder, which is no content of the integrator's).
    func sayZoom(of content: Content, name: String, view: PixelSize) {
        guard !name.hasPrefix("placeholder"),
              let zoom = try? ZoomSummary(configuration: configuration, content: content.size, view: view.size) else { return }
        logger.info("\(zoom.line)")
    }

    /// The view's saved position, if it was saved for what shows now under the home view
    /// configured now and `state.restore` is `"view"` (said in the journal either way; at start
    /// an unreadable state file too). `provider` names a provider's content shown again.
    func savedPosition(for provider: String?) -> (offset: Point, zoomScale: Double)? {
        guard let stateStore else { return nil }
        let (saved, warning) = stateStore.load()
        if let warning, provider == nil { logger.warning("\(warning)") }
        guard let saved, saved.content == identity else { return nil }
        let on = provider.map { " for \($0)" } ?? ""
        switch stateRestore {
        case .home:
            logger.info("state: starting at the home view\(on), not the view saved (state.restore = \"home\")")
            return nil
        case .view:
            guard saved.home == configuration.homeView else {
                let was = saved.home ?? "a home view not saved with it"
                logger.notice("state: the view saved\(on) was under \(was), not \(configuration.homeView): starting at the home view")
                return nil
            }
        }
        logger.info("state: restored offset (\(saved.offsetX.brief), \(saved.offsetY.brief)) zoom \(saved.zoomScale.brief)\(on)")
        return (Point(x: saved.offsetX, y: saved.offsetY), saved.zoomScale)
    }
}
