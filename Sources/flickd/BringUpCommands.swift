import ArgumentParser
import FlickCore
import FlickDaemon
import FlickDisplay

/// `flickd events`: a live view of what the panel sends, in flickd's terms (README, "Bring up a
/// new panel").
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show each contact as the panel reports it (device units and screen pixels), the report rate, "
            + "SYN_DROPPED and the gestures flickd recognises.",
        discussion: """
            Two header lines (the device and its axes; the screen and the mapping), then one line per event, \
            seconds from the first report first: `#N down|move  slot S  dev (X, Y)  px (X, Y)  pressure P  major M` \
            (slot, pressure and major only when the device has them), `#N up|cancelled  px (X, Y)`, \
            `rate: R reports/s, interval median M ms, p95 P ms, jitter J ms (N intervals)` every --rate-interval \
            of touch, `SYN_DROPPED on DEVICE: …` and `gesture: …` (the journal's sentence); at the end \
            `rate over the run: …`. Stop flickd first: it grabs the touchscreen.
            """)

    @Argument(help: "The device node (default: the first touchscreen, as `flickd list-devices` shows).")
    var device: String?

    @Option(help: "The config file: touch rotation, calibration and gesture tunables.")
    var config: String?

    @Option(help: "Play an evemu recording on a virtual clock instead of reading a device.")
    var recording: String?

    @Option(help: "The panel's size in pixels, WIDTHxHEIGHT (default: from the device's axes).")
    var size: String?

    @Option(help: "The content the gestures act on, as `flickd replay --content` takes it (its edges and pages decide bounces and page turns; a PDF or SVG is drawn by flickd-render). Default: the test pattern.")
    var content: String?

    @Option(help: "Stop after this many reports.")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(name: .customLong("rate-interval"), help: "Seconds of touch between two report-rate lines.")
    var rateInterval = 1.0

    func run() throws {
        let (configuration, _, _) = try CommonOptions.loadConfiguration(config)
        var options = Events.Options(device: device, recording: recording)
        options.content = content ?? ""
        do {
            if device != nil && recording != nil {
                throw EndpointError(option: "--recording", value: recording ?? "", expected: "a device or a recording, not both")
            }
            options.size = try size.map { text throws(EndpointError) in
                guard let size = PixelSize(parsing: text) else {
                    throw EndpointError(option: "--size", value: text, expected: "WIDTHxHEIGHT with both from 1 to 16384")
                }
                return size
            }
            if let count, count < 1 { throw EndpointError(option: "--count", value: "\(count)", expected: "a count of 1 or more") }
            options.count = count
            options.duration = try duration.map { try seconds($0, option: "--duration") }
            options.rateInterval = try seconds(rateInterval, option: "--rate-interval")
            try Events.run(options, configuration: configuration, out: { writeStandardOutput($0 + "\n") },
                           note: { writeStandardError("flickd: \($0)\n") })
        } catch {
            throw failure(error)
        }
    }
}

/// `flickd record`: the panel's events into an evemu file, to replay and to attach to a report.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Write the panel's events to an evemu recording (as evemu-record does) until Ctrl-C, SIGTERM or --duration.",
        discussion: """
            The file holds the device's N:, I:, P:, B: and A: lines, then its last slot positions and one E: line \
            per event, times from the first; it always ends at a whole line. `flickd replay FILE` plays it back. \
            Stop flickd first: it grabs the touchscreen.
            """)

    @Argument(help: ArgumentHelp("The device node (default: the first touchscreen), then the recording to write.",
                                 valueName: "[DEVICE] FILE"))
    var arguments: [String]

    @Option(help: "The config file (its input.match_name picks the device too).")
    var config: String?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    func validate() throws {
        guard (1...2).contains(arguments.count) else {
            throw ValidationError("Give the file to write, and before it the device if not the first touchscreen.")
        }
    }

    func run() throws {
        let (configuration, _, _) = try CommonOptions.loadConfiguration(config)
        var options = Record.Options(device: arguments.count == 2 ? arguments[0] : nil, file: arguments[arguments.count - 1])
        let summary: Record.Summary
        do {
            options.duration = try duration.map { try seconds($0, option: "--duration") }
            summary = try Record.run(options, configuration: configuration) { device in
                writeStandardError("flickd: recording \(device) to \(options.file); Ctrl-C stops\n")
            }
        } catch {
            throw failure(error)
        }
        let dropped = summary.dropped > 0 ? ", \(summary.dropped) SYN_DROPPED" : ""
        writeStandardError("flickd: recorded \(summary.events) events\(dropped) from \(summary.device) to \(options.file)\n")
    }
}

/// A positive, finite number of seconds given on the command line.
private func seconds(_ value: Double, option: String) throws(EndpointError) -> Duration {
    guard value.isFinite, value > 0, value < 1e9 else {
        throw EndpointError(option: option, value: value.brief, expected: "a number of seconds above 0")
    }
    return .seconds(double: value)
}
