import FlickCore
import FlickDisplay

/// What the runners drive — `LiveRunner` on sd-event, `VirtualRunner` on virtual time: a
/// passive component (fds and a deadline to wait on, one call that does everything due) with
/// touches coming in and the frame presenter through which every frame goes. `Pipeline` is one (`flickd run`, `replay`, `events`, the tests);
/// `CalibrationPipeline` (`flickd calibrate`) is the other, so a bring-up tool paces its
/// frames and waits on its fds exactly as the daemon does.
public protocol RunnablePipeline: PassiveComponent {
    /// Where touches come from: its name names the fd watches, and on virtual time its deadline
    /// tells an input frame from other wake-ups.
    var input: any TouchSource { get }
    /// The one owner of what is shown when: on virtual time its frame in flight tells a
    /// presentation from other wake-ups.
    var presenter: FramePresenter { get }
    /// The latest time the pipeline has been told of: a virtual run starts there.
    var now: Instant { get }
}

extension Pipeline: RunnablePipeline {}
