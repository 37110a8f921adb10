import CPixman
import FlickCore

/// Drawing tiled content: each visible tile of the level that suits the zoom, and where a tile
/// is not in memory yet, the part of a coarser tile that covers it.
extension Compositor {
    /// The tiles around the view that the last frame asked to have ready: one ring of tiles
    /// beyond the view at the frame's level.
    static let prefetchRing = 1

    /// Draws tiled content; returns the logical rectangle it covers, or `nil` if nothing was drawn.
    func drawTiles(_ state: RenderState, _ store: TileStore, _ target: PixelBuffer, _ view: PixelRect,
                   prefetchOffset: Point?) -> PixelRect? {
        let grid = store.source.grid
        guard let (shown, drawnAt, wholeAtOne) = Self.drawingScale(state) else { return nil }
        // Zoom from here on is the full resolution's: a source with levels of detail above zoom
        // 1 (`contentScale` 2) is drawn 1:1 at zoom 2.
        let contentScale = Double(store.source.contentScale)
        let zoom = shown / contentScale
        let whole = contentScale == 1 ? wholeAtOne : abs(zoom - 1) < 1e-9 && drawnAt.x == drawnAt.x.rounded()
            && drawnAt.y == drawnAt.y.rounded()
        // A zoom out held since the last frame (scrolling zoomed out, not pinching): drawn from
        // tiles resampled to it once and then copied, at a whole-pixel offset as at zoom 1.
        // Zoomed in, a resampled tile would be zoom² times its tile (100 MiB at 20×), so
        // those frames are sampled each time, as a whole image's are.
        let settled = !whole && zoom < 1 && lastTiledZoom == zoom && rotation == .none && store.source.isOpaque
        lastTiledZoom = zoom
        let offset = settled ? Point(x: drawnAt.x.rounded(), y: drawnAt.y.rounded()) : drawnAt
        let logicalDest = Self.contentRect(grid.size, zoom: zoom, offset: offset, view: view)
        guard !logicalDest.isEmpty else { return nil }
        let level = max(grid.level(forZoom: zoom), store.source.lowestLevel)
        let opaque = store.source.isOpaque
        if !opaque {
            // Translucent tiles show the background through them.
            var color = pixmanColor(store.source.background ?? state.background)
            let p = rotation.physicalRect(logicalDest, panel: target.size)
            var box = pixman_box32_t(x1: Int32(p.x0), y1: Int32(p.y0), x2: Int32(p.x1), y2: Int32(p.y1))
            pixman_image_fill_boxes(PIXMAN_OP_SRC, target.image, &color, 1, &box)
        }
        store.beginFrame()
        let keys = grid.tiles(at: level, covering: Self.levelRect(logicalDest, offset: offset, zoom: zoom,
                                                                  scale: grid.scale(of: level), margin: 0))
        for key in keys {
            let clip = tileDest(key, grid: grid, offset: offset, zoom: zoom).intersection(logicalDest)
            guard !clip.isEmpty else { continue }
            if settled, let scaled = store.tile(key, resampledTo: zoom, render: { resample($0, key, grid: grid, zoom: zoom) }) {
                copyScaled(scaled, key, grid: grid, clip: clip, offset: offset, zoom: zoom, into: target)
            } else if let buffer = store.tile(key) {
                drawTile(buffer, key, grid: grid, clip: clip, offset: offset, zoom: zoom, exact: whole,
                         opaque: opaque, into: target)
            } else if let (cover, buffer) = store.coarser(than: key) {
                drawTile(buffer, cover, grid: grid, clip: clip, offset: offset, zoom: zoom, exact: false,
                         opaque: opaque, into: target)
            } else {
                var color = pixmanColor(store.source.background ?? state.background)
                let p = rotation.physicalRect(clip, panel: target.size)
                var box = pixman_box32_t(x1: Int32(p.x0), y1: Int32(p.y0), x2: Int32(p.x1), y2: Int32(p.y1))
                pixman_image_fill_boxes(PIXMAN_OP_SRC, target.image, &color, 1, &box)
            }
        }
        var prefetch = grid.tiles(at: level, covering: Self.levelRect(logicalDest, offset: offset, zoom: zoom,
                                                                      scale: grid.scale(of: level),
                                                                      margin: grid.tileSize * Self.prefetchRing))
        if let rest = prefetchOffset, rest.isFinite {
            prefetch += Self.tilesAhead(grid: grid, level: level, view: view, from: offset, to: rest, zoom: zoom)
        }
        store.endFrame(prefetch: prefetch)
        return logicalDest
    }

