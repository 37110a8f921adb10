import FlickCore
@testable import FlickDaemon
import Logging

/// What a logger was given at info and above, in order: the lines journald would store.
final class CapturedLog: @unchecked Sendable {
    struct Line {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
        /// The entry's fields as `FlickdLogHandler` sends them to journald (code location left out).
        var journalFields: [String] {
            FlickdLogHandler.journalFields(message: message, level: level, metadata: metadata, file: "", line: 0, function: "")
                .filter { !$0.hasPrefix("CODE_") }
        }
    }

    private(set) var lines: [Line] = []

    var logger: Logger { Logger(label: "flickd") { _ in Handler(log: self) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.append(Line(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
        }
    }
}

/// A generated kiosk stream (`GestureMix`) through the pipeline on virtual time, with a
/// `GestureJournal` per level fed as the daemon's sink feeds its one, each into a logger of its
/// own; its summary deadlines are kept as the daemon's loop keeps a companion's.
final class JournalVolumeRun {
    let rig: PipelineRig
    let journals: [(level: GestureLogLevel, journal: GestureJournal, log: CapturedLog)]
    /// What `GestureLog` says of each output, beside the journals: the entries "all" must write.
    private(set) var entries: [GestureLog.Entry] = []
    private(set) var generated: [GestureMix.Kind: Int] = [:]
    /// Lines the daemon writes for what is not a gesture: diagnostics (warning) and notices.
    var otherLines: Int { rig.outputs.filter { if case .diagnostic = $0.kind { true } else { false } }.count + rig.notices.count }
    private var mix: GestureMix
    private var next: Instant

    init(levels: [GestureLogLevel], seed: UInt64 = 51) throws {
        var configuration = Configuration()
        configuration.idleResetSeconds = 120
        rig = try PipelineRig(configuration: configuration, at: .seconds(10))
        journals = levels.map { level in
            let log = CapturedLog()
            return (level, GestureJournal(level: level) { log.logger }, log)
        }
        mix = GestureMix(seed: seed)
        next = rig.pipeline.now + .seconds(1)
        rig.onOutput = { [unowned self] output, view in
            if let entry = GestureLog.entry(for: output, view: view) { self.entries.append(entry) }
            for j in self.journals { j.journal.published(output, view: view) }
        }
    }

    /// The virtual time reached.
    var now: Instant { next }

    /// Feeds `count` more gestures and runs until the next would start.
    func run(gestures count: Int) {
        for _ in 0..<count {
            let g = mix.gesture(at: next)
            generated[g.kind, default: 0] += 1
            rig.touches.frames += g.frames
            advance(to: g.next)
            next = g.next
        }
    }

    /// Runs the pipeline and the journals' deadlines, in time order, up to `t`.
    func advance(to t: Instant) {
        while let due = journals.compactMap({ $0.journal.nextDeadline }).min(), due <= t {
            _ = VirtualRunner.run(rig.pipeline, limit: due)
            for j in journals { j.journal.dispatch(now: due) }
        }
        _ = VirtualRunner.run(rig.pipeline, limit: t)
    }

    func log(_ level: GestureLogLevel) -> CapturedLog { journals.first { $0.level == level }!.log }
}
