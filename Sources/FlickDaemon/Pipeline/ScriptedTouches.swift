import FlickCore
import FlickSystem

/// Scripted touches: touch frames handed out at their times, as a device would deliver them —
/// the input of tests, benchmarks and fuzzing that make their frames themselves (a recording
/// goes through `RecordingSource`, the device's decoder included). Touches only: the display's
/// frames are the presenter's.
public final class ScriptedTouches: TouchSource {
    /// The frames still to come, oldest first; more can be added at any time.
    public var frames: ArraySlice<TouchFrame>

    /// Creates a source of `frames`.
    public init(_ frames: [TouchFrame] = []) { self.frames = frames[...] }

    public var name: String { "scripted frames" }
    public var fileDescriptors: [Descriptor] { [] }
    public var nextDeadline: Instant? { frames.first?.time }
    /// Scripted frames pass no decoder: nothing to trace.
    public var tracing = false
    public func takeTransitions() -> [Transition] { [] }

    public func dispatch(now: Instant) -> [TouchFrame] {
        var out: [TouchFrame] = []
        while let frame = frames.first, frame.time <= now {
            out.append(frame)
            frames = frames.dropFirst()
        }
        return out
    }
}
