import FlickCore
import FlickSystem

/// Replays a recording through the same decoder as a live device, shifted so that its first
/// event happens at `start`. Driven on a virtual clock it runs as fast as possible (tests,
/// `flickd replay`); driven by the real clock it plays in real time (demos).
///
/// When the recording ends with fingers still down (it was stopped mid-gesture), a last frame
/// cancels them, as a device removal would: nothing stays stuck.
public final class RecordingSource {
    /// The recording.
    public let recording: EvemuRecording
    /// The screen the touches are mapped to.
    public private(set) var outputSize: Size
    /// The file, for logs and `status`.
    public let name: String
    private var decoder: TouchDecoder
    private var phantoms: PhantomTouchFilter
    private var index = 0
    private let shift: Duration
    private var ended = false
    /// Problems met while decoding, oldest first (drained by `takeDiagnostics`).
    private var diagnostics: [String] = []
    /// Hears of every frame with its raw side, and of dropped events (`flickd events`).
    public var observer: ((InputObservation) -> Void)?

    /// Prepares a replay.
    /// - Parameters:
    ///   - recording: the recording.
    ///   - mapping: touch rotation, flips and calibration.
    ///   - outputSize: the screen size; by default `RecordingSource.panelSize(for:)`.
    ///   - start: when the first event happens.
    ///   - minimumTouchDuration: shorter touches are phantoms (`PhantomTouchFilter`).
    /// - Throws: `EvemuError` when the device has no X/Y axes to map.
    public init(recording: EvemuRecording, mapping: TouchMapping = TouchMapping(), outputSize: Size? = nil,
                start: Instant, minimumTouchDuration: Duration = PhantomTouchFilter.defaultMinimumDuration) throws(EvemuError) {
        let size = outputSize ?? Self.panelSize(for: recording.description)
        guard let transform = TouchTransform(description: recording.description, mapping: mapping, outputSize: size) else {
            throw EvemuError(path: recording.path, line: 0,
                             message: "the device '\(recording.description.name)' has no X/Y axes: nothing to replay")
        }
        self.recording = recording
        self.outputSize = size
        name = "evemu:\(recording.path)"
        decoder = TouchDecoder(description: recording.description, transform: transform)
        phantoms = PhantomTouchFilter(minimumDuration: minimumTouchDuration)
        shift = start - (recording.events.first?.time ?? start)
    }

    /// Maps the touches onto a screen of `size` from the next event on (the panel changed).
    public func setOutputSize(_ size: Size) {
        outputSize = size
        decoder.transform.outputSize = size
    }

    /// Maps the touches with `mapping` onto a screen of `size` from the next event on.
    public func setMapping(_ mapping: TouchMapping, outputSize size: Size) {
        decoder.transform.mapping = mapping
        setOutputSize(size)
    }

    /// Changes how long a touch must last; a touch being judged keeps the old.
    public func setMinimumTouchDuration(_ duration: Duration) {
        phantoms.minimumDuration = duration
    }

    /// The panel size a recording is shown on when none is given: the axis ranges when they
    /// look like pixels (both within 1920×1200, e.g. 800×480 for 0…799 × 0…479); otherwise 1280 wide with the aspect of the physical size (from the resolution),
    /// else of the ranges, fitted within 1280×800; 1280×800 when the ranges are square, since a
    /// square range says nothing about the screen's shape.
    public static func panelSize(for d: DeviceDescription) -> Size {
        guard let (x, y) = d.positionAxes else { return Size(width: 1280, height: 800) }
        let w = x.span + 1, h = y.span + 1
        if w <= 1920 && h <= 1200 { return Size(width: w, height: h) }
        let aspect = d.physicalSize.map { $0.width / $0.height } ?? w / h
        guard aspect.isFinite, aspect > 0, abs(aspect - 1) > 0.01 else { return Size(width: 1280, height: 800) }
        var size = Size(width: 1280, height: (1280 / aspect).rounded())
        if size.height > 800 { size = Size(width: (800 * aspect).rounded(), height: 800) }
        return size
    }

    /// No descriptors: a recording is all deadlines.
    public var fileDescriptors: [Descriptor] { [] }

    /// When the next event is due, or nil once everything was delivered.
    public var nextDeadline: Instant? {
        // A phantom check's frames held back are due too.
        let next: Instant? = index < recording.events.count ? recording.events[index].time + shift : (ended ? nil : lastTime)
        return [next, phantoms.deadline].compactMap { $0 }.min()
    }

    /// Whether everything was delivered.
    public var isFinished: Bool { ended }
    /// Touches dropped as phantoms so far (too short, or with no position).
    public var phantomTouchCount: Int { phantoms.dropped + decoder.positionless }

    /// Delivers the frames of every event due by `now`.
    public func dispatch(now: Instant) -> [TouchFrame] {
        var frames: [TouchFrame] = []
        let events = recording.events
        while index < events.count {
            var e = events[index]
            e.time = e.time + shift
            guard e.time <= now else { break }
            index += 1
            frames += phantoms.release(upTo: e.time)
            if e.type == EventCode.EV_SYN && e.code == EventCode.SYN_DROPPED {
                observer?(.dropped(at: e.time, device: recording.path))
            }
            if let frame = decoder.feed(e) {
                observer?(.frame(frame, raw: decoder.raw(for: frame), device: recording.path))
                frames += phantoms.feed(frame)
            }
        }
        if index == events.count && !ended && lastTime <= now {
            ended = true
            if let frame = decoder.deviceRemoved(at: lastTime) {
                diagnostics.append("\(name): the recording ends with \(frame.cancelled.count) contact(s) down: cancelled")
                observer?(.frame(frame, raw: [:], device: recording.path))
                frames += phantoms.feed(frame)
            }
        }
        frames += phantoms.release(upTo: now)
        diagnostics += decoder.takeDiagnostics()
        if let line = phantoms.report(positionless: decoder.positionless, at: now, final: ended) {
            diagnostics.append("\(name): \(line)")
        }
        return frames
    }

    /// Whether the decoder's steps are kept for the trace.
    public var tracing: Bool {
        get { decoder.tracing }
        set { decoder.tracing = newValue }
    }

    /// The decoder's steps since the last call.
    public func takeTransitions() -> [Transition] { decoder.takeTransitions() }

    /// Problems met since the last call.
    public func takeDiagnostics() -> [String] {
        defer { diagnostics.removeAll() }
        return diagnostics
    }

    /// Pixels per millimetre of the recorded panel, if its resolution is known.
    public var pixelsPerMillimetre: Double? { decoder.transform.pixelsPerMillimetre }

    private var lastTime: Instant { (recording.events.last?.time ?? .zero) + shift }
}
