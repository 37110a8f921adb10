import FlickCore
import FlickSystem

/// A part of the service that waits on nothing itself (docs/ARCHITECTURE.md, "One loop, passive parts"): it says which fds and
/// which time should wake it, and the one loop calls `dispatch(now:)` when one does. The
/// pipeline has this shape; `LiveRunner` watches components of it beside the pipeline (the
/// content host).
public protocol PassiveComponent: AnyObject {
    /// Fds that wake it when readable; they may change after any call into it.
    var fileDescriptors: [Descriptor] { get }
    /// When it must be dispatched without an fd, if ever.
    var nextDeadline: Instant? { get }
    /// Does everything due at `now`.
    func dispatch(now: Instant)
}
