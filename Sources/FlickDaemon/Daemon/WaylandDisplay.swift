import FlickCore
import FlickDisplay
import FlickWayland
import Logging

/// The Wayland window's side of the daemon (`--display wayland`, docs/wayland.md):
///
/// | the compositor                        | then                                                      |
/// |---------------------------------------|-----------------------------------------------------------|
/// | configures another size, or a scale   | the size adopted and the content laid out again for it (`PipelineBuilder.attach`, the path a new monitor takes), said once |
/// | configures the same size              | nothing (the window acknowledged it at once)              |
/// | asks the window to close              | the daemon stops, exit 0 (a desktop's close button)       |
/// | goes away (the connection breaks)     | the daemon ends with the error, exit 69; the unit restarts it, and a compositor that is back is found then |
///
/// Each runs from a timer of its own, armed by the window's callbacks: never inside the
/// presenter's call that read the event.
final class WaylandDisplay {
    private unowned let daemon: Daemon
    private weak var output: WaylandOutput?
    private var timer: TimerSource?

    /// Follows `output` for `daemon`; the window keeps this object through its callbacks.
    init(daemon: Daemon, output: WaylandOutput) throws {
        self.daemon = daemon
        self.output = output
        timer = try daemon.loop.addTimer(context: "wayland window") { [unowned self] t in self.follow(at: t) }
        output.sizeChanged = { [self] in self.timer?.schedule(at: self.daemon.loop.now) }
        output.lost = { [unowned daemon] error in
            daemon.logger.report(.critical, "display: ", error)
            daemon.notifier.status("display: \(error)")
            daemon.loop.exit(code: error.kind.rawValue)
        }
    }

    private func follow(at t: Instant) {
        guard let output else { return }
        if output.closeRequested {
            daemon.logger.notice("display: the compositor asked the window to close: stopping")
            daemon.loop.exit(code: 0)
            return
        }
        guard output.wantsNewSize else { return }
        let old = output.size
        output.adoptConfiguredSize()
        let line = DisplayOpener.describe(output)
        do {
            try PipelineBuilder.attach(output, configuration: daemon.configuration, to: daemon.pipeline,
                                       note: "display: \(line) (was \(old))", at: t)
        } catch {
            daemon.logger.report(.error, "display: the view does not fit the window's new size, kept as it was: ", error)
        }
        daemon.display = line
        daemon.notifier.status("display: \(line)")
        daemon.runner.rearm()
    }
}
