import CPixman
import FlickCore
import FlickSystem

/// What the viewer scrolls: one image decoded whole, or tiles at levels of detail (a Deep Zoom
/// pyramid, the test pattern, a folder of pages), possibly made of pages.
///
/// A folder of images becomes pages laid out left to right (or top to bottom), each exactly one
/// page size wide and high (the viewport, normally). Each image is centred in its page and
/// scaled down to fit if it is larger (never up); the rest of the page is the background colour
/// given at load time. So when the images are the viewport's size, page *n* at rest (offset
/// `n × width`, zoom 1) shows image *n* exactly.
public final class Content {
    /// Where the pixels are.
    public enum Pixels {
        /// All of them in one buffer (an image small enough to decode whole).
        case image(PixelBuffer)
        /// Tiles made as they are needed, in a cache bounded by its budget.
        case tiles(TileStore)
    }

    /// The pixels.
    public let pixels: Pixels
    /// The pages, in order; a single image is one page covering it.
    public let pages: [Page]
    /// The content's size in content pixels (the model's unscaled content size).
    public let size: Size
    /// What to say of how it was read (a WebP animation's first frame), with `summary`.
    public var note: String?
    /// A document's links, in content coordinates, as its pages are drawn: a tap on one follows
    /// it (empty for any other content).
    public var links = DocumentLinks()

    /// One page of content.
    public struct Page: Hashable, Sendable {
        /// The image file the page shows, if it came from one.
        public var source: String?
        /// The page's rectangle in content pixels.
        public var frame: Rect

        /// A page showing `source` (if it came from a file) at `frame`.
        public init(source: String?, frame: Rect) {
            self.source = source
            self.frame = frame
        }
    }

    /// How tiled content keeps and makes its tiles.
    public struct TileOptions: Hashable, Sendable {
        /// The decoded-tile cache's budget in bytes.
        public var cacheBytes: Int
        /// Worker threads making tiles; 0 makes them as frames need them (deterministic:
        /// replays and tests).
        public var workers: Int

        /// Creates options.
        public init(cacheBytes: Int, workers: Int) {
            self.cacheBytes = cacheBytes
            self.workers = workers
        }

        /// 64 MiB, tiles made as frames need them.
        public static let inline = TileOptions(cacheBytes: 64 << 20, workers: 0)
    }

    /// The most bytes one file may have before it is even read (256 MiB).
    public static let defaultMaxFileBytes = 256 << 20

    /// Wraps an image as single-page content.
    public init(image: PixelBuffer, source: String? = nil) {
        let frame = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        pixels = .image(image)
        pages = [Page(source: source, frame: frame)]
        size = frame.size
    }

    /// Tiled content; one page covering it unless `pages` are given.
    public init(tiles: TileStore, pages: [Page]? = nil) {
        let grid = tiles.source.grid, scale = Double(tiles.source.contentScale)
        let frame = Rect(x: 0, y: 0, width: Double(grid.width) / scale, height: Double(grid.height) / scale)
        pixels = .tiles(tiles)
        self.pages = pages ?? [Page(source: tiles.source.name, frame: frame)]
        size = frame.size
    }

    /// The whole image, when the content is one decoded image.
    public var image: PixelBuffer? {
        if case .image(let image) = pixels { image } else { nil }
    }

    /// The tiles, when the content is tiled.
    public var tiles: TileStore? {
        if case .tiles(let tiles) = pixels { tiles } else { nil }
    }

    /// The test pattern as tiled content, for demos without configured content.
    /// - Throws: `ContentError` if the size is unusable or the coarsest tiles cannot be made.
    public static func testPattern(_ size: PixelSize, tiles options: TileOptions = .inline) throws -> Content {
        guard let source = TestPatternSource(size: size) else {
            throw ContentError(path: "test pattern", reason: .outOfMemory(width: size.width, height: size.height))
        }
        return Content(tiles: try TileStore(source: source, cacheBytes: options.cacheBytes, workers: options.workers))
    }

    /// Opens a Deep Zoom pyramid (its `.dzi` or `.xml` descriptor, tiles beside it).
    /// - Throws: `ContentError` naming the descriptor (malformed, absurd, no tiles) or, when not
    ///   even its coarsest level can be read, the first tile at fault.
    public static func load(deepZoom descriptor: String, tiles options: TileOptions = .inline) throws -> Content {
        Content(tiles: try TileStore(source: try DZISource(descriptor: descriptor), cacheBytes: options.cacheBytes,
                                     workers: options.workers))
    }

    /// Loads one PNG, JPEG or WebP file, recognised by its first bytes, decoded whole (a WebP
    /// animation's first frame, said in `note`).
    ///
    /// - Parameters:
    ///   - path: the image file.
    ///   - pixelBudget: the most pixels the image may have.
    ///   - maxFileBytes: the largest file read at all.
    /// - Throws: `ContentError` naming `path` for a missing, empty, oversized, unsupported,
    ///   truncated or corrupt file, or one over the budget.
    public static func load(file path: String, pixelBudget: Int, maxFileBytes: Int = defaultMaxFileBytes) throws -> Content {
        let decoded = try decodeImage(at: path, pixelBudget: pixelBudget, maxFileBytes: maxFileBytes)
        let content = Content(image: decoded.pixels, source: path)
        content.note = decoded.note
        return content
    }

