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
/// | shows no frame of it within `showWait` (5 s) | a warning and `STATUS=` saying what flickd waits for and the likely cause; `ready` when it is shown |
///
/// Each runs from a timer of its own, armed by the window's callbacks: never inside the
/// presenter's call that read the event.
final class WaylandDisplay {
    /// How long the first frame may wait to be shown before flickd says what it waits for.
    static let defaultShowWait = Duration.seconds(5)

    private unowned let daemon: Daemon
    private weak var output: WaylandOutput?
    private var timer: TimerSource?
    private var showTimer: TimerSource?

    /// Follows `output` for `daemon`; the window keeps this object through its callbacks.
    /// - Parameter showWait: how long after now, on the loop's clock, a window not shown yet
    ///   is said to be waited for.
    init(daemon: Daemon, output: WaylandOutput, showWait: Duration = WaylandDisplay.defaultShowWait) throws {
        self.daemon = daemon
        self.output = output
        timer = try daemon.loop.addTimer(context: "wayland window") { [unowned self] t in self.follow(at: t) }
        showTimer = try daemon.loop.addTimer(context: "wayland window shown") { [unowned self] _ in self.checkShown(after: showWait) }
        showTimer?.schedule(at: daemon.loop.now + showWait)
        output.sizeChanged = { [self] in self.timer?.schedule(at: self.daemon.loop.now) }
        output.lost = { [unowned daemon] error in
            daemon.logger.report(.critical, "display: ", error)
            daemon.notifier.status("display: \(error)")
            daemon.loop.exit(code: error.kind.rawValue)
        }
    }

    /// A compositor that configures the window but never shows it (no frame callback, no
    /// presentation) leaves flickd not ready, silently: a unit waiting for `READY=1` would hang
    /// with nothing to read. Said once, in the journal and `STATUS=`; `ready` follows if it is
    /// shown later.
    private func checkShown(after wait: Duration) {
        guard !daemon.ready, let output else { return }
        let hasSeat = output.connection.global("wl_seat") != nil
        let text = Self.notShown(after: wait, socket: output.connection.socket, hasSeat: hasSeat)
        daemon.logger.warning("display: \(text)")
        daemon.notifier.status("display: \(text)")
    }

    /// What flickd waits for when its window is not shown `wait` after start, and why that
    /// is likely: a compositor without a seat under a kiosk shell (Weston's kiosk-shell shows
    /// a window only when it activates it for a seat), else a window not on screen.
    static func notShown(after wait: Duration, socket: String, hasSeat: Bool) -> String {
        let cause = hasSeat
            ? "the window is not on screen (minimised, on another workspace or output, or a shell that does not show it there)"
            : "the compositor offers no seat (no input device), and a kiosk shell shows a window only when it activates it for "
                + "a seat: Weston's kiosk-shell never does then (use its desktop-shell, cage, or give it an input device)"
        return "waiting for the compositor at \(socket) to show the window: no frame of it shown \(wait.inSeconds.brief) s after "
            + "it was configured; likely \(cause); not ready until it is shown (docs/wayland.md)"
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
