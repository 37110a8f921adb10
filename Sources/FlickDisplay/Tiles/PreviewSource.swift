import FlickCore

/// A big image seen whole at once while its pyramid is built: every tile cut from one reduced
/// decode of it (`ReducedDecoder.preview`: a JPEG scaled by its IDCT, as `djpeg -scale 1/8`),
/// enlarged above the preview's own level. The grid is the pyramid's, so the view the visitor
/// moves to on the preview is the same place on the pyramid that replaces it.
public final class PreviewSource: TileSource {
    public let grid: TileGrid
    public let lowestLevel = 0
    public let isOpaque: Bool
    public let name: String
    private let page: SharedPage

    /// The reduced image, read by the tile workers at once, never written after `init`.
    private final class SharedPage: @unchecked Sendable {
        let page: PageImage
        init(_ page: PageImage) { self.page = page }
    }

    /// - Parameters:
    ///   - image: the reduced decode.
    ///   - fullSize: the image's size: the content's.
    ///   - name: the image's path.
    public init?(image: PixelBuffer, fullSize: PixelSize, name: String) {
        guard let grid = TileGrid(width: fullSize.width, height: fullSize.height, tileSize: PyramidBuilder.defaultTileSize,
                                  overlap: PyramidBuilder.defaultOverlap) else { return nil }
        self.grid = grid
        self.name = name
        isOpaque = image.format == .xrgb8888
        page = SharedPage(PageImage(image: image, frame: PixelRect(x0: 0, y0: 0, x1: fullSize.width, y1: fullSize.height)))
    }

    /// The preview's own size.
    public var previewSize: PixelSize { page.page.image.size }

    public func tile(_ key: TileKey) throws -> PixelBuffer {
        let rect = grid.storedRect(key)
        guard let buffer = PixelBuffer(width: rect.width, height: rect.height, format: isOpaque ? .xrgb8888 : .argb8888) else {
            throw ContentError(path: name, reason: .outOfMemory(width: rect.width, height: rect.height))
        }
        page.page.draw(into: buffer, at: rect, scale: grid.scale(of: key.level))
        return buffer
    }
}

extension Content {
    /// A big image's preview (`PreviewSource`): `image`, a reduced decode of `path`
    /// (`ReducedDecoder.preview`), shown at the image's full size.
    /// - Throws: `ContentError` naming `path`.
    public static func preview(image: PixelBuffer, fullSize full: PixelSize, path: String, tiles options: TileOptions) throws -> Content {
        guard let source = PreviewSource(image: image, fullSize: full, name: path) else {
            throw ContentError(path: path, reason: .corrupt(detail: "unsupported size \(full)"))
        }
        let frame = Rect(x: 0, y: 0, width: Double(full.width), height: Double(full.height))
        return Content(tiles: try TileStore(source: source, cacheBytes: options.cacheBytes, workers: options.workers),
                       pages: [Page(source: path, frame: frame)])
    }
}
