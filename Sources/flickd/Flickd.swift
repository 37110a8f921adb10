// flickd: iPhone-quality scrolling and zooming for Linux kiosk touch panels.
import ArgumentParser
import FlickControl
import FlickCore
import FlickDaemon
import FlickDisplay
import FlickInput
import FoundationEssentials

@main
struct Flickd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flickd",
        abstract: "Touch scrolling and zooming for kiosk panels: evdev → gestures → scroll physics → DRM/KMS.",
        version: flickVersion,
        subcommands: [Run.self, ReplayCommand.self, CheckConfig.self, ListDevices.self, EventsCommand.self, Calibrate.self,
                      RecordCommand.self, PyramidCommand.self],
        defaultSubcommand: Run.self
    )
}

/// Options shared by `run` and `replay`.
struct CommonOptions: ParsableArguments {
    @Option(help: "The config file (built-in defaults when the default file is absent).")
    var config: String?

    @Option(help: "Content to show: a PNG, JPEG or WebP image of any size, a PDF, an SVG, a Deep Zoom .dzi, a folder of pages (images, PDFs, SVGs; documents are drawn by flickd-render, which run and replay start), or provider[:NAME] (an app draws it over the control socket; content.placeholder until it connects). Default: the config's; with none, the placeholder (run) or the test pattern (replay).")
    var content: String?

    @Option(name: .customLong("snapshot-dir"), help: "Write frames as PNG files into this folder.")
    var snapshotDirectory: String?

    /// Loads the config, or exits with EX_CONFIG naming the file, line and key.
    func loadConfiguration() throws -> (Configuration, path: String, fromFile: Bool) {
        try Self.loadConfiguration(config)
    }

    /// Loads `config`, else the default file if present, else the built-in defaults; or exits
    /// with EX_CONFIG naming the file, line and key.
    static func loadConfiguration(_ config: String?) throws -> (Configuration, path: String, fromFile: Bool) {
        let path = config ?? ConfigLoader.defaultPath
        do {
            let (configuration, fromFile) = try ConfigLoader.load(path: path, explicit: config != nil)
            return (configuration, path, fromFile)
        } catch {
            throw failure(error)
        }
    }
}

/// An error said alone on standard error, `flickd: ` and its one rendering (`FlickError`), and
/// the exit status its kind has in sysexits.h (64 usage, 65 data, 66 no input, 69 unavailable,
/// 70 internal, 74 I/O, 78 config): runtime and data errors are no usage errors, so the usage
/// text does not follow them.
func failure(_ error: any Error) -> ExitCode {
    writeStandardError("flickd: \(error)\n")
    return ExitCode((error as? any FlickError)?.kind.rawValue ?? ErrorKind.software.rawValue)
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the daemon (the default).")

    @OptionGroup var common: CommonOptions

    @Option(help: "auto, a device such as /dev/input/event3, or evemu:FILE (replayed in real time).")
    var input: String?

    @Option(help: "auto, drm[:/dev/dri/cardN], fbdev[:/dev/fbN], headless[:WIDTHxHEIGHT] or wayland[:WIDTHxHEIGHT] (a window on WAYLAND_DISPLAY's compositor; fullscreen without a size).")
    var display: String?

    func run() throws {
        let (configuration, path, fromFile) = try common.loadConfiguration()
        let daemon: Daemon
        do {
            let options = Daemon.Options(
                configPath: path, configPathExplicit: common.config != nil,
                input: try input.map(InputEndpoint.init(parsing:)),
                display: try display.map(DisplayEndpoint.init(parsing:)),
                content: common.content, snapshotDirectory: common.snapshotDirectory)
            daemon = try Daemon(options: options, configuration: configuration, configFromFile: fromFile)
        } catch {
            throw failure(error)
        }
        let code = daemon.run()
        if code != 0 { throw ExitCode(code) }
    }
}

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Play an evemu recording on a virtual clock, as fast as possible, on the headless display.")

    @OptionGroup var common: CommonOptions

    @Argument(help: "The recording (NAME.event, or NAME.WHAT.events beside NAME.desc).")
    var recording: String

    @Option(help: "headless[:WIDTHxHEIGHT]; by default the recorded panel's size.")
    var display: String?

    @Flag(help: "Write every gesture, content touch and delegate event as one JSON object a line, and a frame line per frame presented.")
    var json = false

    @Flag(help: "Also print every state transition of every machine (time, machine: old → event → new).")
    var trace = false

    @Option(name: .customLong("wall-clock"), help: "The wall clock at the recording's first event, YYYY-MM-DDTHH:MM[:SS] in UTC, for power.on_hours (default 2000-01-01T12:00: never the machine's clock).")
    var wallClock: String?

    @Option(name: .customLong("time-zone"), help: "The zone power.on_hours is read in: UTC or a fixed offset: +01:00, or --time-zone=-05:30 west of UTC (default UTC: never the machine's zone).")
    var timeZone: String?

    func run() throws {
        let (configuration, _, _) = try common.loadConfiguration()
        let utc = try wallClock.map { text in
            guard let utc = CivilTime.parse(text) else {
                throw failure(EndpointError(option: "--wall-clock", value: text, expected: "a time in UTC such as 2026-01-01T12:00"))
            }
            return utc
        }
        let zone = try timeZone.map { text in
            guard let zone = FixedOffsetZone(parsing: text) else {
                throw failure(EndpointError(option: "--time-zone", value: text, expected: "UTC or an offset from it such as +01:00 or -05:30"))
            }
            return zone
        }
        var size: PixelSize?
        if let display {
            switch try? DisplayEndpoint(parsing: display) {
            case .headless(let s): size = s
            default:
                throw failure(EndpointError(option: "--display", value: display,
                                            expected: "headless[:WIDTHxHEIGHT]: replay runs on a virtual clock"))
            }
        }
        var options = Replay.Options(recording: recording, size: size, content: common.content,
                                     snapshotDirectory: common.snapshotDirectory)
        options.tracing = trace
        if let utc { options.wallClock = utc }
        if let zone { options.timeZone = zone }
        let summary: Replay.Summary
        do {
            summary = try Replay.run(options, configuration: configuration, sink: ReplayPrinter(json: json, trace: trace),
                                     note: { writeStandardError("flickd: " + $0 + "\n") })
        } catch {
            throw failure(error)
        }
        let rest = summary.stillMoving ? "still moving when stopped" : "at rest"
        let done = "replayed \(recording): \(summary.events) events, \(summary.frames) frames, "
            + "\(rest) after \(summary.duration.inSeconds.brief) s, offset (\(summary.offset.x.brief), "
            + "\(summary.offset.y.brief)), zoom \(summary.zoomScale.brief)"
            + (common.snapshotDirectory.map { ", \(summary.snapshots) PNG frames in \($0)" } ?? "")
        writeStandardError(done + "\n")
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config",
                                                    abstract: "Check a config file; print the first problem with its line and key.")

    @Argument(help: "The config file.")
    var file: String

    @Option(help: "The service user that must be able to read the content (the unit's User=); checked when run as root.")
    var user = "flickd"

    @Option(help: "The panel's size, WIDTHxHEIGHT, for the zoom the content starts at (default: display.mode's, else display.headless_size).")
    var panel: String?

    func run() throws {
        do {
            let (configuration, _) = try ConfigLoader.load(path: file)
            let size = try panel.map { text in
                guard let size = PixelSize(parsing: text) else {
                    throw EndpointError(option: "--panel", value: text, expected: "WIDTHxHEIGHT, each from 1 to 16384")
                }
                return size
            }
            // The content too: a typo in content.path would show the public a placeholder.
            let said = try ContentCheck.describe(configuration, file: file, user: user, panel: size)
            print("\(file): ok")
            for line in said { print("  \(line)") }
        } catch {
            throw failure(error)
        }
    }
}

