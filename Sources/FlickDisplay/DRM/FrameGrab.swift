import CDRM
import FlickSystem
import Glibc

/// Reads back what a CRTC is scanning out, from a second process, while another process (the
/// DRM master: flickd) keeps the display.
///
/// It looks up the CRTC's framebuffer (`drmModeGetCrtc`, `drmModeGetFB2`) and the part of it the
/// primary plane shows (its `SRC_X`…`SRC_H`: a pan moves them over one framebuffer, `ScanOutPan`),
/// maps it as a dumb buffer and copies that part. Only root (`CAP_SYS_ADMIN`) gets a handle to
/// another process's framebuffer. Works with dumb buffers (vkms, simple KMS drivers), which is
/// what `DRMOutput` scans out.
public enum FrameGrab {
    /// One grabbed frame.
    public struct Frame {
        /// The card it came from.
        public var card: String
        /// The CRTC that was scanning it out.
        public var crtc: CRTCID
        /// The framebuffer id on screen at the time of the grab.
        public var framebuffer: UInt32
        /// A copy of the pixels the plane shows, `xrgb8888`.
        public var pixels: PixelBuffer
        /// Where the pixel shown at the top-left is in its buffer, in bytes (the framebuffer's
        /// own offset, plus the plane's source corner): 0 for a whole panel-sized buffer, more
        /// for the part of a larger one (flickd's content or band scanned out at zoom 1).
        public var offset: Int
        /// The plane's source corner in the framebuffer, whole pixels: (0, 0) unless the plane
        /// pans over a framebuffer larger than the panel.
        public var source: (x: Int, y: Int)
        /// The framebuffer's size (the panel's, or a larger buffer's).
        public var framebufferSize: PixelSize
        /// Who exported the memory of a framebuffer imported from another device's dma-buf
        /// (`udmabuf`: a Wayland client's buffer the compositor scans out directly), read from
        /// the dma-buf's fdinfo; nil for a dumb buffer of the card's own.
        public var exporter: String? = nil
    }

    /// Copies the frame on screen.
    ///
    /// - Parameters:
    ///   - card: the card; nil tries each `/dev/dri/card*` in order.
    ///   - crtc: the CRTC; nil takes the first one showing a framebuffer.
    /// - Returns: the frame.
    /// - Throws: `DRMError` naming the card and the step: `.noCRTC` when nothing is on screen.
    public static func grab(card: String? = nil, crtc: CRTCID? = nil) throws(DRMError) -> Frame {
        let paths = card.map { [$0] } ?? LibDRM.cardPaths()
        var tried: [String] = []
        for path in paths {
            do {
                return try grab(path: path, crtc: crtc)
            } catch {
                if paths.count == 1 { throw error }
                tried.append(error.description)
            }
        }
        throw DRMError.noCard(tried: tried)
    }

    private static func grab(path: String, crtc wanted: CRTCID?) throws(DRMError) -> Frame {
        let card: DRMCard
        switch LibDRM.open(path) {
        case .success(let fd): card = DRMCard(path: path, fd: fd)
        case .failure(let error) where error.isPermissionError: throw DRMError.permissionDenied(card: path, cause: error)
        case .failure(let error): throw DRMError.call(card: path, step: .open, cause: error)
        }
        let crtcs: [CRTCID]
        switch LibDRM.resources(card.fd) {
        case .success(let resources): crtcs = wanted.map { [$0] } ?? resources.crtcs
        case .failure(let error): throw DRMError.call(card: path, step: .getResources, cause: error)
        }
        for id in crtcs {
            let state: LibDRM.SavedCRTC
            switch LibDRM.crtc(card.fd, id) {
            case .success(let value): state = value
            case .failure(let error): throw DRMError.call(card: path, step: .getCRTC, cause: error)
            }
            guard state.framebuffer != 0 else { continue }
            // The CRTC's own corner and mode where the plane cannot be read (a legacy driver).
            let window = LibDRM.primarySource(card.fd, crtc: id, framebuffer: state.framebuffer)
                ?? PixelRect(x0: Int(state.x), y0: Int(state.y), x1: Int(state.x) + Int(state.mode?.hdisplay ?? 0),
                             y1: Int(state.y) + Int(state.mode?.vdisplay ?? 0))
            switch LibDRM.copyFramebuffer(card.fd, state.framebuffer, window: window) {
            case .success(let copy):
                return Frame(card: path, crtc: id, framebuffer: state.framebuffer, pixels: copy.pixels, offset: copy.offset,
                             source: (window.x0, window.y0), framebufferSize: copy.size, exporter: copy.exporter)
            case .failure(let failure): throw DRMError.call(card: path, step: failure.step, cause: failure.cause)
            }
        }
        throw DRMError.noCRTC(card: path, connector: "any (no CRTC is showing a framebuffer)")
    }
}

