import FlickCore
import FlickSystem
import Glibc

/// The daemon's side of `metrics.textfile`: counts what the pipeline emits and presents and
/// what reloads do, reads the rest (touches, phantoms, content, provider) when the file is
/// written, and tells the writer when something changed. It counts with the file off too, so a
/// reload that turns the file on (or moves it) writes the counts since start.
final class FleetMetrics {
    /// The writer, a component of the loop (its deadline is the next write).
    let file: MetricsTextfile
    private var counts: KioskMetrics
    private unowned let pipeline: Pipeline
    private unowned let content: ContentHost
    /// The power state and display connection, as their owners last said.
    var powerState = "on" { didSet { if powerState != oldValue { changed() } } }
    var displayConnected = true { didSet { if displayConnected != oldValue { changed() } } }
    private let clock: () -> Instant

    /// A collector writing to the config's `metrics.textfile` (nowhere when that is "").
    init(configuration: Configuration, pipeline: Pipeline, content: ContentHost, clock: @escaping () -> Instant) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        counts = KioskMetrics(startTime: Double(now.tv_sec))
        self.pipeline = pipeline
        self.content = content
        self.clock = clock
        file = MetricsTextfile(path: configuration.metricsTextfile, interval: configuration.metricsInterval) { KioskMetrics() }
        file.sample = { [unowned self] in self.sample }
        changed()
    }

    /// Takes a reloaded config's file and interval; a new file is written at once.
    func apply(_ configuration: Configuration) {
        file.interval = configuration.metricsInterval
        guard file.path != configuration.metricsTextfile else { return }
        file.path = configuration.metricsTextfile
        changed()
    }

    /// The metrics as they are now.
    var sample: KioskMetrics {
        var m = counts
        m.touches = pipeline.touchCount
        m.phantomTouches = pipeline.input.phantomTouchCount
        m.content = content.name
        m.provider = content.providerStatus?.name
        m.providerConnected = content.providerStatus?.connected ?? false
        m.contentError = content.contentError != nil
        m.powerState = powerState
        m.displayConnected = displayConnected
        return m
    }

    /// The pipeline emitted outputs: gestures are counted, and touches may have begun.
    func emitted(_ outputs: [GestureOutput]) {
        for output in outputs {
            guard case let .gesture(gesture) = output.kind else { continue }
            counts.gestures[gesture.name, default: 0] += 1
        }
        changed()
    }

    /// A frame reached the panel.
    func presented(late: Bool) {
        counts.framesPresented += 1
        if late { counts.framesLate += 1 }
        changed()
    }

    /// A reload was applied or refused.
    func reloaded(accepted: Bool) {
        if accepted { counts.reloadsAccepted += 1 } else { counts.reloadsRefused += 1 }
        changed()
    }

    /// Writes what is pending now (the daemon stopping).
    func flush(at t: Instant) { file.flush(at: t) }

    /// Something shown or counted elsewhere changed (content, provider).
    func changed() {
        guard !file.path.isEmpty else { return }
        file.changed(at: clock())
    }
}
