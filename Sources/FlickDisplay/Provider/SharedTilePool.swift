import CMemfd
import Glibc

/// The memory an app draws its tiles into: one `memfd` it passed, cut into equal slots, mapped
/// read-only.
///
/// The lesson of Wayland's `wl_shm`: a client that shrinks a file after passing it makes the
/// next read of the mapping past its new end a SIGBUS in the daemon. So the file must be a memfd
/// sealed against shrinking (`F_SEAL_SHRINK`) before it is mapped, and exactly the size the
/// slots need; then no later act of the app can take pages away from under the mapping. Writes
/// the app makes while flickd copies a slot can only spoil that tile's own pixels.
public final class SharedTilePool {
    /// Why a passed file cannot be a pool.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// It is not a memfd (it has no seals to ask for).
        case notMemfd
        /// It can still shrink.
        case notSealed
        /// It is not the size the slots take.
        case wrongSize(bytes: Int, expected: Int)
        /// It cannot be mapped.
        case unmappable(errno: Int32)

        public var description: String {
            switch self {
            case .notMemfd: "the pool is not a memfd (it has no seals)"
            case .notSealed: "the pool is not sealed with F_SEAL_SHRINK"
            case let .wrongSize(bytes, expected): "the pool is \(bytes) bytes; expected \(expected) (slots × tileSize² × 4)"
            case let .unmappable(errno): "the pool cannot be mapped: \(String(cString: strerror(errno)))"
            }
        }
    }

    /// Slots in the pool.
    public let slots: Int
    /// Bytes of one slot: `tileSize² × 4`.
    public let slotBytes: Int
    /// Bytes between rows of a tile in its slot: `tileSize × 4`.
    public let stride: Int
    private let memory: UnsafeMutableRawPointer
    private let bytes: Int

    /// Checks `fd` and maps it; the pool keeps no descriptor (the caller closes `fd`).
    /// - Throws: `Refusal` saying why the file cannot be a pool.
    public init(fd: Int32, slots: Int, tileSize: Int) throws(Refusal) {
        let slotBytes = tileSize * tileSize * 4
        let expected = slots * slotBytes
        let seals = flickd_get_seals(fd)
        guard seals >= 0 else { throw .notMemfd }
        guard seals & F_SEAL_SHRINK != 0 else { throw .notSealed }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unmappable(errno: errno) }
        guard Int(info.st_size) == expected else { throw .wrongSize(bytes: Int(info.st_size), expected: expected) }
        guard let mapped = mmap(nil, expected, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw .unmappable(errno: errno)
        }
        memory = mapped
        bytes = expected
        self.slots = slots
        self.slotBytes = slotBytes
        stride = tileSize * 4
    }

    deinit { munmap(memory, bytes) }

    /// A copy of the `width` × `height` tile at the start of `slot`, in flickd's own memory
    /// (the app may reuse the slot at once); `nil` for a slot or size the pool does not hold.
    /// - Parameter reusing: gives a buffer of that size and format to write over (a tile that
    ///   went), else `nil` and a new one is made.
    public func copyTile(slot: Int, width: Int, height: Int, format: PixelFormat,
                         reusing: (_ width: Int, _ height: Int, _ format: PixelFormat) -> PixelBuffer? = { _, _, _ in nil })
        -> PixelBuffer? {
        guard slot >= 0, slot < slots, width > 0, height > 0, width * 4 <= stride, height * stride <= slotBytes else { return nil }
        let shape = TileFreeList.Shape(width: width, height: height, format: format)
        guard let tile = reusing(width, height, format).flatMap({ shape.fits($0) ? $0 : nil })
                ?? PixelBuffer(width: width, height: height, format: format) else { return nil }
        let start = memory + slot * slotBytes
        if tile.stride == stride && width * 4 == stride {
            // A whole-width tile: one copy, not one per row.
            tile.pixels.copyMemory(from: start, byteCount: height * stride)
            return tile
        }
        for y in 0..<height {
            (tile.pixels + y * tile.stride).copyMemory(from: start + y * stride, byteCount: width * 4)
        }
        return tile
    }
}