extension FrameGrab {
    /// Whether each CRTC of `card` showing a framebuffer is active (its atomic `ACTIVE`
    /// property: 0 while display power has the panel off by DPMS), read by a second process.
    /// - Parameter card: the card; nil takes the first of `/dev/dri/card*` with such a CRTC.
    /// - Throws: `DRMError` naming the card and the step.
    public static func activity(card: String?) throws(DRMError) -> [(crtc: CRTCID, active: Bool)] {
        for path in card.map({ [$0] }) ?? LibDRM.cardPaths() {
            let states = try activity(path: path)
            if !states.isEmpty || card != nil { return states }
        }
        return []
    }

    private static func activity(path: String) throws(DRMError) -> [(crtc: CRTCID, active: Bool)] {
        let card: DRMCard
        switch LibDRM.open(path) {
        case .success(let fd): card = DRMCard(path: path, fd: fd)
        case .failure(let error): throw DRMError.call(card: path, step: .open, cause: error)
        }
        // ACTIVE is shown to atomic clients only.
        _ = LibDRM.enableAtomic(card.fd)
        let crtcs: [CRTCID]
        switch LibDRM.resources(card.fd) {
        case .success(let resources): crtcs = resources.crtcs
        case .failure(let error): throw DRMError.call(card: path, step: .getResources, cause: error)
        }
        var states: [(crtc: CRTCID, active: Bool)] = []
        for id in crtcs {
            guard case .success(let state) = LibDRM.crtc(card.fd, id), state.framebuffer != 0 else { continue }
            let (names, values) = LibDRM.objectProperties(card.fd, id.rawValue, type: UInt32(DRM_MODE_OBJECT_CRTC))
            guard let property = names["ACTIVE"], let value = values[property] else { continue }
            states.append((id, value != 0))
        }
        return states
    }
}

extension LibDRM {
    /// The part of `framebuffer` the primary plane on `crtc` shows: its `SRC_*` properties,
    /// whole pixels (they are 16.16), read as an atomic client; nil when no primary plane of
    /// the CRTC shows that framebuffer or the driver has no atomic API.
    static func primarySource(_ fd: Int32, crtc: CRTCID, framebuffer: UInt32) -> PixelRect? {
        guard enableAtomic(fd), let resources = drmModeGetPlaneResources(fd) else { return nil }
        let ids = resources.pointee.planes.map { Array(UnsafeBufferPointer(start: $0, count: Int(resources.pointee.count_planes))) } ?? []
        drmModeFreePlaneResources(resources)
        for id in ids {
            let (names, values) = objectProperties(fd, id, type: UInt32(bitPattern: Int32(truncatingIfNeeded: DRM_MODE_OBJECT_PLANE)))
            func value(_ name: String) -> UInt64? { names[name].flatMap { values[$0] } }
            guard value("type") == UInt64(DRM_PLANE_TYPE_PRIMARY), value("CRTC_ID") == UInt64(crtc.rawValue),
                  value("FB_ID") == UInt64(framebuffer),
                  let x = value("SRC_X"), let y = value("SRC_Y"), let w = value("SRC_W"), let h = value("SRC_H") else { continue }
            // 32-bit values: whole pixels fit an Int on every platform flickd builds for.
            let px = Int(truncatingIfNeeded: x >> 16), py = Int(truncatingIfNeeded: y >> 16)
            return PixelRect(x0: px, y0: py, x1: px + Int(truncatingIfNeeded: w >> 16), y1: py + Int(truncatingIfNeeded: h >> 16))
        }
        return nil
    }

