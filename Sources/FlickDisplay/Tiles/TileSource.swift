import FlickCore

/// Where a pyramid's tiles come from: a Deep Zoom folder, a pyramid built from one big image, a
/// folder of pages, the test pattern, an app drawing on request.
///
/// `tile(_:)` is called from the tile loader's worker threads, several at once, so a source
/// holds no mutable state without its own lock. It never draws: a tile it cannot make is an
/// error, and the compositor draws that part from a coarser level instead.
public protocol TileSource: AnyObject, Sendable {
    /// The pyramid's geometry.
    var grid: TileGrid { get }
    /// The coarsest level the source has (Deep Zoom folders written with `--depth onetile` stop
    /// above level 0).
    var lowestLevel: Int { get }
    /// Whether every pixel is opaque (then tiles are `xrgb8888` and may be copied, not blended).
    var isOpaque: Bool { get }
    /// A name for status and logs: the descriptor's path, "test pattern", ….
    var name: String { get }
    /// Whether the coarsest levels are made and pinned when the content opens. A source whose
    /// coarse tiles each need many files (a folder of pages: the coarsest tile shows every page)
    /// says no, and its coarse tiles are made when asked like any other.
    var pinsCoarseLevels: Bool { get }
    /// What shows where no tile is in memory at all and behind translucent tiles; `nil`: the
    /// display's background.
    var background: Color? { get }
    /// Pixels of the full resolution per content pixel, a power of two: 1 for images (zoom 1
    /// shows the full resolution); 2 for an app that draws levels of detail up to zoom 2, so
    /// zooming in sharpens its text instead of stretching pixels.
    var contentScale: Int { get }
    /// Makes one tile, `grid.storedRect(key)`-sized.
    /// - Throws: `ContentError` naming the tile's file (missing, truncated, corrupt, wrong size).
    func tile(_ key: TileKey) throws -> PixelBuffer
    /// A cheap stand-in for a tile not made yet, drawn from what the source made ahead (a
    /// folder's page previews), or `nil`: then a coarser tile or the background shows. Called
    /// on the loop, so it never decodes.
    func standIn(for key: TileKey) -> PixelBuffer?
    /// Does one piece of work ahead of need (a page's preview) on a worker thread.
    /// - Returns: whether there was any (`false`: nothing left, do not call again).
    func prepareAhead() -> Bool
    /// What the source wants said once (a page shown reduced), since the last call.
    func takeWarnings() -> [ContentError]
    /// The links found on pages since the last call, in each page's points (a document drawn
    /// by its helper).
    func takeLinks() -> [(page: Int, links: [DocumentLink])]
}

extension TileSource {
    public var pinsCoarseLevels: Bool { true }
    public var background: Color? { nil }
    public var contentScale: Int { 1 }
    public func standIn(for key: TileKey) -> PixelBuffer? { nil }
    public func prepareAhead() -> Bool { false }
    public func takeWarnings() -> [ContentError] { [] }
    public func takeLinks() -> [(page: Int, links: [DocumentLink])] { [] }

    /// `tile(_:)` as a result, any error as a `ContentError` naming the source and the tile.
    func make(_ key: TileKey) -> Result<PixelBuffer, ContentError> {
        do {
            return .success(try tile(key))
        } catch let error as ContentError {
            return .failure(error)
        } catch {
            return .failure(ContentError(path: "\(name) tile \(key)", reason: .corrupt(detail: "\(error)")))
        }
    }
}
