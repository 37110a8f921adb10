import FlickCore
import FlickInput
import FlickSystem

/// A source of touch frames the loop can wait on: a live evdev device (an fd), a replayed
/// recording (deadlines on the real or a virtual clock), or several devices behind hotplug.
public protocol TouchSource: AnyObject {
    /// A human name for logs and `status` (device path and name, or the recording).
    var name: String { get }
    /// Descriptors to watch for readability (devices, the hotplug watch); may change after
    /// `dispatch`. A device that left and one that came in one dispatch are two descriptors even
    /// when the kernel gave them one number (the old one stays open while watched).
    var fileDescriptors: [Descriptor] { get }
    /// When the source has something to deliver without an fd (a recording's next event).
    var nextDeadline: Instant? { get }
    /// Reads what is ready at `now` and returns the frames, oldest first.
    func dispatch(now: Instant) -> [TouchFrame]
    /// Whether the decoders' steps are kept for the trace.
    var tracing: Bool { get set }
    /// The decoders' steps since the last call (the `touch` machine), oldest first.
    func takeTransitions() -> [Transition]
    /// Touches dropped as phantoms so far (`PhantomTouchFilter`, and contacts with no position).
    var phantomTouchCount: Int { get }
    /// Maps the touches onto a screen of `size` from now on: the panel's logical size changed
    /// (a monitor with another mode, `Pipeline.attach`).
    func setOutputSize(_ size: Size)
    /// Takes the config's touch settings from now on, mapped onto a screen of `size`: at start
    /// and at each reload (`PipelineBuilder.apply`); a touch being judged keeps the old ones.
    func configure(_ settings: TouchSettings, outputSize size: Size)
}

extension TouchSource {
    /// A source of the caller's own drops nothing.
    public var phantomTouchCount: Int { 0 }
    /// A source that maps nothing (a test's scripted touches already in screen pixels).
    public func setOutputSize(_ size: Size) {}
    /// A source that maps nothing and judges no touch (a compositor's seat, a test's script).
    public func configure(_ settings: TouchSettings, outputSize size: Size) {}
}

/// What the config says of touches, for a source that decodes a touchscreen: the rotation,
/// flips and calibration (`input.rotation`, `input.flip_x`/`flip_y`, `input.calibration`) and
/// how long a touch must last (`input.minimum_touch_ms`). Made from the config in one place.
public struct TouchSettings: Hashable, Sendable {
    public var mapping: TouchMapping
    public var minimumTouchDuration: Duration

    /// The settings `configuration` gives.
    public init(_ configuration: Configuration) {
        mapping = configuration.touchMapping
        minimumTouchDuration = configuration.minimumTouchDuration
    }
}

/// A touch source that also has a pointer's wheel, touchpad scrolls and pinches: a Wayland
/// seat (`WaylandSeat`, or a recorded one, `WaylandLogSource`). The pipeline takes them after
/// each `dispatch(now:)` and hands them to the recogniser in time order among the frames.
public protocol PointerSource: TouchSource {
    /// The inputs the last `dispatch(now:)` found due, oldest first.
    func takePointerInputs() -> [PointerInput]
}