struct ListDevices: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list-devices",
                                                    abstract: "Show every input device, whether it is taken as a touchscreen, and why.")

    @Option(help: "The folder of event nodes.")
    var directory = "/dev/input"

    func run() throws {
        let reports = DeviceInventory.list(directory: directory)
        if reports.isEmpty { print("no event devices in \(directory)") }
        for report in reports { print(report) }
    }
}

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show targets on the panel, take a touch on each and fit the touch calibration matrix.",
        discussion: """
            Prints each target as `target I/N at (X, Y)`, then the residuals and the matrix as a config \
            line and a udev rule; with --write, sets input.calibration in the config file instead.
            """)

    @Option(help: "The config file (its display, input and rotation settings; --write changes it).")
    var config: String?

    @Option(help: "auto, drm[:/dev/dri/cardN], fbdev[:/dev/fbN] or headless[:WIDTHxHEIGHT].")
    var display: String?

    @Option(help: "auto or a device such as /dev/input/event3.")
    var input: String?

    @Option(help: "Read the touches from an evemu recording, on a virtual clock (headless display).")
    var recording: String?

    @Option(help: "How many targets, 3 to 25: the corners first, then the centre.")
    var points = CalibrationTargets.defaultCount

    @Option(help: "Seconds each target waits for its touch.")
    var timeout = 30.0

    @Flag(help: "Write the matrix into the config file (input.calibration) instead of printing it.")
    var write = false

    func validate() throws {
        guard CalibrationTargets.allowedCounts.contains(points) else {
            throw ValidationError("--points takes 3 to 25 targets (3 at least for an affine fit), not \(points)")
        }
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout takes seconds above 0 (at most a day), not \(timeout)")
        }
    }

    func run() throws {
        let (configuration, path, fromFile) = try CommonOptions.loadConfiguration(config)
        if write && !fromFile {
            throw failure(ConfigError(path: path, line: 0, key: "input.calibration", message: "no such file to write the matrix to"))
        }
        do {
            var options = Calibrator.Options()
            options.display = try display.map(DisplayEndpoint.init(parsing:))
            options.input = try input.map(InputEndpoint.init(parsing:))
            options.recording = recording
            options.points = points
            options.settings.timeout = .seconds(double: timeout)
            let calibrator = try Calibrator(options: options, configuration: configuration, say: { writeStandardOutput($0 + "\n") })
            let result = try calibrator.run()
            for line in result.residualLines { writeStandardOutput(line + "\n") }
            if write {
                try CalibrationConfigEdit.write(result.fit, to: path)
                writeStandardOutput("wrote \(result.fit.tomlLine) under [input] in \(path)\n")
            } else {
                for line in result.outputLines { writeStandardOutput(line + "\n") }
            }
        } catch {
            throw failure(error)
        }
    }
}
