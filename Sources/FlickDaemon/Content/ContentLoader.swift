import FlickDisplay
import FoundationEssentials
import Glibc

/// Loads what the panel shows: a PNG/JPEG file (an image too big to decode whole is shown from
/// a pyramid built once in the cache folder), a Deep Zoom pyramid, a folder of images as pages,
/// a PDF or SVG or a folder of them (only found here: `flickd-render` draws them), or — when
/// no path is configured — a test pattern, so a fresh install shows something that proves it
/// scrolls.
public enum ContentLoader {
    /// Content and a name for `status` and logs.
    public struct Loaded {
        /// The pixels and pages.
        public var content: Content
        /// The path, or "test pattern".
        public var name: String
        /// The `.dzi` of the cached pyramid the content is read from, when it is a big image's.
        public var pyramid: String? = nil
    }

    /// Resolves `path` (symbolic links and `..` included) and checks it lies inside one of
    /// `directories`, so a client of the control socket can open nothing else.
    /// - Returns: the resolved path.
    /// - Throws: `ContentError` saying why the path is refused.
    public static func allowed(_ path: String, directories: [String]) throws -> String {
        guard !directories.isEmpty else {
            throw ContentError(path: path, reason: .notAllowed("no folder is allowed: set content.load_directories in the config"))
        }
        guard path.hasPrefix("/") else {
            throw ContentError(path: path, reason: .notAllowed(
                "expected an absolute path: the daemon cannot know the client's folder (flickctl load sends one)"))
        }
        guard let resolved = realpath(path, nil) else {
            throw ContentError(path: path, reason: .notAllowed("no such file or folder"))
        }
        defer { free(resolved) }
        let target = String(cString: resolved)
        for directory in directories {
            guard let base = realpath(directory, nil) else { continue }
            defer { free(base) }
            let root = String(cString: base)
            if target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/") { return target }
        }
        throw ContentError(path: path, reason: .notAllowed("outside the allowed folders (\(directories.joined(separator: ", ")))"))
    }

    /// For content `provider` or `provider:NAME` (an app draws it over the control socket): the
    /// name required of the provider, empty for any; `nil` for any other content.
    public static func providerName(_ path: String) -> String? {
        if path == "provider" { return "" }
        guard path.hasPrefix("provider:") else { return nil }
        return String(path.dropFirst("provider:".count))
    }

    /// What showing a path takes: content ready now, or a pyramid to build first (an image
    /// over `content.pixel_budget` seen for the first time).
    public enum Plan {
        /// Ready to show.
        case ready(Loaded)
        /// `image` needs its pyramid built into `cacheDirectory` (`PyramidBuilder.build`), then
        /// `prepare` again.
        case pyramid(image: String, cacheDirectory: String)
        /// A PDF or SVG, or a folder of them (`DocumentFiles`): drawn by `flickd-render`, which
        /// the daemon starts (docs/documents.md); `files` in page order.
        case document(files: [String])
    }

    /// Loads `path` (empty: the test pattern) for a view of `view` pixels, building an image's
    /// pyramid first when it needs one, and starting `flickd-render` for a document, whose tiles
    /// are then drawn as frames need them (`flickd replay`; the daemon builds off its loop and
    /// never waits for the helper).
    /// - Parameters:
    ///   - workers: threads making tiles; 0 makes them as frames need them (replays: the same
    ///     frames every run).
    /// - Throws: `ContentError` naming the file and the reason.
    public static func load(path: String, view: PixelSize, configuration: Configuration,
                            workers: Int = TileLoader.defaultWorkers) throws -> Loaded {
        switch try prepare(path: path, view: view, configuration: configuration, workers: workers) {
        case .ready(let loaded):
            return loaded
        case .pyramid(let image, let cacheDirectory):
            _ = try PyramidBuilder.build(image: image, cacheDirectory: cacheDirectory)
            guard case .ready(let loaded) = try prepare(path: path, view: view, configuration: configuration,
                                                       workers: workers) else {
                throw ContentError(path: image, reason: .corrupt(detail: "its pyramid was built but cannot be found"))
            }
            return loaded
        case .document(let files):
            let (document, pages, links) = try RenderedDocument.open(path: path, files: files, configuration: configuration, view: view)
            let store = try TileStore(source: document, cacheBytes: configuration.cacheMegabytes << 20, workers: 0)
            let content = Content(tiles: store, pages: pages)
            content.links = links
            return Loaded(content: content, name: path)
        }
    }

