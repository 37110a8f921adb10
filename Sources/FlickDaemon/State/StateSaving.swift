import FlickCore
import FoundationEssentials

/// When the saved state is written. Each write is a small synced one (a page, `StateSlots`),
/// the pattern that wears out an SD card, so the state is written only when what a restart needs
/// has changed, and once the view is at rest:
/// - with `state.restore = "home"` a restart starts at the home view, so where the view is does
///   not matter: only a content change (what `load` chose) is saved, and a gesture writes nothing;
/// - with `"view"`, the view at rest too, `state.save_delay_ms` after the last change and no
///   sooner than `state.save_interval_s` after the last write or the start (which may have
///   written it: `ContentHost.restoredLoad`), so continuous gestures write at most
///   3600 / `save_interval_s` times in any hour, the first hour included;
/// - whatever is pending is written at stop, so a clean restart loses nothing; a power cut
///   loses the view changes since the last write;
/// - bytes equal to those last written (or found in the file at start) are not written again,
///   and nothing pending means nothing written: an idle kiosk writes nothing.
final class StateSaving {
    /// What changed.
    enum Change {
        /// The view came to rest somewhere else.
        case view
        /// What is shown was chosen (`load`): saved after `state.save_delay_ms`, whatever the
        /// interval, since a restart needs it.
        case content
    }

    let store: StateStore
    let restore: StateRestore
    private var delay: Duration
    private var interval: Duration
    private let write: (Data) throws -> Void
    /// The bytes of the file as last written, or as read before the first save (after the
    /// start, which may have rewritten it: `ContentHost.restoredLoad`).
    private var lastBytes: Data?
    private var fileRead = false
    /// The last write, or the start.
    private var lastWrite: Instant
    private var pending = false
    private var contentPending = false

    /// Saving into `store` as `configuration` says, from a start at `start`; `write` writes the
    /// file (the store's atomic write unless a test observes the writes).
    init(store: StateStore, configuration: Configuration, start: Instant, write: ((Data) throws -> Void)? = nil) {
        self.store = store
        lastWrite = start
        restore = configuration.stateRestore
        delay = configuration.stateSaveDelay
        interval = configuration.stateSaveInterval
        self.write = write ?? { try store.write($0) }
    }

    /// A reload's delay and interval (`state.restore` applies at the next start).
    func apply(_ configuration: Configuration) {
        delay = configuration.stateSaveDelay
        interval = configuration.stateSaveInterval
    }

    /// Notes `change` at `now`: returns when to save, or nil when a restart does not need it.
    func changed(_ change: Change, at now: Instant) -> Instant? {
        switch (change, restore) {
        case (.view, .home):
            return nil
        case (.view, .view):
            pending = true
        case (.content, _):
            pending = true
            contentPending = true
        }
        let soonest = contentPending ? now : lastWrite + interval
        return max(now + delay, soonest)
    }

    /// Writes the state `state()` gives if a change is pending and its bytes are not those last
    /// written. A failed write is not retried before the next change.
    /// - Returns: whether the file was written.
    /// - Throws: what `write` threw (the store's: `SystemError` naming the step and the path).
    @discardableResult
    func save(at now: Instant, _ state: () -> PersistedState) throws -> Bool {
        guard pending else { return false }
        pending = false
        contentPending = false
        if !fileRead {
            lastBytes = store.savedPayload()
            fileRead = true
        }
        let data = StateStore.encoded(state())
        guard data != lastBytes else { return false }
        lastWrite = now
        try write(data)
        lastBytes = data
        return true
    }
}
