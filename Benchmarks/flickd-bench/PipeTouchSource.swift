import FlickCore
import FlickDaemon
import FlickInput
import FlickSystem
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's `struct input_event` on 64-bit Linux (24 bytes): what a read of an evdev node
/// returns, and what the latency rig's writer puts in the pipe.
struct RawInputEvent {
    var seconds: Int64
    var microseconds: Int64
    var type: UInt16
    var code: UInt16
    var value: Int32

    /// An event stamped with the current `CLOCK_MONOTONIC`, as the kernel stamps it.
    init(at ns: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        seconds = ns / 1_000_000_000
        microseconds = ns % 1_000_000_000 / 1000
        self.type = type
        self.code = code
        self.value = value
    }
}

/// A touchscreen behind a pipe: reads raw `input_event`s the way a device read does, decodes
/// them with the real `TouchDecoder`, and hands frames to the session through sd-event.
final class PipeTouchSource: TouchSource {
    let name = "pipe (flickd-bench)"
    private let fd: Int32
    private var decoder: TouchDecoder
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 24 * 64)
    /// Called with each frame's kernel time as it is handed over.
    var onFrame: (Instant) -> Void = { _ in }
    /// `CLOCK_MONOTONIC` when the loop last called `dispatch`: the wake-up.
    private(set) var wokeAt = Instant.zero

    /// The read end, duplicated: the loop's watch holds its own descriptor, the caller keeps
    /// and closes `fd`.
    private let descriptor: Descriptor

    init(fd: Int32, description: DeviceDescription, transform: TouchTransform) {
        self.fd = fd
        descriptor = Descriptor(owning: fcntl(fd, F_DUPFD_CLOEXEC, 0))
        decoder = TouchDecoder(description: description, transform: transform)
    }

    var fileDescriptors: [Descriptor] { [descriptor] }
    var nextDeadline: Instant? { nil }
    var tracing: Bool {
        get { decoder.tracing }
        set { decoder.tracing = newValue }
    }
    func takeTransitions() -> [Transition] { decoder.takeTransitions() }

    func dispatch(now: Instant) -> [TouchFrame] {
        wokeAt = EventLoop.monotonicNow()
        var frames: [TouchFrame] = []
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            pending += chunk[0..<n]
        }
        let size = MemoryLayout<RawInputEvent>.size
        var used = 0
        while pending.count - used >= size {
            let raw = pending.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: used, as: RawInputEvent.self) }
            used += size
            let event = InputEvent(time: Instant(seconds: raw.seconds, microseconds: raw.microseconds),
                                   type: raw.type, code: raw.code, value: raw.value)
            if let frame = decoder.feed(event) {
                onFrame(frame.time)
                frames.append(frame)
            }
        }
        pending.removeFirst(used)
        return frames
    }
}
