import FlickCore

/// Where everything the pipeline has to say goes, in order: one typed sink instead of a
/// closure per kind. The daemon's sink is the journal, the control socket's subscribers and the
/// state store; `flickd replay`'s is standard output; tests keep what they are told.
public protocol PipelineSink: AnyObject {
    /// Everything one input, timer, frame step or command caused, in order, with the scroll
    /// view as it is after them: content touches, delegate messages, gestures for the journal,
    /// diagnostics and, while tracing, every machine's steps (the frame presenter's included).
    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView)
    /// A frame reached the screen at `vblank` (the daemon is ready after the first).
    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant)
    /// Something worth a line in the log that is no gesture: the display refusing a frame,
    /// attract mode sending the view home.
    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice)
}

extension Pipeline {
    /// What the pipeline notes besides its outputs.
    public enum Notice: Hashable, Sendable, CustomStringConvertible {
        /// The display could not show a frame, or gave up its overlay planes.
        case display(String)
        /// A panel was attached (a monitor connected, or another mode) or taken away: said once
        /// per change (`Pipeline.attach(_:indicatorStyle:at:)`).
        case output(String)
        /// Attract mode sent the view home after `seconds` without a touch or command.
        case attractMode(seconds: Double)
        /// A tile of the content could not be made (missing, truncated, corrupt, wrong size):
        /// noted once per file; that part is drawn from a coarser level.
        case tile(String)
        /// A page of a folder is over the pixel budget or the file size limit: noted once per
        /// file; it is shown from a reduced decode.
        case reducedPage(String)
        /// An app's changed tiles on screen first had to wait their turn
        /// (`content.provider_redraw_hz`): noted once per content.
        case redrawsPaced
        /// Something the display cannot do here and what is done instead, said once: no fault
        /// (DPMS under a compositor, whose monitor is not flickd's to turn off).
        case unavailable(String)
        /// The panel went on, dim or off (docs/power.md): the `power` event; `why` says what keeps
        /// it off and until when, when the schedule does (`outside power.on_hours until 07:30`).
        case power(state: String, reason: String, time: Instant, why: String?)
        /// The wall clock was set: said once per setting, with whether the power schedule was
        /// read again on it (`Pipeline.wallClockSet(_:at:)`).
        case wallClock(WallClockJump, scheduleReread: Bool)

        public var description: String {
            switch self {
            case let .display(text), let .output(text), let .unavailable(text): text
            case let .attractMode(seconds): "idle for \(seconds.brief) s: back to the home position"
            case let .tile(text): "content: \(text); drawn from a coarser level"
            case let .reducedPage(text): "content: \(text); shown reduced to its page's size"
            case .redrawsPaced:
                "content: the app changes its tiles on screen faster than content.provider_redraw_hz lets them be redrawn: "
                    + "they are asked for in turn, scrolling keeps the display's rate (flickctl provider counts the waits)"
            case let .power(state, reason, _, why): "display \(state) (\(reason)" + (why.map { ": \($0)" } ?? "") + ")"
            case let .wallClock(jump, reread): "\(jump)" + (reread ? ": power schedule re-read" : "")
            }
        }
    }
}
