extension Daemon {
    /// What the command line decided; the rest comes from the config file.
    public struct Options: Sendable {
        /// The config file read at start and at each reload.
        public var configPath: String
        /// Whether `--config` named it (then a missing file is an error, not the defaults).
        public var configPathExplicit: Bool
        /// `--input`, over the config's `input.device`.
        public var input: InputEndpoint?
        /// `--display`, over the config's `display.backend`.
        public var display: DisplayEndpoint?
        /// `--content`, over the config's `content.path`; a reload does not change it.
        public var content: String?
        /// `--snapshot-dir`: every frame written there as PNG.
        public var snapshotDirectory: String?

        /// Creates options.
        public init(configPath: String, configPathExplicit: Bool, input: InputEndpoint? = nil,
                    display: DisplayEndpoint? = nil, content: String? = nil, snapshotDirectory: String? = nil) {
            self.configPath = configPath
            self.configPathExplicit = configPathExplicit
            self.input = input
            self.display = display
            self.content = content
            self.snapshotDirectory = snapshotDirectory
        }
    }
}
