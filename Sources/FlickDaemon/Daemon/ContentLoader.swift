import FlickDisplay
import Foundation

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

    /// Loads `path` (empty: the test pattern) for a view of `view` pixels.
    /// - Throws: `ContentError` naming the file and the reason.
    public static func load(path: String, view: PixelSize, configuration: Configuration) throws -> Loaded {
        if path.isEmpty {
            // Four screens each way: room to flick, pinch and page.
            let size = PixelSize(width: view.width * 4, height: view.height * 4)
            guard let pattern = Content.testPattern(size) else {
                throw ContentError(path: "test pattern", reason: .outOfMemory(width: size.width, height: size.height))
            }
            return Loaded(content: pattern, name: "test pattern")
        }
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let content = isDirectory.boolValue
            ? try Content.load(directory: path, pageSize: view, background: configuration.background,
                               pixelBudget: configuration.pixelBudget, direction: configuration.pageDirection)
            : try Content.load(file: path, pixelBudget: configuration.pixelBudget)
        return Loaded(content: content, name: path)
    }
}
