import FlickCore
import FlickSystem
import Glibc

/// Which devices `TouchInput` takes, and how it maps them.
public struct TouchInputOptions: Sendable {
    /// The folder of event nodes.
    public var directory: String
    /// Only this node (still reopened when it returns), instead of every touchscreen.
    public var devicePath: String?
    /// Devices to take whatever they look like.
    public var force: TouchscreenClassifier.ForceRules
    /// Grab devices (`EVIOCGRAB`) so nobody else sees the touches.
    public var grab: Bool
    /// Touch rotation, flips and calibration (the config's; it overrides the udev matrix).
    public var mapping: TouchMapping
    /// The screen (logical view) size touches are mapped to.
    public var outputSize: Size
    /// Shorter touches are phantoms (`PhantomTouchFilter`).
    public var minimumTouchDuration = PhantomTouchFilter.defaultMinimumDuration

    /// Creates options.
    public init(directory: String = "/dev/input", devicePath: String? = nil,
                force: TouchscreenClassifier.ForceRules = .init(), grab: Bool = false,
                mapping: TouchMapping = TouchMapping(), outputSize: Size) {
        self.directory = directory
        self.devicePath = devicePath
        self.force = force
        self.grab = grab
        self.mapping = mapping
        self.outputSize = outputSize
    }
}

/// Every touchscreen under `/dev/input`, as one stream of frames: found at start, followed as
/// they come and go (inotify on the folder), several feeding one view.
///
/// A device that vanishes (`ENODEV`, or its node deleted) ends its contacts in one cancelling
/// frame, so no touch is ever stuck; when it returns it is opened again without a restart.
public final class TouchInput {
    /// Opens a node; the real one is libevdev's, tests pass their own.
    public typealias Opener = (_ path: String, _ grab: Bool) throws(InputDeviceError) -> any EventReader

    private struct Open {
        let reader: any EventReader
        var decoder: TouchDecoder
        var phantoms: PhantomTouchFilter
    }

    /// The options.
    public private(set) var options: TouchInputOptions
    /// Touches dropped as phantoms since start, of every device (too short, or with no position).
    public var phantomTouchCount: Int {
        open.values.reduce(closedPhantoms) { $0 + $1.phantoms.dropped + $1.decoder.positionless }
    }
    private let opener: Opener
    private let log: (String) -> Void
    private let watch: DirectoryWatch?
    private var open: [String: Open] = [:]
    /// Nodes looked at and passed over (not touchscreens), so each is logged once per arrival.
    private var passedOver: Set<String> = []
    /// Nodes that failed to open, with the reason last logged (retried on every change).
    private var failed: [String: String] = [:]
    private var nextIDBase = 0
    /// Phantom touches of devices closed since start (`phantomTouchCount` adds the open ones').
    private var closedPhantoms = 0
    /// Hears of every frame with its raw side, and of dropped events (`flickd events`).
    public var observer: ((InputObservation) -> Void)?
    /// The decoders' steps, kept while tracing (`takeTransitions`).
    private var transitions: [Transition] = []

    /// Whether the decoders' steps are kept for the trace.
    public var tracing = false {
        didSet { for path in open.keys { open[path]?.decoder.tracing = tracing } }
    }

    /// The decoders' steps since the last call, oldest first.
    public func takeTransitions() -> [Transition] {
        defer { transitions.removeAll() }
        return transitions.sorted { $0.time < $1.time }
    }

    /// Where a device's udev calibration matrix comes from (tests pass their own).
    private let calibration: (String) -> [Double]?

    /// Opens what is there and starts watching the folder.
    /// - Parameters:
    ///   - options: which devices and how to map them.
    ///   - log: receives a line per device taken, passed over, lost or failing.
    ///   - opener: opens a node (libevdev by default).
    ///   - calibration: a node's udev `LIBINPUT_CALIBRATION_MATRIX`, used when the config has none.
    public init(options: TouchInputOptions, log: @escaping (String) -> Void = { _ in },
                opener: @escaping Opener = { path, grab throws(InputDeviceError) in try EvdevDevice(path: path, grab: grab) },
                calibration: @escaping (String) -> [Double]? = UdevCalibration.matrix(forDeviceNode:)) {
        self.calibration = calibration
        self.options = options
        self.opener = opener
        self.log = log
        watch = DirectoryWatch(directory: options.directory)
        if watch == nil { log("input: cannot watch \(options.directory) for hotplug (inotify); devices are read as found at start") }
        _ = rescan(now: .zero)
    }

    deinit {
        for device in open.values { device.reader.close() }
    }

    /// For logs and `status`: the devices in use.
    public var name: String {
        open.isEmpty ? "no touchscreen yet" : open.values.map { "\($0.reader.path) (\($0.reader.description.name))" }.sorted()
            .joined(separator: ", ")
    }

    /// The device nodes open now.
    public var devices: [String] { open.keys.sorted() }

    /// The kernel names of the devices open now, by node order (`flickd calibrate`'s udev rule).
    public var deviceNames: [String] { open.keys.sorted().compactMap { open[$0]?.reader.description.name } }

    /// The devices' descriptors and the folder watch's.
    public var fileDescriptors: [Descriptor] {
        open.values.map(\.reader.fileDescriptor) + (watch.map { [$0.fileDescriptor] } ?? [])
    }

    /// Everything arrives through fds; only frames a phantom check holds back are due by time.
    public var nextDeadline: Instant? { open.values.compactMap(\.phantoms.deadline).min() }

