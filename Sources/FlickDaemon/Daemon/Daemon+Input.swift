import FlickCore
import FlickDisplay
import FlickInput
import FlickWayland

extension Daemon {
    /// Where touches come from: a recording named on the command line; under a compositor (a
    /// Wayland output) the compositor's seat, so flickd opens no `/dev/input` device (the
    /// compositor has them, and a kiosk under cage has no right to them); otherwise the
    /// command line's or the config's devices.
    /// - Parameters:
    ///   - endpoint: `--input`, else the config's `input.device`, parsed.
    ///   - output: the display opened.
    ///   - logicalSize: the panel as the view lays it out.
    ///   - log: where what the journal should know goes (the seat's devices, ms times).
    /// - Throws: `EvemuError` for a recording that cannot be read, `WaylandError` when the
    ///   compositor's seat cannot be bound.
    static func chooseInput(endpoint: InputEndpoint, configuration: Configuration, output: any Output, logicalSize: Size,
                            at t: Instant, log: @escaping (String) -> Void) throws -> PipelineBuilder.Input {
        if case .recording(let file) = endpoint {
            return .recording(try EvemuRecording.load(path: file), start: t + .milliseconds(500))
        }
        if let host = output as? any WaylandSeatHost {
            if endpoint != .auto { log("input: under a compositor its seat is the input; \(endpoint) is not opened") }
            let seat = try WaylandSeat(host: host, outputSize: logicalSize, log: log)
            return .source(seat, pixelsPerMillimetre: output.pixelsPerMillimetre)
        }
        return .devices(TouchInputOptions(configuration: configuration, endpoint: endpoint, outputSize: logicalSize),
                        log: log)
    }
}
