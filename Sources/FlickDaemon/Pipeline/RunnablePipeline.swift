import FlickCore
import FlickDisplay
import FlickSystem

/// What the runners drive — `LiveRunner` on sd-event, `VirtualRunner` on virtual time: fds and
/// a deadline to wait on, one call that does everything due, and the frame presenter through
/// which every frame goes. `Pipeline` is one (`flickd run`, `replay`, `events`, the tests);
/// `CalibrationPipeline` (`flickd calibrate`) is the other, so a bring-up tool paces its
/// frames and waits on its fds exactly as the daemon does.
public protocol RunnablePipeline: AnyObject {
    /// Where touches come from: its name names the fd watches, and on virtual time its deadline
    /// tells an input frame from other wake-ups.
    var input: any TouchSource { get }
    /// The one owner of what is shown when: on virtual time its frame in flight tells a
    /// presentation from other wake-ups, and replaced content goes once nothing watches its fds.
    var presenter: FramePresenter { get }
    /// The latest time the pipeline has been told of: a virtual run starts there.
    var now: Instant { get }
    /// Fds the loop watches for readability; they may change after `dispatch(now:)`.
    var fileDescriptors: [Descriptor] { get }
    /// When the loop must call `dispatch(now:)` next without an fd, if ever. Nil means idle:
    /// no timer live, and the end of a virtual run.
    var nextDeadline: Instant? { get }
    /// Does everything due at `t`.
    func dispatch(now t: Instant)
}

extension Pipeline: RunnablePipeline {}
