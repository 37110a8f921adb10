import FlickCore
import FlickInput

/// `flickd record`: a live touchscreen's events written to an evemu file (`EvemuRecorder`) until
/// SIGINT or SIGTERM, a duration, or the device's removal — one file an integrator can replay
/// (`flickd replay`) and attach to a report.
public enum Record {
    /// What to record and for how long.
    public struct Options: Sendable {
        /// The device node; by default the first touchscreen in `directory`.
        public var device: String?
        /// The file to write.
        public var file: String
        /// The folder of event nodes searched when no device is named.
        public var directory = "/dev/input"
        /// Stop after this long.
        public var duration: Duration?

        /// Creates options: the first touchscreen, until stopped.
        public init(device: String? = nil, file: String) {
            self.device = device
            self.file = file
        }
    }

    /// What was recorded.
    public struct Summary: Sendable {
        /// The device recorded.
        public var device: String
        /// Events written.
        public var events: Int
        /// `SYN_DROPPED`s met.
        public var dropped: Int
    }

    /// Records until stopped.
    /// - Parameters:
    ///   - options: the device, the file and when to stop.
    ///   - configuration: the name match that forces a device in (`input.match_name`).
    ///   - started: called once the file's header is written (the command says so on stderr).
    /// - Throws: `FlickError`: no touchscreen, a device that cannot be opened, a file that cannot be written.
    public static func run(_ options: Options, configuration: Configuration,
                           started: (String) -> Void = { _ in }) throws -> Summary {
        let force = Events.forceRules(configuration)
        let path = try options.device ?? Events.firstTouchscreen(in: options.directory, force: force)
        let reader = try EvdevDevice(path: path)
        defer { reader.close() }
        try reader.ensureNotHeldElsewhere()
        // A named node must be what the daemon would take: its recording must replay.
        let verdict = TouchscreenClassifier.verdict(for: reader.description, force: force)
        guard verdict.isTouchscreen else {
            throw InputDeviceError(path: path, reason: "not a touchscreen: \(verdict.reason)")
        }
        let loop = try EventLoop()
        // From before the file exists until it is finished, SIGINT and SIGTERM only stop the
        // loop: the file always ends at a whole line.
        let stops = try loop.stopOnSignals(after: options.duration, context: "record --duration")
        let recorder = try EvemuRecorder(reader: reader, path: options.file)
        started(path)
        var failure: (any Error)?
        let io = try loop.addIO(reader.fileDescriptor, events: .readable, context: "record \(path)") { [unowned loop] _ in
            do {
                if try recorder.drain() { loop.exit(code: 0) }
            } catch {
                failure = error
                loop.exit(code: 1)
            }
        }
        _ = try loop.run()
        if let failure { throw failure }
        // Whatever arrived between the last wake-up and the stop belongs in the file too.
        try recorder.drain()
        try recorder.finish()
        withExtendedLifetime((io, stops)) {}
        return Summary(device: path, events: recorder.events, dropped: recorder.dropped)
    }
}
