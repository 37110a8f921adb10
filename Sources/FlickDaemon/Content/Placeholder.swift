import FlickDisplay

/// What the panel shows while the real content is not there — not built yet (a big image's
/// pyramid), not connected yet or gone (a content provider), missing or broken, or none
/// configured (`content.placeholder`). A kiosk never shows the public a test card unless asked:
/// `black` is the default; `testPattern` is what the bring-up tools and `flickd replay` show.
public enum Placeholder: Hashable, Sendable, CustomStringConvertible {
    /// The whole panel black.
    case black
    /// The whole panel in `display.background`.
    case background
    /// The test pattern (bring-up).
    case testPattern
    /// An image file (a splash), scaled down to fit the panel if larger, centred on the
    /// background.
    case image(String)

    /// As the config file spells it.
    public var description: String {
        switch self {
        case .black: "black"
        case .background: "background"
        case .testPattern: "test-pattern"
        case let .image(path): path
        }
    }

    /// The placeholder's content for a view of `view` pixels: one view-sized page that neither
    /// scrolls nor zooms (a solid colour is one buffer the panel scans out; a splash is drawn as a
    /// folder of one page, so it is never decoded whole above the pixel budget).
    /// - Throws: `ContentError` for a splash that cannot be read, or no memory for the page.
    public func content(view: PixelSize, configuration: Configuration, workers: Int) throws -> Content {
        let colour: Color
        switch self {
        case .testPattern:
            return try ContentLoader.testPattern(view: view, configuration: configuration, workers: workers)
        case let .image(path):
            // Read once now, so a bad splash is said at start rather than drawn as background.
            _ = try PyramidBuilder.imageSize(of: path)
            let source = try PageFolderSource(folder: path, files: [path], pageSize: view, background: configuration.background,
                                              direction: .horizontal, pixelBudget: configuration.pixelBudget,
                                              maxFileBytes: Content.defaultMaxFileBytes)
            let tiles = try TileStore(source: source, cacheBytes: configuration.cacheMegabytes << 20,
                                      workers: workers)
            return Content(tiles: tiles)
        case .black:
            colour = .black
        case .background:
            colour = configuration.background
        }
        guard let page = PixelBuffer(width: view.width, height: view.height) else {
            throw ContentError(path: "the placeholder", reason: .outOfMemory(width: view.width, height: view.height))
        }
        page.fill(colour.pixel)
        return Content(image: page)
    }
}
