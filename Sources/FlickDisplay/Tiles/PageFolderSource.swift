import CPixman
import Glibc

/// A folder of images as pages, side by side or one under the other, as tiles: a page is
/// decoded only when a tile near the view needs it, so 500 pages cost what the few in view do.
///
/// Each page is the page size (the viewport's, normally); its image is centred in it and
/// scaled down to fit if larger (never up), the rest is the background colour. The last few
/// decoded pages are kept (`keptPages`), since every tile of a page needs the page.
public final class PageFolderSource: TileSource {
    public let grid: TileGrid
    public var lowestLevel: Int { 0 }
    public var isOpaque: Bool { true }
    /// Every coarse tile shows many pages: made when asked, never all at open.
    public var pinsCoarseLevels: Bool { false }
    public let name: String
    /// The pages' files, in order.
    public let files: [String]
    /// The pages' rectangles in content pixels.
    public let pageFrames: [PixelRect]
    private let background: Color
    private let pixelBudget: Int
    private let maxFileBytes: Int
    private let decoded = DecodedPages()
    private let warnings = OnceWarnings()
    /// The pages' previews, made ahead by the workers (`prepareAhead()`).
    public let previews: PagePreviews

    /// How many decoded pages are kept for the tiles still to come.
    public static let keptPages = 4

    /// Lays out `files` as pages of `pageSize`.
    /// - Throws: `ContentError` naming `folder` when the layout is too large for a pyramid.
    public init(folder: String, files: [String], pageSize: PixelSize, background: Color, direction: PageDirection,
                pixelBudget: Int, maxFileBytes: Int, tileSize: Int = 256) throws {
        let vertical = direction == .vertical
        let width = vertical ? pageSize.width : pageSize.width * files.count
        let height = vertical ? pageSize.height * files.count : pageSize.height
        guard let grid = TileGrid(width: width, height: height, tileSize: tileSize, overlap: 1) else {
            throw ContentError(path: folder, reason: .overPixelBudget(width: width, height: height,
                                                                      budget: TileGrid.maxSide * pageSize.height))
        }
        self.grid = grid
        self.name = folder
        self.files = files
        pageFrames = files.indices.map { i in
            vertical ? PixelRect(x0: 0, y0: i * pageSize.height, x1: pageSize.width, y1: (i + 1) * pageSize.height)
                : PixelRect(x0: i * pageSize.width, y0: 0, x1: (i + 1) * pageSize.width, y1: pageSize.height)
        }
        self.background = background
        self.pixelBudget = pixelBudget
        self.maxFileBytes = maxFileBytes
        previews = PagePreviews(count: files.count)
    }

    /// Where page `index`'s image lies in the content once fitted into its page.
    public static func imageFrame(of image: PixelSize, in page: PixelRect) -> PixelRect {
        let scale = min(1, Double(page.width) / Double(image.width), Double(page.height) / Double(image.height))
        let width = scale == 1 ? image.width : max(1, Int((Double(image.width) * scale).rounded()))
        let height = scale == 1 ? image.height : max(1, Int((Double(image.height) * scale).rounded()))
        let x = page.x0 + (page.width - width) / 2, y = page.y0 + (page.height - height) / 2
        return PixelRect(x0: x, y0: y, x1: x + width, y1: y + height)
    }

    public func tile(_ key: TileKey) throws -> PixelBuffer {
        try compose(key) { index in try decodedPage(index) }
    }

    /// The tile drawn from the pages' previews, where a page's tile is not made yet: `nil` when
    /// no page it shows has its preview yet. Cheap (previews are small), so the loop may call it.
    public func standIn(for key: TileKey) -> PixelBuffer? {
        // Asked every frame for every missing tile until a preview comes: no tile is made
        // (allocated, filled) unless one of its pages has one.
        guard pages(in: key).contains(where: { previews.preview($0) != nil }) else { return nil }
        return try? compose(key) { index in previews.preview(index) }
    }

    /// Decodes the next page's preview, if any is left: called by the tile workers.
    public func prepareAhead() -> Bool {
        guard let index = previews.claim() else { return false }
        var preview: PageImage?
        do {
            let page = pageFrames[index]
            let fit = previews.previewFit(page: PixelSize(width: page.width, height: page.height))
            let reduced = try ReducedDecoder.decode(at: files[index], fitting: fit, pixelBudget: pixelBudget,
                                                    maxFileBytes: maxFileBytes)
            preview = PageImage(image: reduced.image, frame: Self.imageFrame(of: reduced.fullSize, in: page))
        } catch {
            // The page's own tiles say why, once: a preview that cannot be made is just absent.
        }
        previews.store(index, preview)
        return true
    }

