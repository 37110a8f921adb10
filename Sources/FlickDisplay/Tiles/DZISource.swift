/// A Deep Zoom pyramid on disk: a descriptor (`NAME.dzi` or `NAME.xml`) and its tiles beside it,
/// `NAME_files/LEVEL/COLUMN_ROW.EXT`, as `vips dzsave` and deepzoom.py write them.
///
/// Immutable after `init`, so `tile(_:)` may run on several threads at once: each call reads and
/// decodes its own file into its own buffer.
///
/// Opacity follows the declared format: a `jpeg`/`jpg` pyramid is opaque; a `png` one may carry
/// alpha, so it is not, even when most of its tiles turn out opaque (those decode as `xrgb8888`
/// and are drawn as opaque all the same). A PNG tile with alpha inside a JPEG pyramid (a file
/// replaced by hand) is flattened onto black, which keeps the promise that an opaque source's
/// tiles are `xrgb8888`.
public final class DZISource: TileSource {
    /// The descriptor read at `init`.
    public let descriptor: DZIDescriptor
    /// The descriptor's path.
    public let name: String
    /// The folder holding one folder per level: the descriptor's path without its extension, plus
    /// `_files`.
    public let tilesFolder: String
    /// The smallest level such that it and every level above it have a folder.
    public let lowestLevel: Int
    /// Whether the tiles are JPEG (`Format` jpeg or jpg).
    public let isOpaque: Bool

    /// The pyramid's geometry, from the descriptor.
    public var grid: TileGrid { descriptor.grid }

    /// Opens a pyramid: reads its descriptor and finds its levels (no tile is read).
    /// - Parameter path: the `.dzi` (or `.xml`) descriptor.
    /// - Throws: `ContentError` naming the descriptor: unreadable, over
    ///   `DZIDescriptor.maxFileBytes`, refused by `DZIDescriptor.parse`, or without a folder for
    ///   its full-resolution level.
    public init(descriptor path: String) throws {
        let bytes: [UInt8]
        switch FileIO.read(path, limit: DZIDescriptor.maxFileBytes) {
        case .success(let read): bytes = read
        case .failure(.errno(let errno)): throw ContentError(path: path, reason: .unreadable(errno))
        case .failure(.tooLarge(let size)):
            throw ContentError(path: path, reason: .fileTooLarge(bytes: size, limit: DZIDescriptor.maxFileBytes))
        }
        descriptor = try DZIDescriptor.parse(bytes, path: path)
        name = path
        tilesFolder = Self.tilesFolder(of: path)
        isOpaque = descriptor.isJPEG
        let top = descriptor.grid.maxLevel
        guard FileIO.isDirectory("\(tilesFolder)/\(top)") else {
            throw ContentError(path: path, reason: .missingLevelFolder(
                folder: "\(tilesFolder)/\(top)", level: top,
                pattern: "\(tilesFolder)/LEVEL/COLUMN_ROW.\(descriptor.format)"))
        }
        // `--depth onetile` (and onepixel) leaves out the smallest levels; a gap further up
        // would leave levels the compositor cannot fall back to, so the scan stops at the first.
        var lowest = top
        while lowest > 0 && FileIO.isDirectory("\(tilesFolder)/\(lowest - 1)") { lowest -= 1 }
        lowestLevel = lowest
    }

    /// Where `key`'s tile is: `NAME_files/LEVEL/COLUMN_ROW.EXT`.
    public func path(of key: TileKey) -> String {
        "\(tilesFolder)/\(key.level)/\(key.column)_\(key.row).\(descriptor.format)"
    }

    /// Reads and decodes one tile.
    /// - Throws: `ContentError` naming the tile's file: outside the pyramid, missing,
    ///   unreadable, too large, truncated, corrupt, neither PNG nor JPEG, or the wrong size.
    public func tile(_ key: TileKey) throws -> PixelBuffer {
        let file = path(of: key)
        guard grid.contains(key) else {
            throw ContentError(path: file, reason: .tileOutsidePyramid(key, levels: grid.maxLevel + 1))
        }
        let limit = Self.maxTileBytes(grid.storedRect(key))
        let bytes: [UInt8]
        switch FileIO.read(file, limit: limit) {
        case .success(let read): bytes = read
        case .failure(.errno(let errno)): throw ContentError(path: file, reason: .unreadable(errno))
        case .failure(.tooLarge(let size)): throw ContentError(path: file, reason: .fileTooLarge(bytes: size, limit: limit))
        }
        return try Self.decodeTile(bytes, for: key, in: grid, opaque: isOpaque, path: file)
    }

    /// Decodes a tile file's bytes (PNG or JPEG, judged by the signature) and checks its size.
    ///
    /// The pixel budget is the tile's own area, so a file declaring a huge image is refused from
    /// its header, before any pixel memory is allocated.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - key: which tile it is.
    ///   - grid: the pyramid.
    ///   - opaque: whether the source promises `xrgb8888` tiles (alpha is then flattened onto black).
    ///   - path: the file's name, used only in errors.
    /// - Returns: a buffer exactly `grid.storedRect(key)`'s size.
    /// - Throws: `ContentError` naming `path`.
    public static func decodeTile(_ bytes: [UInt8], for key: TileKey, in grid: TileGrid, opaque: Bool,
                                  path: String) throws -> PixelBuffer {
        let stored = grid.storedRect(key)
        let expected = PixelSize(width: stored.width, height: stored.height)
        if bytes.isEmpty { throw ContentError(path: path, reason: .empty) }
        let image: PixelBuffer
        do {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                image = try PNGCodec.decode(bytes, path: path, pixelBudget: expected.area)
            } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
                image = try JPEGDecoder.decode(bytes, path: path, pixelBudget: expected.area)
            } else {
                throw ContentError(path: path, reason: .unsupportedFormat)
            }
        } catch let error as ContentError {
            // Over the tile's own area is a wrong size, and that says more than a budget would.
            if case .overPixelBudget(let width, let height, _) = error.reason {
                throw ContentError(path: path, reason: .wrongTileSize(expected: expected,
                                                                      found: PixelSize(width: width, height: height)))
            }
            throw error
        }
        guard image.size == expected else {
            throw ContentError(path: path, reason: .wrongTileSize(expected: expected, found: image.size))
        }
        guard opaque, image.format == .argb8888 else { return image }
        // Premultiplied colours over black are the colours themselves: only the format changes.
        guard let flat = PixelBuffer(width: image.width, height: image.height, format: .xrgb8888) else {
            throw ContentError(path: path, reason: .outOfMemory(width: image.width, height: image.height))
        }
        flat.copy(from: image)
        return flat
    }

    /// The largest tile file read: eight bytes a pixel (beyond any PNG or JPEG of the tile's
    /// pixels, compressed or not) plus 1 MiB for metadata such as an ICC profile.
    static func maxTileBytes(_ stored: PixelRect) -> Int {
        stored.width * stored.height * 8 + (1 << 20)
    }

    /// `dir/NAME.dzi` → `dir/NAME_files`: the last extension of the file name goes, if it has one.
    static func tilesFolder(of descriptor: String) -> String {
        let nameStart = descriptor.lastIndex(of: "/").map { descriptor.index(after: $0) } ?? descriptor.startIndex
        let name = descriptor[nameStart...]
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return descriptor + "_files" }
        return String(descriptor[..<dot]) + "_files"
    }
}
