import CMemfd
import CWayland
import CWaylandProtocols
import FlickCore
import FlickDisplay
import Glibc

/// The window's frame buffers as dma-bufs: a sealed memfd the frames are drawn into, each
/// buffer's pages turned into a dma-buf by `/dev/udmabuf` (no GPU, no copy) and given to the
/// compositor through `zwp_linux_dmabuf_v1` (`create_params`, `add`, `create`). The compositor
/// imports the same pages: it samples them, or scans a fullscreen window out directly.
///
/// The compositor answers each buffer with `created` or `failed`, so the set is made
/// asynchronously:
///
/// | state   | event                         | next                                       |
/// |---------|-------------------------------|--------------------------------------------|
/// | pending | `created` for the last buffer | ready (drawn into and committed like shm)  |
/// | pending | `failed` for any              | failed (the window falls back to wl_shm)   |
/// | ready   | `release`                     | ready (the buffer may be drawn into again) |
final class DmabufBuffers: WaylandBufferSet {
    /// Where the set is in its making.
    enum State: Hashable {
        case pending, ready, failed
    }

    /// One buffer: its pixels (in the memfd), its `wl_buffer` once created.
    struct Slot {
        var pixels: PixelBuffer
        var params: OpaquePointer?
        var buffer: OpaquePointer?
        var held = false
    }

    let size: PixelSize
    /// The modifier the buffers were described with.
    let modifier: UInt64
    private(set) var state = State.pending
    private var slots: [Slot] = []
    private let memory: UnsafeMutableRawPointer
    private let length: Int
    private let paramsListener = WaylandListener(zwp_linux_buffer_params_v1_listener(
        created: { data, params, buffer in waylandOwner(data, as: DmabufBuffers.self)?.created(params, buffer) },
        failed: { data, params in waylandOwner(data, as: DmabufBuffers.self)?.failed(params) }
    ))
    private let releaseListener = WaylandListener(wl_buffer_listener(release: { data, buffer in
        waylandOwner(data, as: DmabufBuffers.self)?.released(buffer)
    }))

    /// Makes `count` buffers of `size` and asks the compositor for them; `state` says when
    /// they are ready (after the connection's next dispatch or round trip).
    /// - Parameters:
    ///   - dmabuf: the bound `zwp_linux_dmabuf_v1`.
    ///   - udmabuf: `/dev/udmabuf`, open.
    /// - Throws: `OutputError.allocationFailed` when the memory or a dma-buf cannot be had.
    init(dmabuf: OpaquePointer, udmabuf: Int32, size: PixelSize, modifier: UInt64, count: Int = 3) throws(OutputError) {
        self.size = size
        self.modifier = modifier
        let stride = size.width * 4
        // udmabuf maps whole pages: each buffer starts on a page.
        let page = max(4096, sysconf(Int32(_SC_PAGESIZE)))
        let (bytes, overflow) = stride.multipliedReportingOverflow(by: size.height)
        guard size.width > 0, size.height > 0, !overflow, bytes <= Int(Int32.max) else { throw .allocationFailed(size) }
        let each = (bytes + page - 1) / page * page
        let (total, overflowTotal) = each.multipliedReportingOverflow(by: count)
        guard !overflowTotal else { throw .allocationFailed(size) }
        let fd = flickd_memfd_create("flickd-wayland-dmabuf", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard fd >= 0 else { throw .allocationFailed(size) }
        defer { close(fd) }
        // udmabuf takes only a memfd that cannot shrink under the pages it pins, and refuses
        // one sealed against writing: the frames are written.
        guard ftruncate(fd, off_t(total)) == 0, flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0 else {
            throw .allocationFailed(size)
        }
        guard let mapped = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw .allocationFailed(size)
        }
        memory = mapped
        length = total
        let me = Unmanaged.passUnretained(self).toOpaque()
        for index in 0..<count {
            let offset = index * each
            let dmabufFD = flickd_udmabuf_create(udmabuf, fd, UInt64(offset), UInt64(each))
            guard dmabufFD >= 0,
                  let pixels = PixelBuffer(borrowing: mapped + offset, width: size.width, height: size.height, stride: stride),
                  let params = zwp_linux_dmabuf_v1_create_params(dmabuf) else {
                if dmabufFD >= 0 { close(dmabufFD) }
                destroy()
                munmap(mapped, total)
                throw .allocationFailed(size)
            }
            zwp_linux_buffer_params_v1_add_listener(params, paramsListener.pointer, me)
            // libwayland duplicates the descriptor into the request: it is closed here.
            zwp_linux_buffer_params_v1_add(params, dmabufFD, 0, 0, UInt32(stride), UInt32(modifier >> 32), UInt32(modifier & 0xFFFF_FFFF))
            close(dmabufFD)
            zwp_linux_buffer_params_v1_create(params, Int32(size.width), Int32(size.height), DmabufOffer.xrgb8888, 0)
            slots.append(Slot(pixels: pixels, params: params))
        }
    }

    deinit {
        destroy()
        munmap(memory, length)
    }

    func pixels(_ index: Int) -> PixelBuffer { slots[index].pixels }

    func buffer(_ index: Int) -> OpaquePointer? { slots[index].buffer }

    func free(excluding: Int?) -> Int? {
        guard state == .ready else { return nil }
        return slots.indices.first { !slots[$0].held && $0 != excluding }
    }

    func attach(_ index: Int) {
        slots[index].held = true
    }

    private func created(_ params: OpaquePointer?, _ buffer: OpaquePointer?) {
        guard let index = slots.firstIndex(where: { $0.params == params }) else { return }
        if let params { zwp_linux_buffer_params_v1_destroy(params) }
        slots[index].params = nil
        guard let buffer else { return failed(nil) }
        wl_buffer_add_listener(buffer, releaseListener.pointer, Unmanaged.passUnretained(self).toOpaque())
        slots[index].buffer = buffer
        if state == .pending, slots.allSatisfy({ $0.buffer != nil }) { state = .ready }
    }

    private func failed(_ params: OpaquePointer?) {
        if let index = slots.firstIndex(where: { $0.params == params }), let params {
            zwp_linux_buffer_params_v1_destroy(params)
            slots[index].params = nil
        }
        state = .failed
    }

    private func released(_ buffer: OpaquePointer?) {
        guard let index = slots.firstIndex(where: { $0.buffer == buffer }) else { return }
        slots[index].held = false
    }

    /// Destroys the buffers and the requests still unanswered; the compositor keeps what it
    /// holds until the next commit (the protocol allows destroying an attached buffer).
    private func destroy() {
        for slot in slots {
            if let params = slot.params { zwp_linux_buffer_params_v1_destroy(params) }
            if let buffer = slot.buffer { wl_buffer_destroy(buffer) }
        }
        slots.removeAll()
    }
}
