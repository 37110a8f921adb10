/// One step of one of flickd's state machines, as the trace shows it (`flickd replay --trace`,
/// and the journal at the debug log level): the machine, the time, the state it was in, the
/// event, the state it went to. libinput's tap code logs the same line for every transition
/// ("tap: touch 3 state TOUCH → DRAGGING on RELEASE"); a recording plus its trace is how a feel
/// bug gets reported.
///
/// Only changes of state are traced, and (state, event) pairs the machine's table calls a bug:
/// a finger moving while it drags is not a transition. State and event names are those of the
/// machine's table in docs/ARCHITECTURE.md, which a test compares with what the code does.
public struct Transition: Hashable, Sendable, CustomStringConvertible {
    /// Which machine stepped.
    public enum Machine: String, Hashable, Sendable, CaseIterable {
        /// `TouchDecoder`: kernel events into touch frames.
        case touch
        /// `GestureRecognizer`: which fingers make the gesture.
        case gesture
        /// `TapDragClassifier`: one touch, the content's or the scroll's.
        case tap
        /// `ScrollPhase`: the scroll view's motion.
        case scroll
        /// `ZoomPhase`: the scroll view's pinch.
        case zoom
        /// `FramePresenter`: frames and their presentation.
        case frame
        /// `CalibrationSession`: `flickd calibrate`'s one touch per target.
        case calibrate
        /// `DisplayPower`: the panel on, dimmed or off.
        case power
        /// `PointerPhase`: a touchpad scrolling or pinching the view.
        case pointer
        /// `RenderSupervision`: the document helper started, watched and restarted.
        case render
    }

    /// Which machine stepped.
    public var machine: Machine
    /// When (the input's kernel time, the timer's deadline or the frame's vblank).
    public var time: Instant
    /// The state before.
    public var from: String
    /// The event, named as the table's column.
    public var event: String
    /// The state after (the same as `from` when the pair is invalid).
    public var to: String
    /// Whether the table calls the pair a bug: logged, and the state stays.
    public var isInvalid: Bool

    /// Creates a transition.
    public init(_ machine: Machine, at time: Instant, from: String, on event: String, to: String, invalid: Bool = false) {
        self.machine = machine
        self.time = time
        self.from = from
        self.event = event
        self.to = to
        self.isInvalid = invalid
    }

    /// `tap: pending → move → dragging`, or `tap: invalid timer in idle`.
    public var description: String {
        isInvalid ? "\(machine.rawValue): invalid \(event) in \(from)" : "\(machine.rawValue): \(from) → \(event) → \(to)"
    }

    /// The trace line: the time in seconds with three decimals, then the transition.
    public var line: String { time.seconds.fixed(3, width: 10) + " s  " + description }
}
