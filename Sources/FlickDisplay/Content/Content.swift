import CPixman
import FlickCore

/// What the viewer scrolls: one image in memory, possibly made of pages side by side.
///
/// A folder of images becomes pages laid out left to right, each exactly one page size wide and
/// high (the viewport, normally). Each image is centred in its page and scaled down to fit if it
/// is larger (never up); the rest of the page is the background colour given at load time. So
/// when the images are the viewport's size, page *n* at rest (offset `n × width`, zoom 1) shows
/// image *n* exactly.
public struct Content {
    /// All the pixels, pages included.
    public let image: PixelBuffer
    /// The pages, left to right; a single image is one page covering it.
    public let pages: [Page]

    /// One page of content.
    public struct Page: Hashable, Sendable {
        /// The image file the page shows, if it came from one.
        public var source: String?
        /// The page's rectangle in content pixels.
        public var frame: Rect
        /// Where the (possibly scaled) image lies inside the content, in content pixels.
        public var imageFrame: Rect
    }

    /// The most bytes one file may have before it is even read (256 MiB).
    public static let defaultMaxFileBytes = 256 << 20

    /// Wraps an image as single-page content.
    public init(image: PixelBuffer, source: String? = nil) {
        let frame = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        self.init(image: image, pages: [Page(source: source, frame: frame, imageFrame: frame)])
    }

    private init(image: PixelBuffer, pages: [Page]) {
        self.image = image
        self.pages = pages
    }

    /// The content's size in content pixels (the model's unscaled content size).
    public var size: Size { Size(width: Double(image.width), height: Double(image.height)) }

    /// The test pattern as content, for demos without configured content.
    public static func testPattern(_ size: PixelSize) -> Content? {
        TestPattern.make(size).map { Content(image: $0) }
    }

    /// Loads one PNG or JPEG file, recognised by its first bytes.
    ///
    /// - Parameters:
    ///   - path: the image file.
    ///   - pixelBudget: the most pixels the image may have.
    ///   - maxFileBytes: the largest file read at all.
    /// - Throws: `ContentError` naming `path` for a missing, empty, oversized, unsupported,
    ///   truncated or corrupt file, or one over the budget.
    public static func load(file path: String, pixelBudget: Int, maxFileBytes: Int = defaultMaxFileBytes) throws -> Content {
        Content(image: try decodeImage(at: path, pixelBudget: pixelBudget, maxFileBytes: maxFileBytes), source: path)
    }

    /// Loads every `.png`, `.jpg` and `.jpeg` file of a folder, in file-name order, as pages.
    ///
    /// Hidden files and other extensions are skipped; a bad image file fails the whole load.
    /// - Parameters:
    ///   - directory: the folder.
    ///   - pageSize: each page's size, normally the viewport's.
    ///   - background: the colour around images smaller than their page.
    ///   - pixelBudget: the most pixels of the laid-out content, and of each decoded image.
    ///   - direction: pages side by side (`horizontal`) or one under the other (`vertical`).
    /// - Throws: `ContentError` naming the folder (unreadable, no images, layout over budget) or
    ///   the file at fault.
    public static func load(directory: String, pageSize: PixelSize, background: Color, pixelBudget: Int,
                            direction: PageDirection = .horizontal,
                            maxFileBytes: Int = defaultMaxFileBytes) throws -> Content {
        let names: [String]
        switch FileIO.list(directory) {
        case .success(let list): names = list
        case .failure(let errno): throw ContentError(path: directory, reason: .unreadable(errno))
        }
        let files = names.filter { name in
            let lower = name.lowercased()
            return !name.hasPrefix(".") && [".png", ".jpg", ".jpeg"].contains { lower.hasSuffix($0) }
        }.sorted().map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
        guard !files.isEmpty else { throw ContentError(path: directory, reason: .noImages) }
        let vertical = direction == .vertical
        let canvasWidth = vertical ? pageSize.width : pageSize.width * files.count
        let canvasHeight = vertical ? pageSize.height * files.count : pageSize.height
        guard pageSize.area > 0, canvasWidth * canvasHeight <= pixelBudget else {
            throw ContentError(path: directory, reason: .overPixelBudget(width: canvasWidth, height: canvasHeight,
                                                                         budget: pixelBudget))
        }
        guard let canvas = PixelBuffer(width: canvasWidth, height: canvasHeight, format: .xrgb8888) else {
            throw ContentError(path: directory, reason: .outOfMemory(width: canvasWidth, height: canvasHeight))
        }
        canvas.fill(background.pixel)
        var pages: [Page] = []
        for (index, file) in files.enumerated() {
            let image = try decodeImage(at: file, pixelBudget: pixelBudget, maxFileBytes: maxFileBytes)
            let page = Rect(x: vertical ? 0 : Double(index * pageSize.width), y: vertical ? Double(index * pageSize.height) : 0,
                            width: Double(pageSize.width), height: Double(pageSize.height))
            let placed = place(image, in: page, on: canvas)
            pages.append(Page(source: file, frame: page, imageFrame: placed))
        }
        return Content(image: canvas, pages: pages)
    }

    /// Draws `image` centred in `page`, scaled down to fit; returns where it landed.
    private static func place(_ image: PixelBuffer, in page: Rect, on canvas: PixelBuffer) -> Rect {
        let scale = min(1, page.size.width / Double(image.width), page.size.height / Double(image.height))
        let width = scale == 1 ? image.width : max(1, Int((Double(image.width) * scale).rounded()))
        let height = scale == 1 ? image.height : max(1, Int((Double(image.height) * scale).rounded()))
        let x = Int(page.minX) + (Int(page.size.width) - width) / 2
        let y = Int(page.minY) + (Int(page.size.height) - height) / 2
        if scale != 1 {
            // Load time only, so the better (slower) downscaling filter is affordable.
            if var transform = Affine.scale(Double(image.width) / Double(width), Double(image.height) / Double(height)).pixman {
                pixman_image_set_transform(image.image, &transform)
            }
            pixman_image_set_filter(image.image, PIXMAN_FILTER_GOOD, nil, 0)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_PAD)
        }
        pixman_image_composite32(PIXMAN_OP_OVER, image.image, nil, canvas.image, 0, 0, 0, 0,
                                 Int32(x), Int32(y), Int32(width), Int32(height))
        return Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
    }

    /// Reads and decodes one file, choosing the decoder from its signature.
    static func decodeImage(at path: String, pixelBudget: Int, maxFileBytes: Int) throws -> PixelBuffer {
        let data: [UInt8]
        switch FileIO.read(path, limit: maxFileBytes) {
        case .success(let bytes): data = bytes
        case .failure(.errno(let errno)): throw ContentError(path: path, reason: .unreadable(errno))
        case .failure(.tooLarge(let size)):
            throw ContentError(path: path, reason: .fileTooLarge(bytes: size, limit: maxFileBytes))
        }
        if data.isEmpty { throw ContentError(path: path, reason: .empty) }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            return try PNGCodec.decode(data, path: path, pixelBudget: pixelBudget)
        }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) {
            return try JPEGDecoder.decode(data, path: path, pixelBudget: pixelBudget)
        }
        throw ContentError(path: path, reason: .unsupportedFormat)
    }
}

/// How a folder's pages are laid out, and so which way paging scrolls.
public enum PageDirection: String, CaseIterable, Hashable, Sendable {
    /// Side by side, first on the left.
    case horizontal
    /// One under the other, first at the top.
    case vertical
}
