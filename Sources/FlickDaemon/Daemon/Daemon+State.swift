/// The saved state: when it is written is `StateSaving`'s; the daemon arms the timer it asks
/// for and says a failed save once.
extension Daemon {
    func scheduleStateSave(_ change: StateSaving.Change) {
        guard let at = stateSaving?.changed(change, at: loop.now) else { return }
        stateTimer?.schedule(at: at)
    }

    func saveState() {
        guard let stateSaving else { return }
        do {
            let written = try stateSaving.save(at: loop.now) {
                let v = pipeline.scrollView
                return content.persistedState(offset: v.contentOffset, zoomScale: v.zoomScale)
            }
            if written { stateWarned = false }
        } catch {
            // A missing or read-only folder fails every save: say it once, not at every save.
            if !stateWarned { logger.report(.warning, "state (said once until a save succeeds): ", error) }
            stateWarned = true
        }
    }
}
