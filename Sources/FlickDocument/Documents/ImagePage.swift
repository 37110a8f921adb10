import CCairo
import CRsvg
import FlickCore

/// A PNG or JPEG page among a folder's documents: one page, its size in pixels counted as points
/// (as an SVG's CSS px), decoded with gdk-pixbuf only when a tile needs it and kept in
/// `DecodedImages` (bounded by bytes) while pages near the view are drawn.
///
/// A page is refused when opened (`outOfMemory`) if its file or its decoded pixels would pass a
/// quarter of the helper's address space: a 100-megapixel scan is a clear error at start rather
/// than a page of tiles that can never be drawn, or drawn reduced from pixels that were decoded
/// whole anyway (gdk-pixbuf's PNG loader decodes the whole image before it scales).
final class ImagePage: PageSource {
    private let file: ImageBytes
    private let name: String
    private let header: ImageHeader
    private let images: DecodedImages
    /// Set when decoding failed: the page's tiles are answered undrawn without decoding again.
    private var broken = false
    let pageSizes: [DocumentPageSize]

    /// Reads `file`'s header; the pixels are decoded when first drawn.
    /// - Parameter limit: the most bytes the file, or its decoded pixels, may take.
    /// - Throws: `DocumentError`: `truncated` for a header cut short, `outOfMemory` over `limit`.
    init(_ file: ImageBytes, name: String, images: DecodedImages, limit: Int) throws(DocumentError) {
        header = try ImageHeader.read(file, name: name)
        let kind = header.kind.rawValue.uppercased()
        guard file.size <= limit else {
            throw DocumentError(file: name, reason: .outOfMemory,
                                detail: "is \(file.size) bytes; at most \(limit) fit in the helper's memory (content.render_memory_mb)")
        }
        // A PNG header may say up to 2^31 - 1 a side, whose product overflows: the sides are
        // bounded first (32767² × 4 fits an Int), and only then multiplied.
        guard header.width <= 32767, header.height <= 32767, header.width * header.height * 4 <= limit else {
            throw DocumentError(file: name, reason: .outOfMemory,
                                detail: "is a \(kind) of \(header.width) × \(header.height) pixels; decoded it would pass the \(limit) bytes "
                                    + "a page may take (a quarter of content.render_memory_mb; cairo draws at most 32767 pixels a side)")
        }
        self.file = file
        self.name = name
        self.images = images
        pageSizes = [DocumentPageSize(width: Double(header.width), height: Double(header.height))]
    }

    func draw(page index: Int, on context: OpaquePointer) -> Bool {
        guard index == 0, !broken else { return false }
        let key = ObjectIdentifier(self)
        let surface: OpaquePointer
        if let decoded = images.surface(for: key) {
            surface = decoded
        } else {
            images.makeRoom(for: header.width * header.height * 4)
            guard let decoded = decode() else {
                broken = true
                return false
            }
            images.insert(decoded, for: key, bytes: header.width * header.height * 4)
            surface = decoded
        }
        cairo_set_source_surface(context, surface, 0, 0)
        // The edge pixels extend to the paper's edge (which clips): no fade into the white paper.
        cairo_pattern_set_extend(cairo_get_source(context), CAIRO_EXTEND_PAD)
        cairo_paint(context)
        return cairo_status(context).rawValue == 0
    }

    /// The whole image decoded by gdk-pixbuf into a cairo surface (premultiplied ARGB32, or RGB24
    /// without alpha), or nil when it is damaged, cut short or not the size its header said.
    private func decode() -> OpaquePointer? {
        let bytes = file.read(offset: 0, count: file.size)
        guard bytes.count == file.size, ImageHeader.isComplete(bytes, kind: header.kind) else { return nil }
        let pixbuf: OpaquePointer? = bytes.withUnsafeBytes { raw in
            // The stream reads the array in place (no copy): it is unreferenced before the array goes.
            guard let stream = g_memory_input_stream_new_from_data(raw.baseAddress, gssize(raw.count), nil) else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
            var failure: UnsafeMutablePointer<GError>?
            let pixbuf = gdk_pixbuf_new_from_stream(stream, nil, &failure)
            if let failure {
                // A cut-short image may come back partly decoded with an error: not a page to show.
                g_error_free(failure)
                if let pixbuf { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
                return nil
            }
            return pixbuf
        }
        guard let pixbuf else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        guard Int(gdk_pixbuf_get_width(pixbuf)) == header.width, Int(gdk_pixbuf_get_height(pixbuf)) == header.height else { return nil }
        return PixbufSurface.make(from: pixbuf)
    }
}

/// gdk-pixbuf's rows (RGB or non-premultiplied RGBA, 8 bits a sample) as a cairo image surface.
enum PixbufSurface {
    /// A new surface holding `pixbuf`'s pixels (premultiplied when it has alpha), or nil.
    static func make(from pixbuf: OpaquePointer) -> OpaquePointer? {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels == (alpha ? 4 : 3), width > 0, height > 0,
              let source = gdk_pixbuf_read_pixels(pixbuf),
              let surface = cairo_image_surface_create(alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        else { return nil }
        guard cairo_surface_status(surface).rawValue == 0, let target = cairo_image_surface_get_data(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            let row = source + y * rowstride
            let out = UnsafeMutableRawPointer(target + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let p = row + x * channels
                var r = UInt32(p[0]), g = UInt32(p[1]), b = UInt32(p[2]), a: UInt32 = 255
                if alpha {
                    a = UInt32(p[3])
                    // cairo's own rounding of a premultiplied channel: (c × a + 127) / 255, exactly.
                    r = (r * a + 127) / 255
                    g = (g * a + 127) / 255
                    b = (b * a + 127) / 255
                }
                out[x] = a << 24 | r << 16 | g << 8 | b
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }
}

/// The decoded image pages kept between tiles: least recently drawn first out, at most `budget`
/// bytes of pixels together (the page being drawn may alone be larger: it stays until the next).
/// Drawing a page's tiles one after another then decodes it once, and a folder of hundreds of
/// photos holds only the few near the view.
public final class DecodedImages {
    /// The default budget: 64 MiB (a dozen 1920×720 pages, or two 12-megapixel photos).
    public static let defaultBudget = 64 << 20
    private let budget: Int
    private var entries: [(key: ObjectIdentifier, surface: OpaquePointer, bytes: Int)] = []

    /// An empty cache of at most `budget` bytes.
    public init(budget: Int = DecodedImages.defaultBudget) {
        self.budget = budget
    }

    deinit { for entry in entries { cairo_surface_destroy(entry.surface) } }

    /// The bytes held now.
    public var bytes: Int { entries.reduce(0) { $0 + $1.bytes } }

    /// The surface for `key`, now the most recently used, or nil.
    func surface(for key: ObjectIdentifier) -> OpaquePointer? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let entry = entries.remove(at: i)
        entries.append(entry)
        return entry.surface
    }

    /// Lets go of the least recently used pages until `bytes` more fit the budget (all of them
    /// for a page larger than the budget), before it is decoded: the peak stays bounded.
    func makeRoom(for bytes: Int) {
        while let first = entries.first, self.bytes + bytes > budget {
            cairo_surface_destroy(first.surface)
            entries.removeFirst()
        }
    }

    /// Keeps `surface` (the cache now owns it) as the most recently used.
    func insert(_ surface: OpaquePointer, for key: ObjectIdentifier, bytes: Int) {
        entries.append((key, surface, bytes))
    }
}
