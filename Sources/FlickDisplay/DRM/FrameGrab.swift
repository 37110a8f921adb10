import CDRM
import FlickSystem
import Glibc

/// Reads back what a CRTC is scanning out, from a second process, while another process (the
/// DRM master: flickd) keeps the display.
///
/// It looks up the CRTC's framebuffer (`drmModeGetCrtc`, `drmModeGetFB2`), maps it as a dumb
/// buffer and copies it. Only root (`CAP_SYS_ADMIN`) gets a handle to another process's
/// framebuffer. Works with dumb buffers (vkms, simple KMS drivers), which is what `DRMOutput`
/// scans out.
public enum FrameGrab {
    /// One grabbed frame.
    public struct Frame {
        /// The card it came from.
        public var card: String
        /// The CRTC that was scanning it out.
        public var crtc: CRTCID
        /// The framebuffer id on screen at the time of the grab.
        public var framebuffer: UInt32
        /// A copy of the pixels, `xrgb8888`.
        public var pixels: PixelBuffer
        /// Where the framebuffer starts in its buffer, in bytes: 0 for a whole buffer, more for
        /// a view into a larger one (flickd's content scanned out at zoom 1).
        public var offset: Int
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
            switch LibDRM.copyFramebuffer(card.fd, state.framebuffer) {
            case .success(let copy):
                return Frame(card: path, crtc: id, framebuffer: state.framebuffer, pixels: copy.pixels, offset: copy.offset)
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
    /// Copies a 32-bpp framebuffer's pixels: `drmModeGetFB2` for its size, format, pitch, offset
    /// and a handle (a framebuffer may view a buffer from an offset: flickd's content views),
    /// then `drmModeMapDumbBuffer` and a read-only `mmap`; the handle is closed after.
    static func copyFramebuffer(_ fd: Int32, _ id: UInt32) -> Result<(pixels: PixelBuffer, offset: Int), StepFailure> {
        guard let fb = drmModeGetFB2(fd, id) else { return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd))) }
        let info = fb.pointee
        drmModeFreeFB2(fb)
        let handle = info.handles.0, pitch = Int(info.pitches.0), offset = Int(info.offsets.0)
        // Without CAP_SYS_ADMIN the kernel answers with handle 0: the pixels stay private.
        guard handle != 0 else { return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd, errno: EPERM))) }
        defer { _ = drmCloseBufferHandle(fd, handle) }
        let width = Int(info.width), height = Int(info.height)
        guard info.pixel_format == FourCC.xrgb8888 || info.pixel_format == FourCC.argb8888,
              let copy = PixelBuffer(width: width, height: height) else {
            return .failure(StepFailure(step: .getFramebuffer, cause: failure("drmModeGetFB2", fd, errno: EINVAL)))
        }
        var mapOffset: UInt64 = 0
        let rc = drmModeMapDumbBuffer(fd, handle, &mapOffset)
        if case .failure(let error) = status(rc, "drmModeMapDumbBuffer", fd) {
            return .failure(StepFailure(step: .mapDumbBuffer, cause: error))
        }
        let size = offset + pitch * (height - 1) + width * 4
        let address = mmap(nil, size, PROT_READ, MAP_SHARED, fd, off_t(mapOffset))
        guard let address, address != MAP_FAILED else { return .failure(StepFailure(step: .mmap, cause: failure("mmap", fd))) }
        defer { munmap(address, size) }
        guard let mapped = PixelBuffer(borrowing: address + offset, width: width, height: height, stride: pitch) else {
            return .failure(StepFailure(step: .mmap, cause: failure("mmap", fd, errno: EINVAL)))
        }
        copy.copy(from: mapped)
        return .success((copy, offset))
    }
}
