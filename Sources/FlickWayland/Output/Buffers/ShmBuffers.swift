import CMemfd
import CWayland
import FlickCore
import FlickDisplay
import Glibc

/// The window's frame buffers: a few `wl_buffer`s of one size in one shared-memory pool (a
/// sealed memfd the compositor maps too), made once per window size and reused as the
/// compositor releases them (`wl_buffer.release`): no allocation per frame.
///
/// Three, because the compositor may hold two at once (the one it shows and the one it is
/// about to); a frame is drawn into one it holds neither of.
final class ShmBuffers: WaylandBufferSet {
    /// One buffer of the pool.
    struct Slot {
        var buffer: OpaquePointer
        var pixels: PixelBuffer
        /// Attached and not yet released by the compositor: not to be drawn into.
        var held = false
    }

    /// The buffers' size in pixels.
    let size: PixelSize
    private(set) var slots: [Slot] = []
    private let memory: UnsafeMutableRawPointer
    private let length: Int
    private let releaseListener = WaylandListener(wl_buffer_listener(release: { data, buffer in
        waylandOwner(data, as: ShmBuffers.self)?.released(buffer)
    }))

    /// Makes `count` buffers of `size` in one pool.
    /// - Throws: `OutputError.allocationFailed` when the memory cannot be had.
    init(shm: OpaquePointer, size: PixelSize, count: Int = 3) throws(OutputError) {
        self.size = size
        let stride = size.width * 4
        let (bytes, overflow) = stride.multipliedReportingOverflow(by: size.height * count)
        guard size.width > 0, size.height > 0, !overflow, bytes <= Int(Int32.max) else { throw .allocationFailed(size) }
        let fd = flickd_memfd_create("flickd-wayland", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard fd >= 0 else { throw .allocationFailed(size) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(bytes)) == 0 else { throw .allocationFailed(size) }
        // The compositor maps it too: it must not shrink under its mapping.
        _ = flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
        guard let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw .allocationFailed(size)
        }
        memory = mapped
        length = bytes
        guard let pool = wl_shm_create_pool(shm, fd, Int32(bytes)) else {
            munmap(mapped, bytes)
            throw .allocationFailed(size)
        }
        defer { wl_shm_pool_destroy(pool) }
        for index in 0..<count {
            let offset = index * stride * size.height
            guard let pixels = PixelBuffer(borrowing: mapped + offset, width: size.width, height: size.height, stride: stride),
                  let buffer = wl_shm_pool_create_buffer(pool, Int32(offset), Int32(size.width), Int32(size.height), Int32(stride),
                                                         WL_SHM_FORMAT_XRGB8888.rawValue) else {
                destroyBuffers()
                munmap(mapped, bytes)
                throw .allocationFailed(size)
            }
            wl_buffer_add_listener(buffer, releaseListener.pointer, Unmanaged.passUnretained(self).toOpaque())
            slots.append(Slot(buffer: buffer, pixels: pixels))
        }
    }

    deinit {
        destroyBuffers()
        munmap(memory, length)
    }

    func pixels(_ index: Int) -> PixelBuffer { slots[index].pixels }

    func buffer(_ index: Int) -> OpaquePointer? { slots[index].buffer }

    func free(excluding: Int?) -> Int? {
        slots.indices.first { !slots[$0].held && $0 != excluding }
    }

    func attach(_ index: Int) {
        slots[index].held = true
    }

    private func released(_ buffer: OpaquePointer?) {
        guard let index = slots.firstIndex(where: { $0.buffer == buffer }) else { return }
        slots[index].held = false
    }

    /// Destroys the buffers: the compositor keeps showing what it copied or holds until the
    /// next commit (the protocol allows destroying an attached buffer).
    private func destroyBuffers() {
        for slot in slots { wl_buffer_destroy(slot.buffer) }
        slots.removeAll()
    }
}
