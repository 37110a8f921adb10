import CCairo
import FlickCore

/// One tile to draw, as a `tileRequest` gives it (docs/protocol.md, "Content providers"): the
/// content rectangle from (`x`, `y`) at `scale` pixels per content pixel, `pixelWidth` ×
/// `pixelHeight` pixels, its rows `stride` bytes apart.
public struct TileJob: Hashable, Sendable {
    /// Pixels per content pixel.
    public var scale: Double
    /// The content point at the tile's top-left corner.
    public var x: Double, y: Double
    /// The tile's size in pixels.
    public var pixelWidth: Int, pixelHeight: Int
    /// Bytes between rows.
    public var stride: Int

    /// Creates a job.
    public init(scale: Double, x: Double, y: Double, pixelWidth: Int, pixelHeight: Int, stride: Int) {
        self.scale = scale
        self.x = x
        self.y = y
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.stride = stride
    }

    /// Whether the numbers can be drawn at all: finite, positive, a stride cairo takes.
    public var isDrawable: Bool {
        scale.isFinite && scale > 0 && x.isFinite && y.isFinite && (1...4096).contains(pixelWidth) && (1...4096).contains(pixelHeight)
            && stride >= pixelWidth * 4 && stride % 4 == 0 && stride <= 1 << 20
    }

    /// The bytes the tile covers from its first pixel.
    public var byteCount: Int { (pixelHeight - 1) * stride + pixelWidth * 4 }
}

extension Document {
    /// Draws `job` into `pixels` (XRGB8888, cairo's RGB24: every pixel written, so the tile is
    /// opaque): the background, then each page the tile meets, its paper white and the page drawn
    /// at the tile's scale and offset. cairo draws straight into the caller's memory (a slot of the
    /// pool): no copy.
    /// - Parameters:
    ///   - background: `0xRRGGBB`, behind and between pages.
    /// - Returns: false when the job is not drawable or a page it meets could not be drawn.
    public func draw(_ job: TileJob, into pixels: UnsafeMutableRawPointer, background: UInt32) -> Bool {
        guard job.isDrawable,
              let surface = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                                Int32(job.pixelWidth), Int32(job.pixelHeight), Int32(job.stride))
        else { return false }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface).rawValue == 0, let context = cairo_create(surface) else { return false }
        defer { cairo_destroy(context) }
        cairo_set_source_rgb(context, Double((background >> 16) & 0xFF) / 255, Double((background >> 8) & 0xFF) / 255,
                             Double(background & 0xFF) / 255)
        cairo_paint(context)
        // Device pixel (i, j) is content (x + i/scale, y + j/scale): its centre is the point the
        // protocol says pixel (i, j) shows.
        cairo_scale(context, job.scale, job.scale)
        cairo_translate(context, -job.x, -job.y)
        var drawn = true
        for index in pages(meeting: job) {
            let paper = layout.pages[index], size = pageSizes[index]
            cairo_save(context)
            cairo_rectangle(context, paper.origin.x, paper.origin.y, paper.size.width, paper.size.height)
            cairo_clip(context)
            cairo_set_source_rgb(context, 1, 1, 1)
            cairo_paint(context)
            cairo_translate(context, paper.origin.x, paper.origin.y)
            cairo_scale(context, paper.size.width / size.width, paper.size.height / size.height)
            drawn = draw(page: index, on: context) && drawn
            cairo_restore(context)
        }
        cairo_surface_flush(surface)
        return drawn && cairo_status(context).rawValue == 0
    }

    /// The pages whose paper `job`'s content rectangle meets, in order: those it draws, and
    /// whose links flickd gets with the first of their tiles.
    public func pages(meeting job: TileJob) -> [Int] {
        let shown = Rect(x: job.x, y: job.y, width: Double(job.pixelWidth) / job.scale, height: Double(job.pixelHeight) / job.scale)
        // Along the direction the layout finds them; across it a page may be narrower than the
        // content (pages of several sizes), so each paper is checked whole.
        return layout.pages(in: shown).filter { index in
            let paper = layout.pages[index]
            return paper.origin.x < shown.origin.x + shown.size.width && paper.origin.x + paper.size.width > shown.origin.x
                && paper.origin.y < shown.origin.y + shown.size.height && paper.origin.y + paper.size.height > shown.origin.y
        }
    }
}
