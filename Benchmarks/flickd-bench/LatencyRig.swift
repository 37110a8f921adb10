import FlickCore
import FlickDaemon
import FlickDisplay
import FlickInput
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's live path on sd-event, in process: a pipe standing in for the touchscreen's fd,
/// `TouchDecoder`, the pipeline as `PipelineBuilder` assembles it (recogniser, model, frame
/// presenter, compositor) and `LiveRunner`, on a 1920×1080 headless output. A writer thread plays a finger dragging up and down, one report at a time,
/// each stamped with `CLOCK_MONOTONIC` just before the write, as the kernel stamps events.
///
/// Event-to-flip latency is the time from that stamp to the output's `commit` (the flip queued).
/// Each report is sent only once the previous frame was presented (plus a random 0.5–2.5 ms, so
/// the loop is asleep in epoll when it lands): what is timed is the daemon's own path — wake-up,
/// read, decode, recognise, model, compose, commit — not the wait for a vblank that one frame in
/// flight implies by design. A report that still finds a flip pending is counted apart.
final class LatencyRig: PipelineSink {
    let loop: EventLoop
    let pipeline: Pipeline
    let runner: LiveRunner
    private let source: PipeTouchSource
    private let output: TimedOutput
    private var inputFD: Int32 = -1
    private var writeFD: Int32 = -1
    private var ackRead: Int32 = -1
    private var ackWrite: Int32 = -1
    /// The latest frame handed to the session and not yet shown, with its kernel time.
    private var lastInput: Instant?
    /// Latencies in microseconds.
    private(set) var samples: [Double] = []
    /// The same, split: event stamp → the loop reading the pipe, and that read → the commit.
    private(set) var wakeSamples: [Double] = []
    private(set) var workSamples: [Double] = []
    /// Reports that arrived while a flip was pending (excluded from `samples`).
    private(set) var arrivedDuringFlip = 0
    private(set) var framesSeen = 0

    static let device = DeviceDescription.slotTouchscreen(name: "flickd-bench pipe panel", width: 4096, height: 4096,
                                                         slots: 10, resolution: 20)

    /// Frames committed, and of those the ones whose primary plane scanned out the content.
    var framesCommitted: Int { pipeline.presenter.composer.committedFrameCount }
    var framesScannedOut: Int { pipeline.presenter.composer.scannedOutFrameCount }

    /// - Parameter overlayPlanes: the headless output's overlay planes: 2 as on a DRM card with
    ///   them (frames at zoom 1 scan the content out), 0 as on fbdev (every frame composed).
    /// - Parameter configure: changes to the rig's config before the pipeline is built (the
    ///   power benchmark turns `[power]` on).
    init(content: Content, overlayPlanes: Int = 2, configure: (inout Configuration) -> Void = { _ in }) throws {
        // The writer blocks on its end of the input pipe; the loop's reads never block.
        (inputFD, writeFD) = try Self.pipe(nonBlockingRead: true, nonBlockingWrite: false)
        (ackRead, ackWrite) = try Self.pipe(nonBlockingRead: true, nonBlockingWrite: true)

        loop = try EventLoop()
        guard let headless = HeadlessOutput(size: PixelSize(width: 1920, height: 1080), overlayPlanes: overlayPlanes) else { throw RigError("headless output") }
        output = TimedOutput(headless)
        let screen = Size(width: 1920, height: 1080)
        guard let transform = TouchTransform(description: Self.device, mapping: TouchMapping(), outputSize: screen) else {
            throw RigError("touch transform")
        }
        source = PipeTouchSource(fd: inputFD, description: Self.device, transform: transform)
        var configuration = Configuration()
        // What is timed is a report's own path to its flip. With touch resampling the frames
        // follow the prediction back to back, so nearly every report finds a flip pending (18 of
        // 1001 timed) and the figure would stand on a handful; the frame's extra work, a
        // projection of the recogniser, is timed in section 6.
        configuration.resampleTouches = false
        configuration.minimumZoomScale = 0.5
        configuration.maximumZoomScale = 4
        configuration.background = .black
        configure(&configuration)
        pipeline = try PipelineBuilder(configuration: configuration)
            .build(output: output, content: content, input: .source(source, pixelsPerMillimetre: transform.pixelsPerMillimetre),
                   at: loop.now, restore: (Point(x: 1000, y: 1500), 1))
        runner = try LiveRunner(loop: loop, pipeline: pipeline)

        source.onFrame = { [unowned self] t in
            framesSeen += 1
            if output.isFlipPending { arrivedDuringFlip += 1; lastInput = nil } else { lastInput = t }
        }
        output.onCommit = { [unowned self] at in
            guard let t = lastInput else { return }
            samples.append(Double((at - t).nanoseconds) / 1000)
            wakeSamples.append(Double((source.wokeAt - t).nanoseconds) / 1000)
            workSamples.append(Double((at - source.wokeAt).nanoseconds) / 1000)
            lastInput = nil
        }
        pipeline.sink = self
        pipeline.start()
        runner.rearm()
    }