    /// The tiles a motion from `offset` to `rest` will show, nearest first: the view every half
    /// view along the way for up to four views ahead, then the view at rest (a flick's rest point
    /// is known from its start), so the workers decode what comes next before it comes.
    static func tilesAhead(grid: TileGrid, level: Int, view: PixelRect, from offset: Point, to rest: Point,
                           zoom: Double) -> [TileKey] {
        let dx = rest.x - offset.x, dy = rest.y - offset.y
        let distance = (dx * dx + dy * dy).squareRoot()
        let step = Double(min(view.width, view.height)) / 2
        // Bounded before it becomes an Int: a client may send an offset of 1e30.
        let steps = distance.isFinite ? Int(min(8, distance / max(1, step))) : 0
        var keys: [TileKey] = []
        for k in stride(from: 1, through: steps, by: 1) {
            let f = Double(k) * step / distance
            let at = Point(x: offset.x + dx * f, y: offset.y + dy * f)
            keys += grid.tiles(at: level, covering: levelRect(view, offset: at, zoom: zoom, scale: grid.scale(of: level), margin: 0))
        }
        return keys + grid.tiles(at: level, covering: levelRect(view, offset: rest, zoom: zoom, scale: grid.scale(of: level), margin: 0))
    }

    /// The part of `level` a logical rectangle shows, grown by `margin` level pixels.
    private static func levelRect(_ rect: PixelRect, offset: Point, zoom: Double, scale: Double, margin: Int) -> PixelRect {
        func at(_ v: Double) -> Int { Int(min(max(v, -1e9), 1e9).rounded(.down)) }
        let k = scale / zoom
        return PixelRect(x0: at((Double(rect.x0) + offset.x) * k) - 1 - margin, y0: at((Double(rect.y0) + offset.y) * k) - 1 - margin,
                         x1: at((Double(rect.x1) + offset.x) * k) + 2 + margin, y1: at((Double(rect.y1) + offset.y) * k) + 2 + margin)
    }

    /// Where a tile's own part (overlap excluded) lands in the logical view; neighbours' edges
    /// are computed alike, so they meet exactly.
    private func tileDest(_ key: TileKey, grid: TileGrid, offset: Point, zoom: Double) -> PixelRect {
        let inner = grid.tileRect(key)
        let k = zoom / grid.scale(of: key.level)
        return PixelRect(x0: Self.edge(Double(inner.x0) * k - offset.x), y0: Self.edge(Double(inner.y0) * k - offset.y),
                         x1: Self.edge(Double(inner.x1) * k - offset.x), y1: Self.edge(Double(inner.y1) * k - offset.y))
    }

