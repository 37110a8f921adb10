import FlickCore
import FlickSystem

/// Replays a Wayland seat's recorded events (a `WAYLAND_DEBUG=1` log, `WaylandDebugLog`)
/// through the same translator as the live seat, shifted so that the first timed event happens
/// at `start`: the input of tests and bug reports on the virtual clock, as `RecordingSource` is
/// for evemu recordings. The daemon makes it a `TouchSource` with pointer inputs.
///
/// When the log ends with fingers down or a pointer gesture under way (it was cut mid-gesture),
/// they are cancelled, as a seat losing its devices would: nothing stays stuck.
public final class WaylandLogSource {
    /// The file, for logs and `status`.
    public let name: String
    private let events: [WaylandSeatEvent]
    private var index = 0
    private var translator: WaylandInputTranslator
    /// What the translator made and is not due yet, oldest first.
    private var queue: [WaylandInput] = []
    private var ended = false
    /// The pointer's inputs handed out with the frames, for the pipeline to take.
    private var pointerInputs: [PointerInput] = []
    private var notes: [String] = []

    /// Prepares a replay.
    /// - Parameters:
    ///   - events: the seat's events, in order (`WaylandDebugLog.parse`).
    ///   - name: the log's name.
    ///   - mapping: the surface as it was recorded, onto the panel.
    ///   - start: when the first timed event happens.
    public init(events: [WaylandSeatEvent], name: String, mapping: WaylandSurfaceMapping, start: Instant) {
        self.events = events
        self.name = "wayland:\(name)"
        translator = WaylandInputTranslator(mapping: mapping, rebase: start)
        fill()
    }

    /// Maps the surface onto a panel of `size` from the next event on.
    public func setOutputSize(_ size: Size) { translator.mapping.outputSize = size }

    /// Nothing to watch: the log's times are deadlines.
    public var fileDescriptors: [Descriptor] { [] }

    /// The next input's time.
    public var nextDeadline: Instant? { queue.first?.time }

    /// Whether steps are traced: a log has no decoder, so none are.
    public var tracing = false

    /// No decoder, no steps.
    public func takeTransitions() -> [Transition] { [] }

    /// The touch frames due at `now`; the pointer's inputs due with them wait in
    /// `takePointerInputs()`.
    public func dispatch(now: Instant) -> [TouchFrame] {
        var frames: [TouchFrame] = []
        while let next = queue.first, next.time <= now {
            queue.removeFirst()
            switch next {
            case let .touch(frame): frames.append(frame)
            case let .pointer(input): pointerInputs.append(input)
            }
            if queue.isEmpty { fill() }
        }
        return frames
    }

    /// The pointer's inputs the last dispatches found due, oldest first.
    public func takePointerInputs() -> [PointerInput] {
        defer { pointerInputs.removeAll() }
        return pointerInputs
    }

    /// The translator's notes (milliseconds only), oldest first.
    public func takeNotes() -> [String] {
        defer { notes.removeAll() }
        return notes
    }

    /// Translates events until one input comes out, or the log ends (then what is still down
    /// is cancelled).
    private func fill() {
        while queue.isEmpty, !ended {
            if index < events.count {
                translator.handle(events[index])
                index += 1
            } else {
                ended = true
                translator.touchesLost()
                translator.pointerLost()
            }
            queue += translator.takeOutputs()
            notes += translator.takeNotes()
        }
    }
}
