import CMemfd
import FlickSystem
import Glibc

/// The provider's pool: one memfd of `slots` × `tileSize`² × 4 bytes, sealed against shrinking
/// and growing (flickd maps it read-only and refuses a pool it could lose pages of), mapped here
/// read-write. Made before the seccomp filter, which allows no `memfd_create` or `ftruncate`.
public final class TilePool {
    /// The memfd, passed to flickd with `provide`.
    public let descriptor: Descriptor
    /// The mapping.
    public let base: UnsafeMutableRawPointer
    /// Its size in bytes.
    public let byteCount: Int

    /// Makes, sizes, seals and maps the pool.
    /// - Throws: `SystemError` naming the failed call.
    public init(slots: Int, tileSize: Int) throws(SystemError) {
        byteCount = slots * tileSize * tileSize * 4
        let fd = flickd_memfd_create("flickd-render-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard let descriptor = Descriptor(returnedBy: fd) else { throw .current("memfd_create", "the tile pool") }
        self.descriptor = descriptor
        let size = byteCount
        _ = try retrying("ftruncate", "the tile pool") { ftruncate(fd, off_t(size)) }
        _ = try retrying("fcntl(F_ADD_SEALS)", "the tile pool") { flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) }
        let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw .current("mmap", "the tile pool") }
        base = mapped
    }

    deinit { munmap(base, byteCount) }
}
