import FlickCore
import Logging

/// What the daemon's journal would hold: the content host's lines through its `Logger`, and the
/// lines the daemon writes for the pipeline's gesture outputs (`GestureJournal`, at `log.gestures`'s level)
/// and notices (each one line, `Daemon.pipeline(_:noted:)`), at the default `log.level` (info).
/// Lines are counted, not kept; the last few of the content host's are, to say what happened.
final class Journal: @unchecked Sendable {
    private(set) var lines = 0
    private(set) var gestureLines = 0
    private(set) var noticeLines = 0
    private(set) var contentLines = 0
    private(set) var errors: [String] = []
    /// The content host's lines of the current hour, for a report.
    private(set) var recent: [String] = []

    func gesture() { lines += 1; gestureLines += 1 }
    func notice() { lines += 1; noticeLines += 1 }
    func content(_ level: Logger.Level, _ message: String) {
        lines += 1
        contentLines += 1
        if recent.count < 64 { recent.append("\(level): \(message)") }
        if level >= .error { errors.append(message) }
    }
    func clearRecent() { recent.removeAll() }

    var logger: Logger {
        Logger(label: "flickd") { _ in Handler(journal: self) }
    }

    /// The logger `GestureJournal` writes to: each entry one gesture line.
    var gestureLogger: Logger {
        Logger(label: "flickd") { _ in Handler(journal: self, gestures: true) }
    }

    struct Handler: LogHandler {
        let journal: Journal
        var gestures = false
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            if gestures { return journal.gesture() }
            journal.content(event.level, "\(event.message)")
        }
    }
}

extension Journal {
    func clearErrors() { errors.removeAll() }
}
