/// Tile buffers no tile holds any more, by size and format, kept to be written again
/// (`TileCache.reusableBuffer`) instead of unmapped and mapped anew.
struct TileFreeList {
    /// What a buffer must be to take a tile: its size and format, rows packed.
    struct Shape: Hashable {
        var width: Int
        var height: Int
        var format: PixelFormat

        /// The shape of `buffer`.
        init(of buffer: PixelBuffer) {
            self.init(width: buffer.width, height: buffer.height, format: buffer.format)
        }

        /// A shape of `width` × `height` in `format`.
        init(width: Int, height: Int, format: PixelFormat) {
            self.width = width
            self.height = height
            self.format = format
        }

        /// Its bytes; `nil` for sizes no buffer has (not positive, or past 2¹⁶ a side).
        var bytes: Int? {
            guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else { return nil }
            return width * 4 * height
        }

        /// Whether `buffer` has this shape.
        func fits(_ buffer: PixelBuffer) -> Bool {
            buffer.width == width && buffer.height == height && buffer.format == format && buffer.stride == width * 4
        }
    }

    private var buffers: [Shape: [PixelBuffer]] = [:]
    /// Bytes of the buffers kept.
    private(set) var bytes = 0
    /// Buffers kept.
    private(set) var count = 0

    /// Keeps `buffer` (no one else may hold it).
    mutating func put(_ buffer: PixelBuffer) {
        buffers[Shape(of: buffer), default: []].append(buffer)
        bytes += buffer.stride * buffer.height
        count += 1
    }

    /// A kept buffer of `shape`, no longer kept.
    mutating func take(_ shape: Shape) -> PixelBuffer? {
        guard let buffer = buffers[shape]?.popLast() else { return nil }
        if buffers[shape]?.isEmpty == true { buffers[shape] = nil }
        bytes -= buffer.stride * buffer.height
        count -= 1
        return buffer
    }

    /// Lets buffers go until at most `limit` bytes are kept (none for a limit below zero).
    mutating func trim(toBytes limit: Int) {
        while bytes > max(0, limit), let shape = buffers.keys.first, let buffer = take(shape) {
            _ = buffer
        }
    }
}
