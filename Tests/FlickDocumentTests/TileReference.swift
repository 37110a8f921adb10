import CCairo
import CPoppler
import CRsvg
import FlickCore
import FlickDisplay
import FlickDocument
import FlickDocumentSamples
import Testing

/// A tile flickd would ask for: its key, scale, and the part of its level it covers.
struct AskedTile {
    var key: TileKey
    var scale: Double
    var rect: PixelRect
    var job: TileJob { TileJob(scale: scale, x: Double(rect.x0) / scale, y: Double(rect.y0) / scale, pixelWidth: rect.width,
                               pixelHeight: rect.height, stride: rect.width * 4) }

    /// The tiles of the level flickd draws at `zoom` for content of `size` declared with `detail`
    /// (a grid at the full resolution, 2^detail times the content, as `TileProvider` makes it),
    /// those `pick` keeps.
    static func at(zoom: Double, size: DocumentLayout.PixelSize, detail: Int, tileSize: Int = 256,
                   pick: (TileKey) -> Bool = { _ in true }) throws -> [AskedTile] {
        let contentScale = 1 << detail
        guard let grid = TileGrid(width: size.width * contentScale, height: size.height * contentScale, tileSize: tileSize) else {
            throw TestFailure("no grid for \(size)")
        }
        let level = grid.level(forZoom: zoom / Double(contentScale))
        let scale = grid.scale(of: level) * Double(contentScale)
        let count = grid.tileCount(level)
        var tiles: [AskedTile] = []
        for row in 0..<count.rows {
            for column in 0..<count.columns {
                let key = TileKey(level: level, column: column, row: row)
                if pick(key) { tiles.append(AskedTile(key: key, scale: scale, rect: grid.tileRect(key))) }
            }
        }
        return tiles
    }
}

/// A page drawn straight by its library into a plain cairo surface: the reference tiles are
/// compared with.
enum DirectPage {
    /// Page `index` of the PDF `bytes`, drawn with poppler.
    case pdf(bytes: [UInt8], index: Int)
    /// The SVG `bytes`, drawn with librsvg.
    case svg(bytes: [UInt8])
    /// An image already in a cairo surface (cairo's own PNG reader, or `SampleImages`' JPEG
    /// decoded apart from the helper's code), painted with its edges padded, as the helper does.
    case image(surface: OpaquePointer)

    /// The window `tile` shows of the page whose paper is `paper` (content px) and whose size is
    /// `points`: a surface of the tile's size, white, the page drawn at the tile's scale moved by
    /// whole pixels (the paper's corner at the level's pixel `paper × scale`, an integer in these
    /// tests) so its pixel grid is the level's. Pixels in XRGB8888, rows `width × 4` bytes apart.
    func window(_ tile: AskedTile, paper: Rect, points: DocumentPageSize) throws -> [UInt32] {
        let pixels = try WhiteCanvas.pixels(width: tile.rect.width, height: tile.rect.height) { cr in
            cairo_translate(cr, paper.origin.x * tile.scale - Double(tile.rect.x0), paper.origin.y * tile.scale - Double(tile.rect.y0))
            cairo_scale(cr, tile.scale * paper.size.width / points.width, tile.scale * paper.size.height / points.height)
            try draw(on: cr, points: points)
        }
        guard let pixels else { throw TestFailure("no surface") }
        return pixels
    }

    private func draw(on cr: OpaquePointer, points: DocumentPageSize) throws {
        switch self {
        case let .pdf(bytes, index):
            let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { g_bytes_unref(data) }
            guard let document = poppler_document_new_from_bytes(data, nil, nil) else { throw TestFailure("poppler refused the sample") }
            defer { g_object_unref(UnsafeMutableRawPointer(document)) }
            guard let page = poppler_document_get_page(document, Int32(index)) else { throw TestFailure("no page \(index)") }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            poppler_page_render(page, cr)
        case let .svg(bytes):
            let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            let stream = g_memory_input_stream_new_from_bytes(data)
            g_bytes_unref(data)
            defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
            guard let handle = rsvg_handle_new_from_stream_sync(stream, nil, RSVG_HANDLE_FLAGS_NONE, nil, nil) else {
                throw TestFailure("librsvg refused the sample")
            }
            defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
            rsvg_handle_set_dpi(handle, 96)
            var viewport = RsvgRectangle(x: 0, y: 0, width: points.width, height: points.height)
            guard rsvg_handle_render_document(handle, cr, &viewport, nil) != 0 else { throw TestFailure("librsvg could not draw the sample") }
        case let .image(surface):
            cairo_set_source_surface(cr, surface, 0, 0)
            cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
            cairo_paint(cr)
        }
    }
}

/// How a drawn tile differs from what it should show.
struct TileDifference: CustomStringConvertible {
    /// Pixels compared, and those whose channels differ by more than the tolerance.
    var compared = 0, different = 0
    /// The largest difference of one channel anywhere.
    var largest: UInt32 = 0
    var firstAt: (Int, Int)?

    var description: String {
        "\(different) of \(compared) pixels differ (largest channel difference \(largest))" + (firstAt.map { ", first at \($0)" } ?? "")
    }

    /// Compares `tile` (rows `stride` bytes apart) with `background` outside every paper and with
    /// `reference(page)` inside page `page`'s paper.
    static func of(_ tile: UnsafeRawPointer, stride: Int, asked: AskedTile, layout: DocumentLayout, background: UInt32,
                   tolerance: UInt32, reference: (Int) throws -> [UInt32]) rethrows -> TileDifference {
        var result = TileDifference()
        var references: [Int: [UInt32]] = [:]
        let scale = asked.scale
        for j in 0..<asked.rect.height {
            for i in 0..<asked.rect.width {
                let levelX = Double(asked.rect.x0 + i) + 0.5, levelY = Double(asked.rect.y0 + j) + 0.5
                let point = Point(x: levelX / scale, y: levelY / scale)
                let got = tile.load(fromByteOffset: j * stride + i * 4, as: UInt32.self) & 0xFF_FFFF
                let page = layout.pages.firstIndex { $0.contains(point) }
                let want: UInt32
                if let page {
                    if references[page] == nil { references[page] = try reference(page) }
                    want = (references[page]?[j * asked.rect.width + i] ?? 0) & 0xFF_FFFF
                } else {
                    want = background
                }
                var worst: UInt32 = 0
                for shift in [0, 8, 16] as [UInt32] {
                    let a = (got >> shift) & 0xFF, b = (want >> shift) & 0xFF
                    worst = max(worst, a > b ? a - b : b - a)
                }
                result.compared += 1
                result.largest = max(result.largest, worst)
                if worst > tolerance {
                    result.different += 1
                    if result.firstAt == nil { result.firstAt = (i, j) }
                }
            }
        }
        return result
    }
}

extension Rect {
    /// Whether `point` lies inside (the top and left edges in, the others out).
    func contains(_ point: Point) -> Bool {
        point.x >= origin.x && point.x < origin.x + size.width && point.y >= origin.y && point.y < origin.y + size.height
    }
}