    /// Copies the `window` of a 32-bpp framebuffer's pixels (the whole framebuffer when the
    /// window is empty or not inside it): `drmModeGetFB2` for its size, format, pitch, offset
    /// and a handle (a framebuffer may view a buffer from an offset: flickd's content views
    /// where the driver refuses panning), then `drmModeMapDumbBuffer` and a read-only `mmap`;
    /// the handle is closed after. `offset` is the byte offset of the window's top-left pixel.
    /// A framebuffer imported from a dma-buf cannot be mapped as a dumb buffer (the kernel
    /// refuses): it is exported again (`drmPrimeHandleToFD`) and the dma-buf mapped, and its
    /// exporter named.
    static func copyFramebuffer(_ fd: Int32, _ id: UInt32, window: PixelRect)
        -> Result<(pixels: PixelBuffer, offset: Int, size: PixelSize, exporter: String?), StepFailure> {
        guard let fb = drmModeGetFB2(fd, id) else { return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd))) }
        let info = fb.pointee
        drmModeFreeFB2(fb)
        let handle = info.handles.0, pitch = Int(info.pitches.0), offset = Int(info.offsets.0)
        // Without CAP_SYS_ADMIN the kernel answers with handle 0: the pixels stay private.
        guard handle != 0 else { return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd, errno: EPERM))) }
        defer { _ = drmCloseBufferHandle(fd, handle) }
        let width = Int(info.width), height = Int(info.height)
        let inside = !window.isEmpty && window.x0 >= 0 && window.y0 >= 0 && window.x1 <= width && window.y1 <= height
        let shown = inside ? window : PixelRect(x0: 0, y0: 0, x1: width, y1: height)
        guard info.pixel_format == FourCC.xrgb8888 || info.pixel_format == FourCC.argb8888,
              let copy = PixelBuffer(width: shown.width, height: shown.height) else {
            return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd, errno: EINVAL)))
        }
        var mapOffset: UInt64 = 0
        var mapFD = fd
        var exporter: String?
        let rc = drmModeMapDumbBuffer(fd, handle, &mapOffset)
        if case .failure(let error) = status(rc, "drmModeMapDumbBuffer", fd) {
            var dmabuf: Int32 = -1
            guard error.errno == EINVAL, drmPrimeHandleToFD(fd, handle, UInt32(DRM_CLOEXEC), &dmabuf) == 0, dmabuf >= 0 else {
                return .failure(StepFailure(step: .mapDumbBuffer, cause: error))
            }
            (mapFD, mapOffset, exporter) = (dmabuf, 0, dmabufExporter(dmabuf))
        }
        defer { if mapFD != fd { close(mapFD) } }
        let size = offset + pitch * (height - 1) + width * 4
        let address = mmap(nil, size, PROT_READ, MAP_SHARED, mapFD, off_t(mapOffset))
        guard let address, address != MAP_FAILED else { return .failure(StepFailure(step: .mmap, cause: failure("mmap", fd))) }
        defer { munmap(address, size) }
        guard let mapped = PixelBuffer(borrowing: address + offset, width: width, height: height, stride: pitch) else {
            return .failure(StepFailure(step: .mmap, cause: failure("mmap", fd, errno: EINVAL)))
        }
        copy.copy(from: mapped, x: shown.x0, y: shown.y0, width: shown.width, height: shown.height)
        return .success((copy, offset + shown.y0 * pitch + shown.x0 * 4, PixelSize(width: width, height: height), exporter))
    }

    /// The `exp_name` line of a dma-buf's fdinfo (`udmabuf`, `drm`), if any.
    static func dmabufExporter(_ fd: Int32) -> String? {
        let info = Glibc.open("/proc/self/fdinfo/\(fd)", O_RDONLY | O_CLOEXEC)
        guard info >= 0 else { return nil }
        defer { Glibc.close(info) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(info, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("exp_name:") {
            return String(line.dropFirst("exp_name:".count).filter { $0 != " " && $0 != "\t" })
        }
        return nil
    }
}
