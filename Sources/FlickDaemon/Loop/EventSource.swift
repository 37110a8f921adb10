import CSystemd
import FlickCore
import FlickSystem

/// An sd-event source the loop made, with the handler it calls: both live exactly as long as
/// this object, so dropping the last reference stops the watch (the source is disabled before
/// the handler is released, so no callback can reach a freed handler).
///
/// The three kinds differ only in what they can change afterwards: `IOSource` its events,
/// `TimerSource` its deadline, `SignalSource` nothing.
public class EventSource {
    let source: OpaquePointer
    /// Kept alive here: sd-event holds only an unretained pointer to it as userdata.
    private let handler: AnyObject

    init(source: OpaquePointer, handler: AnyObject) {
        self.source = source
        self.handler = handler
    }

    deinit {
        sd_event_source_disable_unref(source)
    }
}

/// A Swift closure behind sd-event's C callback and userdata pointer.
final class Callback<Argument> {
    let handler: (Argument) -> Void
    init(_ handler: @escaping (Argument) -> Void) { self.handler = handler }

    /// Calls the closure behind `userdata` (from a C callback; sd-event passes what
    /// `Unmanaged.passUnretained(_:)` gave it).
    static func call(_ userdata: UnsafeMutableRawPointer?, _ argument: Argument) {
        guard let userdata else { return }
        Unmanaged<Callback<Argument>>.fromOpaque(userdata).takeUnretainedValue().handler(argument)
    }
}

/// A watched fd; stops being watched when released.
public final class IOSource: EventSource {
    /// The watched file: released only after the source is disabled (stored properties go
    /// after every `deinit` has run), so the number is not reused while sd-event still watches it.
    private let descriptor: Descriptor

    init(source: OpaquePointer, handler: AnyObject, descriptor: Descriptor) {
        self.descriptor = descriptor
        super.init(source: source, handler: handler)
    }

    /// Changes the events watched for. The corresponding C function is
    /// `sd_event_source_set_io_events`.
    public func setEvents(_ events: IOEvents) {
        sd_event_source_set_io_events(source, events.rawValue)
    }
}

/// A one-shot timer; re-arm with `schedule(at:)`, disarm with `schedule(at: nil)`.
public final class TimerSource: EventSource {
    /// When it fires, if armed.
    public private(set) var deadline: Instant?

    /// Arms the timer for `deadline` (a past one fires at the next iteration), or disarms it.
    /// The corresponding C functions are `sd_event_source_set_time` and `…_set_enabled`.
    public func schedule(at deadline: Instant?) {
        self.deadline = deadline
        guard let deadline else {
            sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
            return
        }
        sd_event_source_set_time(source, UInt64(max(0, deadline.nanoseconds / 1000)))
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }
}

/// A handled signal; the handler is removed when released.
public final class SignalSource: EventSource {}

extension Instant {
    /// sd-event's microseconds on `CLOCK_MONOTONIC`, saturating: `UInt64.max` (sd-event's
    /// "never") and anything past `Instant`'s range read as the latest instant, not a trap.
    init(microseconds: UInt64) {
        let (nanoseconds, overflow) = Int64(clamping: microseconds).multipliedReportingOverflow(by: 1000)
        self.init(nanoseconds: overflow ? .max : nanoseconds)
    }
}
