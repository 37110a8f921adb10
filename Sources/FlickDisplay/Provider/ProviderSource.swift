import FlickCore

/// Content an app draws on request (docs/protocol.md, "Content providers"): the pyramid's
/// geometry and look. Its tiles come from `TileProvider`, never from `tile(_:)`: an app's
/// answer arrives later, on the loop, so there is nothing to make on a worker thread.
public final class ProviderSource: TileSource {
    public let grid: TileGrid
    public var lowestLevel: Int { 0 }
    public let isOpaque: Bool
    public let name: String
    /// Nothing is made at open: the app has not drawn anything yet.
    public var pinsCoarseLevels: Bool { false }
    /// What shows where no tile has been drawn yet (the app's choice, else the display's).
    public let background: Color?
    /// 2^`detail`: the finest level is this many times the content's size.
    public let contentScale: Int

    /// The provider's content of `size` content pixels, with `detail` levels above zoom 1, or
    /// `nil` for sizes `TileGrid` refuses.
    public init?(name: String, size: PixelSize, detail: Int = 0, tileSize: Int, opaque: Bool, background: Color?) {
        guard (0...3).contains(detail),
              let grid = TileGrid(width: size.width << detail, height: size.height << detail, tileSize: tileSize, overlap: 0)
        else { return nil }
        self.grid = grid
        contentScale = 1 << detail
        self.name = name
        isOpaque = opaque
        self.background = background
    }

    public func tile(_ key: TileKey) throws -> PixelBuffer {
        throw ContentError(path: "\(name) tile \(key)", reason: .corrupt(detail: "drawn by the app on request, not made here"))
    }
}