    /// Loads every `.png`, `.jpg`, `.jpeg` and `.webp` file of a folder, in file-name order, as pages of
    /// tiles: a page's file is decoded when a tile near the view needs it.
    ///
    /// Hidden files and other extensions are skipped. Each file is opened and its first bytes
    /// checked here; a file that is corrupt further in is reported when its page is first
    /// drawn, and its page shows the background.
    /// - Parameters:
    ///   - directory: the folder.
    ///   - pageSize: each page's size, normally the viewport's.
    ///   - background: the colour around images smaller than their page.
    ///   - pixelBudget: the most pixels of each decoded image.
    ///   - direction: pages side by side (`horizontal`) or one under the other (`vertical`).
    ///   - tiles: the cache and the workers.
    /// - Throws: `ContentError` naming the folder (unreadable, no images, too many pages).
    public static func load(directory: String, pageSize: PixelSize, background: Color, pixelBudget: Int,
                            direction: PageDirection = .horizontal, maxFileBytes: Int = defaultMaxFileBytes,
                            tiles options: TileOptions = .inline) throws -> Content {
        let names: [String]
        switch FileIO.list(directory) {
        case .success(let list): names = list
        case .failure(let errno): throw ContentError(path: directory, reason: .unreadable(errno))
        }
        let files = names.filter { name in
            !name.hasPrefix(".") && ImageFormat.hasImageExtension(name)
        }.sorted().map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
        guard !files.isEmpty else { throw ContentError(path: directory, reason: .noImages) }
        for file in files { try checkSignature(of: file) }
        let source = try PageFolderSource(folder: directory, files: files, pageSize: pageSize, background: background,
                                          direction: direction, pixelBudget: pixelBudget, maxFileBytes: maxFileBytes)
        let store = try TileStore(source: source, cacheBytes: options.cacheBytes, workers: options.workers)
        let pages = zip(files, source.pageFrames).map { file, frame in
            let rect = Rect(x: Double(frame.x0), y: Double(frame.y0), width: Double(frame.width), height: Double(frame.height))
            return Page(source: file, frame: rect)
        }
        return Content(tiles: store, pages: pages)
    }

    /// Throws what `decodeImage` would for a file that cannot be opened, is empty or is neither
    /// of the formats flickd decodes (`ImageFormat`), reading only its first bytes.
    static func checkSignature(of path: String) throws {
        switch FileIO.read(path, limit: ImageFormat.signatureLength, truncating: true) {
        case .success(let bytes):
            if bytes.isEmpty { throw ContentError(path: path, reason: .empty) }
            guard ImageFormat(signature: bytes) != nil else { throw ContentError(path: path, reason: .unsupportedFormat) }
        case .failure(.system(let error)): throw ContentError(path: path, reason: .unreadable(error))
        case .failure(.tooLarge): return
        }
    }

    /// Reads and decodes one file, choosing the decoder from its signature.
    static func decodeImage(at path: String, pixelBudget: Int, maxFileBytes: Int) throws -> DecodedImage {
        let data: [UInt8]
        switch FileIO.read(path, limit: maxFileBytes) {
        case .success(let bytes): data = bytes
        case .failure(.system(let error)): throw ContentError(path: path, reason: .unreadable(error))
        case .failure(.tooLarge(let size)):
            throw ContentError(path: path, reason: .fileTooLarge(bytes: size, limit: maxFileBytes))
        }
        if data.isEmpty { throw ContentError(path: path, reason: .empty) }
        guard let format = ImageFormat(signature: data) else { throw ContentError(path: path, reason: .unsupportedFormat) }
        return try format.decode(data, path: path, pixelBudget: pixelBudget)
    }
}

/// How a folder's pages are laid out, and so which way paging scrolls.
public enum PageDirection: String, CaseIterable, Hashable, Sendable {
    /// Side by side, first on the left.
    case horizontal
    /// One under the other, first at the top.
    case vertical
}

extension Content {
    /// The size, and for tiled content its levels and cache, as the journal says them.
    public var summary: String {
        let size = "\(Int(self.size.width))x\(Int(self.size.height))"
        guard let tiles else { return "\(size), decoded whole" + (note.map { "; \($0)" } ?? "") }
        let grid = tiles.source.grid
        return "\(size), \(grid.maxLevel - tiles.source.lowestLevel + 1) levels of \(grid.tileSize) px tiles"
            + " (overlap \(grid.overlap)), "
            + (tiles.pinnedLevel >= tiles.source.lowestLevel ? "levels up to \(tiles.pinnedLevel) kept" : "made as needed")
    }
}