    /// A tile of `key` with every page it shows drawn from `image(page)` (`nil`: background).
    private func compose(_ key: TileKey, image: (Int) throws -> PageImage?) throws -> PixelBuffer {
        let rect = grid.storedRect(key)
        guard grid.contains(key), let buffer = PixelBuffer(width: rect.width, height: rect.height) else {
            throw ContentError(path: "\(name) tile \(key)", reason: .outOfMemory(width: rect.width, height: rect.height))
        }
        buffer.fill(background.pixel)
        let scale = grid.scale(of: key.level)
        for index in pages(in: key) {
            if let drawn = try image(index) { drawn.draw(into: buffer, at: rect, scale: scale) }
        }
        return buffer
    }

    /// The pages tile `key` shows part of.
    private func pages(in key: TileKey) -> [Int] {
        let rect = grid.storedRect(key), scale = grid.scale(of: key.level)
        // The tile's part of the content, in content pixels.
        let x0 = Double(rect.x0) / scale, y0 = Double(rect.y0) / scale
        let x1 = Double(rect.x1) / scale, y1 = Double(rect.y1) / scale
        return pageFrames.indices.filter { index in
            let page = pageFrames[index]
            return Double(page.x1) > x0 && Double(page.x0) < x1 && Double(page.y1) > y0 && Double(page.y0) < y1
        }
    }

    /// Page `index`'s image, from the kept ones or decoded now. An image over the pixel budget
    /// (or the file size limit) is decoded reduced to its page's size, which is all a page
    /// shows of it at zoom 1, and warned about once (`takeWarnings()`).
    private func decodedPage(_ index: Int) throws -> PageImage {
        if let image = decoded.find(index) { return image }
        let page = pageFrames[index]
        let image: PageImage
        do {
            let whole = try Content.decodeImage(at: files[index], pixelBudget: pixelBudget, maxFileBytes: maxFileBytes).pixels
            image = PageImage(image: whole, frame: Self.imageFrame(of: whole.size, in: page))
        } catch let error as ContentError where error.reason.isOverLimit {
            // The page's size, but within the budget (a budget smaller than a page).
            let fit = PixelSize(width: page.width, height: page.height).shrunk(toArea: pixelBudget)
            let reduced = try ReducedDecoder.decode(at: files[index], fitting: fit, pixelBudget: pixelBudget,
                                                    maxFileBytes: maxFileBytes)
            image = PageImage(image: reduced.image, frame: Self.imageFrame(of: reduced.fullSize, in: page))
            warnings.add(error)
        }
        decoded.keep(index, image, limit: Self.keptPages)
        return image
    }

    /// Pages shown reduced since the last call, each file once per content load.
    public func takeWarnings() -> [ContentError] { warnings.take() }
}


/// The last few decoded pages, shared by the worker threads.
private final class DecodedPages: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var pages: [(index: Int, image: PageImage)] = []

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func find(_ index: Int) -> PageImage? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard let at = pages.firstIndex(where: { $0.index == index }) else { return nil }
        let page = pages.remove(at: at)
        pages.append(page)
        return page.image
    }

    func keep(_ index: Int, _ image: PageImage, limit: Int) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard !pages.contains(where: { $0.index == index }) else { return }
        pages.append((index, image))
        if pages.count > limit { pages.removeFirst(pages.count - limit) }
    }
}

/// Warnings said once per file, shared by the worker threads.
private final class OnceWarnings: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var said: Set<String> = []
    private var pending: [ContentError] = []

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func add(_ error: ContentError) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if said.insert(error.path).inserted { pending.append(error) }
    }

    func take() -> [ContentError] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        defer { pending.removeAll() }
        return pending
    }
}

extension ContentError.Reason {
    /// Over the pixel budget or the file size limit: an image that can still be shown reduced.
    var isOverLimit: Bool {
        switch self {
        case .overPixelBudget, .fileTooLarge: true
        default: false
        }
    }
}