    func pipeline(_ pipeline: Pipeline, emitted outputs: [GestureOutput], view: ScrollView) {}

    func pipeline(_ pipeline: Pipeline, presentedAt vblank: Instant) {
        var byte: UInt8 = 1
        _ = write(ackWrite, &byte, 1)
    }

    func pipeline(_ pipeline: Pipeline, noted notice: Pipeline.Notice) {}

    deinit {
        for fd in [inputFD, writeFD, ackRead, ackWrite] where fd >= 0 { close(fd) }
    }

    /// Plays `moves` reports of one finger dragging (after a touch down, before a lift) and
    /// runs the loop until the lift was handled and everything is at rest again.
    func measure(moves: Int) throws {
        let writer = Thread { [writeFD, ackRead] in
            Self.play(moves: moves, into: writeFD, ack: ackRead)
        }
        writer.start()
        let total = moves + 2   // down, moves, lift
        let deadline = monotonicNanoseconds() + Int64(moves + 50) * 100_000_000
        while framesSeen < total && monotonicNanoseconds() < deadline {
            try loop.runOnce(timeout: .milliseconds(100))
        }
        try settle()
    }

    /// Writes one report from the bench's own thread — a finger down at the panel's centre, or
    /// its lift — stamped with `CLOCK_MONOTONIC` just before the write; returns the stamp.
    @discardableResult
    func touch(down: Bool) -> Instant {
        let t = monotonicNanoseconds()
        let events = down
            ? [RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_SLOT, 0),
               RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, 7),
               RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, 2048),
               RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, 2048),
               RawInputEvent(at: t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0)]
            : [RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1),
               RawInputEvent(at: t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0)]
        _ = events.withUnsafeBytes { write(writeFD, $0.baseAddress, $0.count) }
        return Instant(nanoseconds: t)
    }

    /// Runs the loop until no frame is in flight and nothing is scheduled (at most 3 s).
    func settle() throws {
        let deadline = monotonicNanoseconds() + 3_000_000_000
        while (pipeline.presenter.state == .inFlight || pipeline.nextDeadline != nil) && monotonicNanoseconds() < deadline {
            try loop.runOnce(timeout: .milliseconds(100))
        }
    }

    /// Leaves the loop waiting for `seconds`; returns the waits that dispatched something, and
    /// the sd-event iterations beyond one per wait (each `runOnce` is one iteration even when it
    /// only times out).
    func idle(seconds: Double) throws -> (dispatched: Int, extraIterations: UInt64) {
        let start = loop.iteration
        var dispatched = 0
        var waits: UInt64 = 0
        let end = monotonicNanoseconds() + Int64(seconds * 1e9)
        while true {
            let left = end - monotonicNanoseconds()
            guard left > 0 else { break }
            waits += 1
            if try loop.runOnce(timeout: .nanoseconds(left)) { dispatched += 1 }
        }
        let iterations = loop.iteration - start
        return (dispatched, iterations > waits ? iterations - waits : 0)
    }

    private static func pipe(nonBlockingRead: Bool, nonBlockingWrite: Bool) throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw RigError("pipe: errno \(errno)") }
        for (fd, nonBlocking) in [(fds[0], nonBlockingRead), (fds[1], nonBlockingWrite)] {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            if nonBlocking { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        }
        return (fds[0], fds[1])
    }

    /// The writer thread: touch down, `moves` reports zig-zagging 40 px a step, a still pause
    /// (so the release has no momentum), the lift.
    private static func play(moves: Int, into fd: Int32, ack: Int32) {
        func units(_ v: Double, _ screen: Double) -> Int32 { Int32((v / screen * 4095).rounded()) }
        func send(_ build: (Int64) -> [RawInputEvent]) {
            let events = build(monotonicNanoseconds())
            _ = events.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        func waitForPresentation() {
            var p = pollfd(fd: ack, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 200)
            var drain = [UInt8](repeating: 0, count: 64)
            while drain.withUnsafeMutableBytes({ read(ack, $0.baseAddress, $0.count) }) > 0 {}
        }
        var rng: UInt64 = 42
        func pause() {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            usleep(500 + UInt32((rng >> 33) % 2000))
        }
        let x = units(960, 1920)
        var y = 900.0, step = -40.0
        usleep(100_000)   // the first frame is presented
        send { t in [RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_SLOT, 0),
                     RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, 1),
                     RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x),
                     RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, units(y, 1080)),
                     RawInputEvent(at: t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0)] }
        for _ in 0..<moves {
            waitForPresentation()
            pause()
            if y + step < 150 || y + step > 950 { step = -step }
            y += step
            let value = units(y, 1080)
            send { t in [RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, value),
                         RawInputEvent(at: t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0)] }
        }
        usleep(100_000)
        send { t in [RawInputEvent(at: t, EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1),
                     RawInputEvent(at: t, EventCode.EV_SYN, EventCode.SYN_REPORT, 0)] }
    }
}

/// A rig that could not be set up.
struct RigError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
