import FlickCore
import FlickDisplay
import Glibc
import Logging

/// Monitors that come and go: udev's `drm` events (`DeviceMonitor`, sd-device on the
/// loop) make the daemon look at its card again, and the pipeline takes what it finds
/// (`PipelineBuilder.attach`):
///
/// | panel now                 | the card says                            | then                                   |
/// |---------------------------|------------------------------------------|----------------------------------------|
/// | none (`DisconnectedOutput`) | a connector connected (the pinned one) | open it (the mode `display.mode` picks), lay out, draw |
/// | DRM, connector connected  | our connector disconnected, or gone      | close it (drawing stops), wait         |
/// | DRM, connector connected  | connected, another mode would be chosen  | close, open again: a new viewport      |
/// | DRM, connector connected  | connected, its CRTC turned off meanwhile | close, open again: modeset anew        |
/// | DRM, connector connected  | connected, as it was                     | nothing                                |
///
/// Each change is said once (journal, `STATUS=`, `status`' display line, the metrics). Nothing
/// here polls: without an event the daemon sleeps, with or without a panel.
final class DisplayHotplug {
    private unowned let pipeline: Pipeline
    private var configuration: Configuration
    private let logger: Logger
    /// udev's events (sd-device), or the kernel's own where no udev daemon runs.
    private var monitor: AnyObject?
    /// The card watched: the one in use or awaited.
    private let card: String
    /// Called with the display's new line and whether a panel is attached.
    var changed: ((_ description: String, _ connected: Bool) -> Void)?

    /// Watches `card` for `pipeline`.
    /// - Throws: `SystemError` when udev's events cannot be had (no netlink).
    init(loop: EventLoop, pipeline: Pipeline, card: String, configuration: Configuration, logger: Logger) throws {
        self.pipeline = pipeline
        self.card = card
        self.configuration = configuration
        self.logger = logger
        let heard: (DeviceEvent) -> Void = { [unowned self] event in
            guard event.isHotplug || event.action == "add" || event.action == "remove" else { return }
            self.check(at: loop.now)
        }
        if Self.udevRuns() {
            monitor = try DeviceMonitor(loop: loop, subsystem: "drm", handler: heard)
        } else {
            // sd-device hears only what udevd passes on: without it, the kernel's events.
            monitor = try KernelUevents(loop: loop, subsystem: "drm", handler: heard)
            logger.notice("display: no udev daemon (/run/udev/control): DRM hotplug heard from the kernel's uevents")
        }
    }

    /// Whether a udev daemon runs (its control socket exists).
    static func udevRuns(root: String = "") -> Bool { access(root + "/run/udev/control", F_OK) == 0 }

    /// A reload's config: the mode and connector asked for take effect at the next change.
    func apply(_ next: Configuration) { configuration = next }

    /// Looks at the card and makes the pipeline follow it.
    func check(at t: Instant) {
        if let drm = pipeline.presenter.output as? DRMOutput {
            guard let now = drm.currentConnector(), now.isConnected, !now.modes.isEmpty else {
                detach(drm, at: t, why: "\(drm.connector.name) disconnected")
                return
            }
            let wanted = KMSSelection.chooseMode(now.modes, requested: configuration.modeRequest).map { now.modes[$0] }
            if let wanted, wanted != drm.mode {
                reopen(drm, at: t, why: "\(drm.connector.name) now prefers \(wanted)")
            } else if now.currentEncoder == nil {
                reopen(drm, at: t, why: "\(drm.connector.name) connected again")
            }
        } else if !pipeline.isConnected {
            attachConnected(at: t, why: "monitor connected")
        }
    }

    private func detach(_ drm: DRMOutput, at t: Instant, why: String) {
        drm.close()
        wait(standingFor: drm, at: t, why: why)
    }

    private func reopen(_ drm: DRMOutput, at t: Instant, why: String) {
        drm.close()
        if !attachConnected(at: t, why: why) { wait(standingFor: drm, at: t, why: why) }
    }

    /// No panel: a `DisconnectedOutput` of the closed one's size and rate until the next event.
    private func wait(standingFor drm: DRMOutput, at t: Instant, why: String) {
        attach(DisconnectedOutput(size: drm.size, refreshPeriod: drm.refreshPeriod),
               description: "drm \(card): waiting for a monitor (\(why))", at: t)
    }

    /// Opens the card's connected connector and attaches it; false when there is none yet.
    @discardableResult
    private func attachConnected(at t: Instant, why: String) -> Bool {
        let opener = DisplayOpener(configuration: configuration)
        do {
            let opened = try opener.open(.drm(card: card))
            for warning in opened.warnings { logger.warning("display: \(warning)") }
            guard opened.waitingFor == nil else { return false }
            attach(opened.output, description: opened.description + " (\(why))", at: t)
            return true
        } catch {
            // A card that will not modeset now (master held elsewhere) is tried at the next event.
            logger.report(.error, "display: \(why), but it could not be opened: ", error)
            return false
        }
    }

    private func attach(_ output: any Output, description: String, at t: Instant) {
        do {
            try PipelineBuilder.attach(output, configuration: configuration, to: pipeline, note: "display: \(description)", at: t)
        } catch {
            logger.report(.error, "display: the view does not fit the new panel, kept as it was: ", error)
        }
        changed?(description, output.isConnected)
    }
}
