import FlickDisplay
import FoundationEssentials
import Glibc

/// Loads what the panel shows: a PNG/JPEG file, a folder of them as pages, or — when no path is
/// configured — a test pattern, so a fresh install shows something that proves it scrolls.
public enum ContentLoader {
    /// Content and a name for `status` and logs.
    public struct Loaded {
        /// The pixels and pages.
        public var content: Content
        /// The path, or "test pattern".
        public var name: String
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
            throw ContentError(path: path, reason: .notAllowed("expected an absolute path"))
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

    /// Loads `path` (empty: the test pattern) for a view of `view` pixels.
    /// - Parameters:
    ///   - workers: threads making tiles; 0 makes them as frames need them (replays: the same
    ///     frames every run).
    /// - Throws: `ContentError` naming the file and the reason.
    public static func load(path: String, view: PixelSize, configuration: Configuration,
                            workers: Int = TileLoader.defaultWorkers) throws -> Loaded {
        let tiles = Content.TileOptions(cacheBytes: configuration.cacheMegabytes << 20, workers: workers)
        if path.isEmpty {
            // Four screens each way: room to flick, pinch and page.
            let size = PixelSize(width: view.width * 4, height: view.height * 4)
            return Loaded(content: try Content.testPattern(size, tiles: tiles), name: "test pattern")
        }
        var info = stat()
        let isDirectory = stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        let content = isDirectory
            ? try Content.load(directory: path, pageSize: view, background: configuration.background,
                               pixelBudget: configuration.pixelBudget, direction: configuration.pageDirection,
                               tiles: tiles)
            : try Content.load(file: path, pixelBudget: configuration.pixelBudget)
        return Loaded(content: content, name: path)
    }
}
