import FlickCore
import FlickDisplay
import FlickWayland
import FoundationEssentials
import Logging

/// The display's side of the daemon: opening it, and following a DRM card's monitors as they
/// come and go (`DisplayHotplug`), each change said in the journal, `STATUS=`, `status` and the
/// metrics.
extension Daemon {
    /// What was opened, and its line for logs and `status`.
    struct OpenedDisplay {
        var opened: DisplayOpener.Opened
        var line: String
        var output: any Output { opened.output }
    }

    /// Opens the display the command line or the config names, saying what was passed over,
    /// what the config asked for that could not be had, and a card waited for.
    static func openDisplay(options: Options, configuration: Configuration, logger: Logger) throws -> OpenedDisplay {
        var opener = DisplayOpener(configuration: configuration)
        if let dir = options.snapshotDirectory {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            opener.capture = .everyFrame(directory: dir)
        }
        let opened = try opener.open(options.display ?? DisplayEndpoint(parsing: configuration.displayBackend))
        for reason in opened.passedOver { logger.notice("display: passed over \(reason)") }
        for warning in opened.warnings { logger.warning("display: \(warning)") }
        let line: String
        if opened.isFallback {
            line = "\(opened.description) (no panel: neither DRM nor fbdev opened; display.fallback = headless)"
            logger.warning("display: \(line)")
        } else if opened.waitingFor != nil {
            line = opened.description
            logger.notice("display: \(line): nothing is drawn until a DRM hotplug event brings one")
        } else {
            line = opened.description
            logger.info("display: \(line)")
        }
        return OpenedDisplay(opened: opened, line: line)
    }

    /// Follows the monitors of the DRM card in use or awaited, or the Wayland window.
    func watchDisplay(_ opened: OpenedDisplay) throws {
        if let window = opened.output as? WaylandOutput {
            // Kept alive by the window's callbacks.
            _ = try WaylandDisplay(daemon: self, output: window)
            return
        }
        guard let card = opened.opened.waitingFor ?? (opened.output as? DRMOutput)?.cardPath else { return }
        do {
            hotplug = try DisplayHotplug(loop: loop, pipeline: pipeline, card: card, configuration: configuration, logger: logger)
        } catch {
            // Without udev's events a monitor connected later is not seen: worth an error, not a
            // dead kiosk (a restart after the monitor is on brings it).
            logger.report(.error, "display: DRM hotplug events cannot be had, monitors connected later are not seen: ", error)
            return
        }
        metrics.displayConnected = pipeline.isConnected
        hotplug?.changed = { [unowned self] line, connected in
            display = line
            metrics.displayConnected = connected
            notifier.status(connected ? "display: \(line)" : "display: \(line): nothing drawn")
            runner.rearm()
        }
    }

    /// A daemon waiting for its monitor shows no first frame: it is ready all the same (the
    /// control socket answers, touches move the model), and says what it waits for.
    func readyWithoutPanel() {
        guard !pipeline.isConnected else { return }
        sayReady("ready, without a panel")
    }

}