    /// The size of the image `path` names, the content being no other kind: a file that is no
    /// PNG or JPEG either is said to be none of the kinds of content, not merely no image.
    /// - Throws: `ContentError` naming `path`.
    static func imageSize(of path: String) throws -> PixelSize {
        do {
            return try PyramidBuilder.imageSize(of: path)
        } catch let error as ContentError where error.path == path && error.reason == .unsupportedFormat {
            throw ContentError(path: path, reason: .notContent)
        }
    }

    /// The test pattern for a view of `view` pixels: four screens each way, room to flick,
    /// pinch and page (bring-up, replays, `content.placeholder = "test-pattern"`).
    /// - Throws: `ContentError` when its tiles cannot be made.
    public static func testPattern(view: PixelSize, configuration: Configuration, workers: Int) throws -> Content {
        let tiles = Content.TileOptions(cacheBytes: configuration.cacheMegabytes << 20, workers: workers)
        return try Content.testPattern(PixelSize(width: view.width * 4, height: view.height * 4), tiles: tiles)
    }

    /// What `path` is and what showing it takes: a folder of pages, a Deep Zoom descriptor
    /// (`.dzi`, `.xml`), an image decoded whole (up to `content.pixel_budget` pixels) or shown
    /// from its pyramid in the cache folder (`content.cache_directory`), built once.
    /// - Throws: `ContentError` naming the file and the reason.
    public static func prepare(path: String, view: PixelSize, configuration: Configuration,
                               workers: Int = TileLoader.defaultWorkers) throws -> Plan {
        let tiles = Content.TileOptions(cacheBytes: configuration.cacheMegabytes << 20, workers: workers)
        let waiting = providerName(path).map { " (waiting for " + ($0.isEmpty ? "a content provider)" : "content provider \($0))") }
        if path.isEmpty || waiting != nil {
            return .ready(Loaded(content: try testPattern(view: view, configuration: configuration, workers: workers),
                                 name: "test pattern" + (waiting ?? "")))
        }
        if let files = try DocumentFiles.documents(at: path) {
            try DocumentFiles.checkReadable(files)
            return .document(files: files)
        }
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
            return .ready(Loaded(content: try Content.load(directory: path, pageSize: view, background: configuration.background,
                                                           pixelBudget: configuration.pixelBudget,
                                                           direction: configuration.pageDirection, tiles: tiles),
                                 name: path))
        }
        let lower = path.lowercased()
        if lower.hasSuffix(".dzi") || lower.hasSuffix(".xml") {
            return .ready(Loaded(content: try Content.load(deepZoom: path, tiles: tiles), name: path))
        }
        let size = try imageSize(of: path)
        if size.area <= configuration.pixelBudget {
            return .ready(Loaded(content: try Content.load(file: path, pixelBudget: configuration.pixelBudget), name: path))
        }
        let cache = configuration.cacheDirectory
        let descriptor = try PyramidBuilder.cachedDescriptor(for: path, cacheDirectory: cache)
        if access(descriptor, F_OK) == 0 {
            return .ready(Loaded(content: try Content.load(deepZoom: descriptor, tiles: tiles), name: path, pyramid: descriptor))
        }
        // A folder systemd did not make (a run outside the unit): made here, as the state's is.
        if access(cache, F_OK) != 0 { _ = mkdir(cache, 0o755) }
        return .pyramid(image: path, cacheDirectory: cache)
    }
}
