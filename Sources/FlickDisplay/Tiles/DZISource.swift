import FlickSystem
/// A Deep Zoom pyramid on disk: a descriptor (`NAME.dzi` or `NAME.xml`) and its tiles beside it,
/// `NAME_files/LEVEL/COLUMN_ROW.EXT`, as `vips dzsave` and deepzoom.py write them.
///
/// `vips dzsave --depth onetile` leaves out the levels smaller than one tile and numbers its
/// folders from the one-tile level (folder 0 holds Deep Zoom level 8 of a 1001×703 image), which
/// no Deep Zoom viewer reads; flickd recognises that numbering (`folderShift`). Folders left out
/// of Deep Zoom's own numbering (removed by hand) are found too (`lowestLevel`).
///
/// Immutable after `init`, so `tile(_:)` may run on several threads at once: each call reads and
/// decodes its own file into its own buffer.
///
/// Opacity: a `jpeg`/`jpg` pyramid is opaque. A `png` one is opaque when its coarsest tile has no
/// alpha channel: writers give every tile of an image the same PNG colour type (RGB for an
/// opaque image, RGBA for one with alpha: `vips dzsave`, `flickd pyramid`), so one tile tells.
/// An opaque pyramid is scanned out and copied rather than blended (docs/tiles.md). A tile with
/// alpha in an opaque pyramid (a file replaced by hand) is flattened onto black, which keeps
/// the promise that an opaque source's tiles are `xrgb8888`.
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
    /// How far the folders' numbers are below Deep Zoom's levels: 0, or for `vips dzsave
    /// --depth onetile` the one-tile level, which that numbering calls folder 0.
    public let folderShift: Int
    /// Whether the tiles are JPEG (`Format` jpeg or jpg), or PNG without alpha.
    public let isOpaque: Bool

    /// The pyramid's geometry, from the descriptor.
    public var grid: TileGrid { descriptor.grid }

    /// Opens a pyramid: reads its descriptor and finds its levels (no tile is read).
    /// - Parameter path: the `.dzi` (or `.xml`) descriptor.
    /// - Throws: `ContentError` naming the descriptor: unreadable, over
    ///   `DZIDescriptor.maxFileBytes`, refused by `DZIDescriptor.parse`, or without a folder for
    ///   its full-resolution level (in Deep Zoom's numbering or onetile's).
    public init(descriptor path: String) throws {
        let bytes: [UInt8]
        switch FileIO.read(path, limit: DZIDescriptor.maxFileBytes) {
        case .success(let read): bytes = read
        case .failure(.system(let error)): throw ContentError(path: path, reason: .unreadable(error))
        case .failure(.tooLarge(let size)):
            throw ContentError(path: path, reason: .fileTooLarge(bytes: size, limit: DZIDescriptor.maxFileBytes))
        }
        descriptor = try DZIDescriptor.parse(bytes, path: path)
        name = path
        tilesFolder = Self.tilesFolder(of: path)
        guard let levels = Self.levels(of: descriptor.grid, in: tilesFolder, format: descriptor.format) else {
            let top = descriptor.grid.maxLevel
            throw ContentError(path: path, reason: .missingLevelFolder(
                folder: "\(tilesFolder)/\(top)", level: top,
                pattern: "\(tilesFolder)/LEVEL/COLUMN_ROW.\(descriptor.format)"))
        }
        (lowestLevel, folderShift) = levels
        if descriptor.isJPEG {
            isOpaque = true
        } else {
            let coarsest = TileKey(level: levels.lowest, column: 0, row: 0)
            let file = "\(tilesFolder)/\(coarsest.level - levels.shift)/0_0.\(descriptor.format)"
            let bytes = (try? FileIO.read(file, limit: Self.maxTileBytes(descriptor.grid.storedRect(coarsest))).get()) ?? []
            let tile = try? Self.decodeTile(bytes, for: coarsest, in: descriptor.grid, opaque: false, path: file)
            isOpaque = tile?.format == .xrgb8888
        }
    }

    /// The levels a pyramid's folders hold: Deep Zoom's numbering, the lowest folders perhaps
    /// missing, or `vips dzsave --depth onetile`'s; `nil` when neither fits.
    static func levels(of grid: TileGrid, in folder: String, format: String) -> (lowest: Int, shift: Int)? {
        let top = grid.maxLevel
        if FileIO.isDirectory("\(folder)/\(top)") {
            // Levels under a gap are left out: the source promises every level from the lowest up.
            var lowest = top
            while lowest > 0 && FileIO.isDirectory("\(folder)/\(lowest - 1)") { lowest -= 1 }
            return (lowest, 0)
        }
        // onetile's folder 0 is the largest level that fits in one tile.
        var oneTile = top
        while oneTile > 0 && grid.tileCount(oneTile) != (1, 1) { oneTile -= 1 }
        let fullResolution = top - oneTile
        guard oneTile > 0, (0...fullResolution).allSatisfy({ FileIO.isDirectory("\(folder)/\($0)") }),
              !FileIO.isDirectory("\(folder)/\(fullResolution + 1)") else { return nil }
        // Full resolution's last tile in the top folder confirms the numbering.
        let count = grid.tileCount(top)
        guard FileIO.exists("\(folder)/\(fullResolution)/\(count.columns - 1)_\(count.rows - 1).\(format)") else { return nil }
        return (oneTile, oneTile)
    }

    /// Where `key`'s tile is: `NAME_files/LEVEL/COLUMN_ROW.EXT` (LEVEL less `folderShift`).
    public func path(of key: TileKey) -> String {
        "\(tilesFolder)/\(key.level - folderShift)/\(key.column)_\(key.row).\(descriptor.format)"
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
        case .failure(.system(let error)): throw ContentError(path: file, reason: .unreadable(error))
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
            guard let format = ImageFormat(signature: bytes) else { throw ContentError(path: path, reason: .unsupportedFormat) }
            image = try format.decode(bytes, path: path, pixelBudget: expected.area).pixels
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
