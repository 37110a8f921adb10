/// The fuzz targets: what each feeds the fuzzer's bytes to, and the seeds it starts from.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Evemu text through `EvemuRecording.parse`, then replayed through the decoder and the
    /// daemon path (recogniser, model, frames, journal, events).
    case evemu
    /// TOML text through `ConfigLoader.parse` and its validation.
    case config
    /// Control-socket lines through `ControlRequest.decode`, `ControlCommand.init` and the
    /// daemon path (handler, model, frames, journal, events, reply).
    case control
    /// A device and raw (type, code, value) triples through `TouchDecoder` (`EventTriples`).
    case evdev
    /// A Deep Zoom descriptor through `DZIDescriptor.parse`, or a tile file through
    /// `DZISource.decodeTile` (the first byte chooses).
    case dzi
    /// A content provider's lines and steps through `ControlRequest.decode`, `ControlCommand.init`
    /// and a real `TileProvider` and `TileStore` over a sealed memfd pool, drawn by frames.
    case provider
    /// A document file through flickd-render's input path: `DocumentKind.sniff`, poppler or
    /// librsvg (`PageSources.open`), `Document` (the layout), the `provide` or `documentError`
    /// line, and a few tiles drawn.
    case document

    /// Runs one input. A contract broken is a crash (`FuzzCheck`), so libFuzzer keeps the input.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .evemu: EvemuTarget.run(bytes)
        case .config: ConfigTarget.run(bytes)
        case .control: ControlTarget.run(bytes)
        case .evdev: EvdevTarget.run(bytes)
        case .dzi: DZITarget.run(bytes)
        case .provider: ProviderTarget.run(bytes)
        case .document: DocumentTarget.run(bytes)
        }
    }

    /// The seed corpus, made from the project's own generators: file name → contents.
    public func seeds() -> [(name: String, bytes: [UInt8])] {
        switch self {
        case .evemu: EvemuTarget.seeds()
        case .config: ConfigTarget.seeds()
        case .control: ControlTarget.seeds()
        case .evdev: EvdevTarget.seeds()
        case .dzi: DZITarget.seeds()
        case .provider: ProviderTarget.seeds()
        case .document: DocumentTarget.seeds()
        }
    }
}