    /// Draws the part of one tile that falls in `clip` (logical pixels): rows copied when the
    /// frame is the full resolution at a whole-pixel offset, sampled through a transform otherwise.
    private func drawTile(_ tile: PixelBuffer, _ key: TileKey, grid: TileGrid, clip: PixelRect, offset: Point,
                          zoom: Double, exact: Bool, opaque: Bool, into target: PixelBuffer) {
        let stored = grid.storedRect(key)
        let scale = grid.scale(of: key.level)
        let dest = rotation.physicalRect(clip, panel: target.size)
        let op = opaque ? PIXMAN_OP_SRC : PIXMAN_OP_OVER
        if exact && scale == 1 && rotation == .none {
            let x = clip.x0 + Int(offset.x) - stored.x0, y = clip.y0 + Int(offset.y) - stored.y0
            guard x >= 0, y >= 0, x + clip.width <= tile.width, y + clip.height <= tile.height else { return }
            if opaque && tile.format == .xrgb8888 {
                target.copy(from: tile, x: x, y: y, width: clip.width, height: clip.height, toX: clip.x0, toY: clip.y0)
            } else {
                pixman_image_set_transform(tile.image, nil)
                pixman_image_set_filter(tile.image, PIXMAN_FILTER_NEAREST, nil, 0)
                pixman_image_set_repeat(tile.image, PIXMAN_REPEAT_NONE)
                pixman_image_composite32(op, tile.image, nil, target.image, Int32(x), Int32(y), 0, 0,
                                         Int32(clip.x0), Int32(clip.y0), Int32(clip.width), Int32(clip.height))
            }
            return
        }
        let k = scale / zoom
        let toTile = Affine(a: k, tx: offset.x * k - Double(stored.x0), d: k, ty: offset.y * k - Double(stored.y0))
        guard var transform = rotation.physicalToLogical(panel: target.size).then(toTile).pixman else { return }
        pixman_image_set_transform(tile.image, &transform)
        let unit = exact && scale == 1
        pixman_image_set_filter(tile.image, unit ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(tile.image, PIXMAN_REPEAT_PAD)
        pixman_image_composite32(op, tile.image, nil, target.image, Int32(dest.x0), Int32(dest.y0), 0, 0,
                                 Int32(dest.x0), Int32(dest.y0), Int32(dest.width), Int32(dest.height))
    }

    /// Where a tile's own part lies in the content scaled by `zoom` (the view at offset 0).
    private func scaledRect(_ key: TileKey, grid: TileGrid, zoom: Double) -> PixelRect {
        tileDest(key, grid: grid, offset: .zero, zoom: zoom)
    }

    /// The tile's own part resampled to `zoom`: the pixels `drawTile` draws for it at any
    /// whole-pixel offset (same transform, same filter), made once for every frame at that zoom.
    private func resample(_ tile: PixelBuffer, _ key: TileKey, grid: TileGrid, zoom: Double) -> PixelBuffer? {
        let rect = scaledRect(key, grid: grid, zoom: zoom)
        guard !rect.isEmpty, let scaled = PixelBuffer(width: rect.width, height: rect.height) else { return nil }
        let stored = grid.storedRect(key)
        let k = grid.scale(of: key.level) / zoom
        guard var transform = Affine(a: k, tx: Double(rect.x0) * k - Double(stored.x0),
                                     d: k, ty: Double(rect.y0) * k - Double(stored.y0)).pixman else { return nil }
        pixman_image_set_transform(tile.image, &transform)
        pixman_image_set_filter(tile.image, PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(tile.image, PIXMAN_REPEAT_PAD)
        pixman_image_composite32(PIXMAN_OP_SRC, tile.image, nil, scaled.image, 0, 0, 0, 0, 0, 0,
                                 Int32(rect.width), Int32(rect.height))
        return scaled
    }

    /// Copies the part of a resampled tile that falls in `clip` (whole-pixel offset, no rotation).
    private func copyScaled(_ scaled: PixelBuffer, _ key: TileKey, grid: TileGrid, clip: PixelRect, offset: Point,
                            zoom: Double, into target: PixelBuffer) {
        let rect = scaledRect(key, grid: grid, zoom: zoom)
        let x = clip.x0 + Int(offset.x) - rect.x0, y = clip.y0 + Int(offset.y) - rect.y0
        guard x >= 0, y >= 0, x + clip.width <= scaled.width, y + clip.height <= scaled.height else { return }
        target.copy(from: scaled, x: x, y: y, width: clip.width, height: clip.height, toX: clip.x0, toY: clip.y0)
    }

}