    /// Pixels per millimetre of the first device that knows its size.
    public var pixelsPerMillimetre: Double? {
        open.keys.sorted().lazy.compactMap { self.open[$0]?.decoder.transform.pixelsPerMillimetre }.first
    }

    /// Changes the mapping (a config reload, the panel's size): applies to every device at once.
    public func setMapping(_ mapping: TouchMapping, outputSize: Size) {
        options.mapping = mapping
        options.outputSize = outputSize
        for (path, var device) in open {
            var own = mapping
            if own.calibration == nil { own.calibration = calibration(path) }
            device.decoder.transform.mapping = own
            device.decoder.transform.outputSize = outputSize
            open[path] = device
        }
    }

    /// Changes how long a touch must last (a config reload); a touch being judged keeps the old.
    public func setMinimumTouchDuration(_ duration: Duration) {
        options.minimumTouchDuration = duration
        for path in open.keys { open[path]?.phantoms.minimumDuration = duration }
    }

    /// Reads every device and follows the folder's changes; returns the frames, oldest first.
    public func dispatch(now: Instant) -> [TouchFrame] {
        var frames: [TouchFrame] = []
        if watch?.drain() == true { frames += rescan(now: now) }
        for path in open.keys.sorted() {
            guard var device = open[path] else { continue }
            let (items, removed) = device.reader.read()
            for item in items {
                switch item {
                case .event(let e):
                    if let frame = device.decoder.feed(e) {
                        observer?(.frame(frame, raw: device.decoder.raw(for: frame), device: path))
                        frames += device.phantoms.feed(frame)
                    }
                case .dropped:
                    observer?(.dropped(at: now, device: path))
                    device.decoder.syncDropped(at: now)
                    log("input: \(path): events dropped by the kernel (SYN_DROPPED); resynchronised")
                }
            }
            frames += device.phantoms.release(upTo: now)
            for note in device.decoder.takeDiagnostics() { log("input: \(path): \(note)") }
            if let line = device.phantoms.report(positionless: device.decoder.positionless, at: now) {
                log("input: \(path): \(line)")
            }
            transitions += device.decoder.takeTransitions()
            open[path] = device
            if removed { frames += close(path, now: now, why: "removed") }
        }
        return frames.sorted { $0.time < $1.time }
    }

    /// Opens new nodes, closes vanished ones.
    private func rescan(now: Instant) -> [TouchFrame] {
        var frames: [TouchFrame] = []
        let present = Set(Self.eventNodes(in: options.directory).filter { options.devicePath == nil || $0 == options.devicePath })
        for path in open.keys where !present.contains(path) {
            frames += close(path, now: now, why: "its node is gone")
        }
        passedOver.formIntersection(present)
        for path in failed.keys where !present.contains(path) { failed[path] = nil }
        for path in present.sorted() where open[path] == nil && !passedOver.contains(path) {
            openDevice(path)
        }
        return frames
    }

    private func openDevice(_ path: String) {
        let reader: any EventReader
        do {
            reader = try opener(path, false)
        } catch {
            if failed[path] != error.reason { log("input: \(error)") }
            failed[path] = error.reason
            return
        }
        failed[path] = nil
        let force = options.devicePath == path
            ? TouchscreenClassifier.ForceRules(paths: options.force.paths.union([path]), nameContains: options.force.nameContains)
            : options.force
        let verdict = TouchscreenClassifier.verdict(for: reader.description, path: path, force: force)
        var mapping = options.mapping
        if mapping.calibration == nil, let udev = calibration(path) {
            mapping.calibration = udev
            log("input: \(path): udev calibration matrix \(udev)")
        }
        guard verdict.isTouchscreen,
              let transform = TouchTransform(description: reader.description, mapping: mapping,
                                             outputSize: options.outputSize) else {
            log("input: \(path) '\(reader.description.name)' \(verdict)")
            reader.close()
            passedOver.insert(path)
            return
        }
        var taken = reader
        if options.grab {
            // Reopen grabbed: the probe above must not grab devices it then passes over.
            reader.close()
            do {
                taken = try opener(path, true)
            } catch {
                log("input: \(error)")
                failed[path] = error.reason
                return
            }
        }
        var decoder = TouchDecoder(description: taken.description, transform: transform, idBase: nextIDBase)
        for e in taken.lastValues() { _ = decoder.feed(e) }
        decoder.tracing = tracing
        open[path] = Open(reader: taken, decoder: decoder,
                          phantoms: PhantomTouchFilter(minimumDuration: options.minimumTouchDuration))
        nextIDBase += 1
        log("input: \(path) '\(taken.description.name)' \(verdict)")
    }

    private func close(_ path: String, now: Instant, why: String) -> [TouchFrame] {
        guard var device = open.removeValue(forKey: path) else { return [] }
        defer { closedPhantoms += device.phantoms.dropped + device.decoder.positionless }
        device.reader.close()
        // The removal cancels every touch, so a touch still being judged is let go with it: the
        // frames held for it come first.
        let removed = device.decoder.deviceRemoved(at: now)
        if let removed { observer?(.frame(removed, raw: [:], device: path)) }
        let frames = removed.map { device.phantoms.feed($0) } ?? []
        transitions += device.decoder.takeTransitions()
        log("input: \(path) \(why)" + (frames.last.map { ": \($0.cancelled.count) contact(s) cancelled" } ?? ""))
        return frames
    }

    /// The `event*` nodes of a folder, sorted.
    static func eventNodes(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("event") { out.append(directory + "/" + name) }
        }
        return out.sorted()
    }
}
