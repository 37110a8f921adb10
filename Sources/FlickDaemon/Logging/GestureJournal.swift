import FlickCore
import FlickSystem
import Logging

/// `log.gestures`: what the journal says of gestures.
public enum GestureLogLevel: String, CaseIterable, Hashable, Sendable {
    /// One entry per gesture (`GestureLog`), with its `FLICK_*` fields.
    case all
    /// One entry per minute with gestures in it, counting them by kind; nothing while idle. The
    /// first gesture after start or after a reload that chose this level is written in full, so
    /// whoever sets the panel up sees at once that touches arrive; so is every link tapped that
    /// flickd does not follow (a web address, another file, a link that leads nowhere), since
    /// nothing on screen shows it.
    case summary
    /// No gesture entries.
    case none
}

/// The daemon's gesture entries at the configured level (RELIABILITY.md, "Journal volume").
///
/// A busy kiosk's journal is mostly gestures, and journald writes it to the card when it is
/// persistent: "summary" counts them instead and writes the tally once per `window`, as a loop
/// companion whose deadline is the open window's end. Counts are of the entries "all" would
/// have written, by their `FLICK_GESTURE`, so a tally and the full entries agree.
public final class GestureJournal: PassiveComponent {
    /// How long a tally gathers from its first gesture: a minute keeps a busy day at no more
    /// than one entry a minute and still shows, to the minute, when the panel was used.
    public static let window: Duration = .seconds(60)

    public private(set) var level: GestureLogLevel
    /// Where entries go: the daemon's logger as it is now (reload changes its level).
    private let logger: () -> Logger
    /// The open tally: when its first gesture came, and the counts by kind.
    private var opened: Instant?
    private var counts: [String: Int] = [:]
    /// Whether "summary" has written its one full entry since start or since it was chosen.
    private var shownOne = false

    public init(level: GestureLogLevel, logger: @escaping () -> Logger) {
        self.level = level
        self.logger = logger
    }

    /// Writes or counts `output` if it is a gesture the journal names (`GestureLog.entry`).
    public func published(_ output: GestureOutput, view: ScrollView) {
        guard level != .none, let entry = GestureLog.entry(for: output, view: view) else { return }
        switch level {
        case .all:
            write(entry)
        case .summary:
            if !shownOne || Self.isUnfollowedLink(output) {
                shownOne = true
                write(entry)
            }
            if let opened, output.time >= opened + Self.window { flush(at: output.time) }
            if opened == nil { opened = output.time }
            counts[entry.fields["GESTURE"] ?? "gesture", default: 0] += 1
        case .none:
            return
        }
    }

    /// Whether `output` is a link tapped that flickd did not follow: the app's to act on.
    private static func isUnfollowedLink(_ output: GestureOutput) -> Bool {
        guard case let .gesture(.link(_, area)) = output.kind else { return false }
        if case .page = area.target { return false }
        return true
    }

    /// A reload's level: a tally open under "summary" is written first, so no count is lost.
    public func apply(_ configuration: Configuration, at now: Instant) {
        let next = configuration.logGestures
        guard next != level else { return }
        flush(at: now)
        if next == .summary { shownOne = false }
        level = next
    }

    /// Writes the open tally, if any, as one entry: at the window's end, at a reload, at stop.
    public func flush(at now: Instant) {
        guard let opened, !counts.isEmpty else { return }
        self.opened = nil
        let kinds = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        counts = [:]
        let total = kinds.reduce(0) { $0 + $1.value }
        let seconds = Int((now - opened).inSeconds.rounded())
        var metadata: Logger.Metadata = ["gestures": "\(total)", "window": "\(max(seconds, 1))"]
        for (kind, n) in kinds { metadata["count_" + kind] = "\(n)" }
        let said = kinds.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        logger().info("\(total) gesture\(total == 1 ? "" : "s") in \(max(seconds, 1)) s: \(said)", metadata: metadata)
    }

    private func write(_ entry: GestureLog.Entry) {
        var metadata: Logger.Metadata = [:]
        for (key, value) in entry.fields { metadata[key.lowercased()] = .string(value) }
        logger().info("\(entry.message)", metadata: metadata)
    }

    // MARK: PassiveComponent

    public var fileDescriptors: [Descriptor] { [] }

    public var nextDeadline: Instant? { opened.map { $0 + Self.window } }

    public func dispatch(now: Instant) {
        if let deadline = nextDeadline, now >= deadline { flush(at: now) }
    }
}
