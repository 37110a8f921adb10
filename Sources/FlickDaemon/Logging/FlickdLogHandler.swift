import CSystemd
import FoundationEssentials
import Glibc
import Logging

/// swift-log records into the systemd journal or onto stderr.
///
/// Journal: `sd_journal_sendv` with `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER=flickd`, the code
/// location, and each metadata key as an upper-case field (`gesture` → `FLICK_GESTURE`), so
/// `journalctl -u flickd FLICK_GESTURE=flick` finds flicks. Stderr: readable lines, for a
/// terminal or a non-systemd init.
public struct FlickdLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    /// Where records go.
    public let backend: LogBackend

    /// Creates a handler logging at `level` and above.
    public init(backend: LogBackend, level: Logger.Level) {
        self.backend = backend
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        switch backend {
        case .journal: journal(event, all)
        case .stderr:
            let extra = all.isEmpty ? "" : "  [" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: " ") + "]"
            writeStandardError("flickd \(event.level): \(event.message)\(extra)\n")
        }
    }

    private func journal(_ event: LogEvent, _ metadata: Logger.Metadata) {
        let fields = Self.journalFields(message: "\(event.message)", level: event.level, metadata: metadata,
                                        file: event.file, line: event.line, function: event.function)
        let copies = fields.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var vectors = copies.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0!)) }
        _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }

    /// The journal entry's fields, `NAME=value` each: the message, its priority, the code
    /// location, and each metadata key as `FLICK_KEY` (sorted, so entries read the same way).
    static func journalFields(message: String, level: Logger.Level, metadata: Logger.Metadata, file: String,
                              line: UInt, function: String) -> [String] {
        var fields = ["MESSAGE=\(message)", "PRIORITY=\(priority(level))", "SYSLOG_IDENTIFIER=flickd",
                      "CODE_FILE=\(file)", "CODE_LINE=\(line)", "CODE_FUNC=\(function)"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { fields.append("FLICK_\(fieldName(key))=\(value)") }
        return fields
    }

    /// syslog priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Journal field names: upper-case letters, digits and underscores.
    static func fieldName(_ key: String) -> String {
        String(key.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

/// Where logs go.
public enum LogBackend: Equatable, Sendable {
    case journal
    case stderr

    /// The journal when started by systemd (it sets `JOURNAL_STREAM` for the service's
    /// stderr) or when `FLICKD_LOG=journal`; stderr otherwise, or with `FLICKD_LOG=stderr`.
    public static func choose(environment: [String: String]) -> LogBackend {
        switch environment["FLICKD_LOG"] {
        case "journal": return .journal
        case "stderr": return .stderr
        default: return environment["JOURNAL_STREAM"] != nil ? .journal : .stderr
        }
    }

    /// A logger on this backend.
    public func logger(level: Logger.Level) -> Logger {
        Logger(label: "flickd") { _ in FlickdLogHandler(backend: self, level: level) }
    }
}
