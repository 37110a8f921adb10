import FlickCore
import FlickSystem
import FoundationEssentials
import Glibc

/// Writes `KioskMetrics` to a file in node_exporter's textfile-collector convention
/// (`metrics.textfile`): replaced atomically (a scrape never reads half a file), at most once
/// every `interval`, and only when something changed, so an idle kiosk's file stands still and
/// the daemon has no timer armed for it.
///
/// Passive (docs/ARCHITECTURE.md, "One loop, passive parts"): the daemon says `changed(at:)`
/// when a count moves, which sets `nextDeadline` to the earliest time the interval allows; the
/// loop's `dispatch(now:)` then takes a sample and writes it if its text differs from the file's.
public final class MetricsTextfile: PassiveComponent {
    /// The file, e.g. `/var/lib/prometheus/node-exporter/flickd.prom`. Another path (a reload)
    /// is written at the next write, in full.
    public var path: String {
        didSet { if path != oldValue { (written, warned) = (nil, false) } }
    }
    /// The shortest time between two writes.
    public var interval: Duration
    /// A write failed: said once, until a write succeeds again.
    public var failed: ((SystemError) -> Void)?
    /// The metrics as they are now.
    public var sample: () -> KioskMetrics
    /// The text in the file, as last written.
    private var written: String?
    private var lastWrite: Instant?
    private var due: Instant?
    private var warned = false

    /// Creates a writer; nothing is written before the first `changed(at:)`.
    public init(path: String, interval: Duration, sample: @escaping () -> KioskMetrics) {
        self.path = path
        self.interval = interval
        self.sample = sample
    }

    /// Something counted changed at `t`: write at the first time the interval allows.
    public func changed(at t: Instant) {
        guard due == nil else { return }
        due = lastWrite.map { max(t, $0 + interval) } ?? t
    }

    /// Writes what is pending now, whatever the interval (the daemon stopping).
    public func flush(at t: Instant) {
        guard due != nil else { return }
        due = t
        dispatch(now: t)
    }

    public var fileDescriptors: [Descriptor] { [] }
    public var nextDeadline: Instant? { due }

    public func dispatch(now t: Instant) {
        guard let due, due <= t else { return }
        self.due = nil
        let text = sample().text
        guard text != written else { return }
        lastWrite = t
        do {
            let isNew = access(path, F_OK) != 0
            try AtomicFile.write(Data(text.utf8), to: path, newFileMode: 0o644)
            // node_exporter runs as another user: a new file is readable by all whatever the
            // service's umask; one the admin made keeps the mode it was given.
            if isNew { _ = chmod(path, 0o644) }
            written = text
            warned = false
        } catch {
            if !warned { failed?(error) }
            warned = true
        }
    }
}
