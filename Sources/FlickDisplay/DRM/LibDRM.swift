import CDRM
import FlickSystem
import Glibc

/// Every raw libdrm (and DRM-related kernel) call of FlickDisplay, in one place.
///
/// Each returns plain Swift values or a `Result` carrying the failed call (`SystemError`), so this file is the seam to
/// trace calls or fake the kernel; `DRMOutput` holds the decisions and the order of the steps.
enum LibDRM {
    /// The card's CRTC, connector and encoder ids.
    struct Resources {
        var crtcs: [CRTCID]
        var connectors: [ConnectorID]
        var encoders: [EncoderID]
    }

    /// A CRTC's state, kept to restore it on close.
    struct SavedCRTC {
        var id: CRTCID
        var framebuffer: UInt32
        var x: UInt32
        var y: UInt32
        var mode: drmModeModeInfo?
    }

    /// The ids and sizes of one dumb buffer.
    struct DumbBufferInfo {
        var handle: UInt32
        var pitch: Int
        var size: Int
    }

    /// `open(2)` of a card, read-write, non-blocking (so `drmHandleEvent` never waits).
    static func open(_ path: String) -> Result<Int32, SystemError> {
        retryingResult("open", path) { Glibc.open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK) }
    }

    /// A failed call on the card behind `fd` (`DRMError` names the card's path and the step).
    static func failure(_ call: String, _ fd: Int32, errno: Int32 = Glibc.errno) -> SystemError {
        SystemError(call: call, context: "DRM card fd \(fd)", errno: errno)
    }

    /// The card's objects; the corresponding C function is `drmModeGetResources`.
    static func resources(_ fd: Int32) -> Result<Resources, SystemError> {
        Counter.count(.other)
        guard let res = drmModeGetResources(fd) else { return .failure(failure("drmModeGetResources", fd)) }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        func ids<T>(_ p: UnsafeMutablePointer<UInt32>?, _ n: Int32, _ make: (UInt32) -> T) -> [T] {
            guard let p, n > 0 else { return [] }
            return UnsafeBufferPointer(start: p, count: Int(n)).map(make)
        }
        return .success(Resources(crtcs: ids(r.crtcs, r.count_crtcs, CRTCID.init),
                                  connectors: ids(r.connectors, r.count_connectors, ConnectorID.init),
                                  encoders: ids(r.encoders, r.count_encoders, EncoderID.init)))
    }

    /// A connector and its raw modes (in the same order as the summary's); `drmModeGetConnector`.
    static func connector(_ fd: Int32, _ id: ConnectorID) -> Result<(ConnectorSummary, [drmModeModeInfo]), SystemError> {
        Counter.count(.other)
        guard let ptr = drmModeGetConnector(fd, id.rawValue) else { return .failure(failure("drmModeGetConnector", fd)) }
        defer { drmModeFreeConnector(ptr) }
        let c = ptr.pointee
        let raw = c.modes.map { Array(UnsafeBufferPointer(start: $0, count: Int(c.count_modes))) } ?? []
        let encoders = c.encoders.map { UnsafeBufferPointer(start: $0, count: Int(c.count_encoders)).map(EncoderID.init) } ?? []
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        let summary = ConnectorSummary(
            id: id, name: "\(typeName)-\(c.connector_type_id)", isConnected: c.connection == DRM_MODE_CONNECTED,
            modes: raw.map(displayMode), currentEncoder: c.encoder_id == 0 ? nil : EncoderID(rawValue: c.encoder_id),
            encoders: encoders, physicalSize: ConnectorSummary.physicalSize(millimetresWide: c.mmWidth, high: c.mmHeight))
        return .success((summary, raw))
    }

    /// The plain-value view of a kernel mode.
    static func displayMode(_ m: drmModeModeInfo) -> DisplayMode {
        var hz = Double(m.vrefresh)
        if m.htotal > 0 && m.vtotal > 0 {
            hz = Double(m.clock) * 1000 / (Double(m.htotal) * Double(m.vtotal))
            if m.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { hz *= 2 }
            if m.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { hz /= 2 }
            if m.vscan > 1 { hz /= Double(m.vscan) }
        }
        return DisplayMode(width: Int(m.hdisplay), height: Int(m.vdisplay), refreshRate: hz,
                           isPreferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0)
    }

    /// An encoder; `drmModeGetEncoder`.
    static func encoder(_ fd: Int32, _ id: EncoderID) -> Result<EncoderSummary, SystemError> {
        Counter.count(.other)
        guard let ptr = drmModeGetEncoder(fd, id.rawValue) else { return .failure(failure("drmModeGetEncoder", fd)) }
        defer { drmModeFreeEncoder(ptr) }
        let e = ptr.pointee
        return .success(EncoderSummary(id: id, currentCRTC: e.crtc_id == 0 ? nil : CRTCID(rawValue: e.crtc_id),
                                       possibleCRTCs: e.possible_crtcs))
    }

    /// A CRTC's current state; `drmModeGetCrtc`.
    static func crtc(_ fd: Int32, _ id: CRTCID) -> Result<SavedCRTC, SystemError> {
        Counter.count(.other)
        guard let ptr = drmModeGetCrtc(fd, id.rawValue) else { return .failure(failure("drmModeGetCrtc", fd)) }
        defer { drmModeFreeCrtc(ptr) }
        let c = ptr.pointee
        return .success(SavedCRTC(id: id, framebuffer: c.buffer_id, x: c.x, y: c.y, mode: c.mode_valid != 0 ? c.mode : nil))
    }

    /// libdrm returns `-errno` (or −1 with errno set) from these calls.
    static func status(_ result: Int32, _ call: String, _ fd: Int32) -> Result<Void, SystemError> {
        if result == 0 { return .success(()) }
        return .failure(result < -1 ? failure(call, fd, errno: -result) : failure(call, fd))
    }

    /// `drmModeCreateDumbBuffer` at 32 bpp.
    static func createDumb(_ fd: Int32, width: Int, height: Int) -> Result<DumbBufferInfo, SystemError> {
        var handle: UInt32 = 0, pitch: UInt32 = 0
        var size: UInt64 = 0
        Counter.count(.other)
        return status(drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size), "drmModeCreateDumbBuffer", fd)
            .map { DumbBufferInfo(handle: handle, pitch: Int(pitch), size: Int(size)) }
    }

    /// `drmModeDestroyDumbBuffer`.
    static func destroyDumb(_ fd: Int32, _ handle: UInt32) {
        Counter.count(.other)
        _ = drmModeDestroyDumbBuffer(fd, handle)
    }

    /// `drmModeAddFB` as XRGB8888 (depth 24, 32 bpp).
    static func addFramebuffer(_ fd: Int32, width: Int, height: Int, pitch: Int, handle: UInt32) -> Result<UInt32, SystemError> {
        var id: UInt32 = 0
        Counter.count(.added)
        return status(drmModeAddFB(fd, UInt32(width), UInt32(height), 24, 32, UInt32(pitch), handle, &id), "drmModeAddFB", fd).map { id }
    }

    /// `drmModeRmFB`.
    static func removeFramebuffer(_ fd: Int32, _ id: UInt32) {
        Counter.count(.removed)
        _ = drmModeRmFB(fd, id)
    }

    /// `drmModeMapDumbBuffer` then `mmap` of the returned offset.
    static func map(_ fd: Int32, handle: UInt32, size: Int) -> Result<UnsafeMutableRawPointer, StepFailure> {
        var offset: UInt64 = 0
        Counter.count(.other)
        if case .failure(let error) = status(drmModeMapDumbBuffer(fd, handle, &offset), "drmModeMapDumbBuffer", fd) {
            return .failure(StepFailure(step: .mapDumbBuffer, cause: error))
        }
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let address, address != MAP_FAILED else { return .failure(StepFailure(step: .mmap, cause: failure("mmap", fd))) }
        return .success(address)
    }

    /// A failure of one of several steps in a call.
    struct StepFailure: Error {
        var step: DRMStep
        var cause: SystemError
    }

    /// `munmap`.
    static func unmap(_ address: UnsafeMutableRawPointer, size: Int) { _ = munmap(address, size) }

    /// `drmModeSetCrtc` of one connector.
    static func setCRTC(_ fd: Int32, _ crtc: CRTCID, framebuffer: UInt32, x: UInt32 = 0, y: UInt32 = 0,
                        connector: ConnectorID?, mode: drmModeModeInfo?) -> Result<Void, SystemError> {
        var connectorID = connector?.rawValue ?? 0
        var modeCopy = mode ?? drmModeModeInfo()
        Counter.count(.other)
        return withUnsafeMutablePointer(to: &connectorID) { connectorPointer in
            withUnsafeMutablePointer(to: &modeCopy) { modePointer in
                status(drmModeSetCrtc(fd, crtc.rawValue, framebuffer, x, y, connector == nil ? nil : connectorPointer,
                                      connector == nil ? 0 : 1, mode == nil ? nil : modePointer), "drmModeSetCrtc", fd)
            }
        }
    }

    /// `drmModePageFlip` with `DRM_MODE_PAGE_FLIP_EVENT`; the event carries `userData`.
    static func pageFlip(_ fd: Int32, _ crtc: CRTCID, framebuffer: UInt32, userData: UnsafeMutableRawPointer) -> Result<Void, SystemError> {
        Counter.count(.commit)
        return status(drmModePageFlip(fd, crtc.rawValue, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData), "drmModePageFlip", fd)
    }

    /// The CRTC's vblank counter now (`drmCrtcGetSequence`, the counter page-flip events carry),
    /// or nil when the kernel cannot say.
    static func vblankSequence(_ fd: Int32, _ crtc: CRTCID) -> UInt64? {
        var sequence: UInt64 = 0
        var nanoseconds: Int64 = 0
        Counter.count(.other)
        return drmCrtcGetSequence(fd, crtc.rawValue, &sequence, &nanoseconds) == 0 ? sequence : nil
    }

    /// The page-flip callback: `(fd, sequence, tv_sec, tv_usec, userData)`.
    typealias FlipHandler = @convention(c) (Int32, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> Void

    /// Reads pending events with `drmHandleEvent`; with the non-blocking fd, "nothing to read"
    /// (`EAGAIN`) is success.
    static func handleEvents(_ fd: Int32, pageFlip: FlipHandler) -> Result<Void, SystemError> {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = pageFlip
        if drmHandleEvent(fd, &context) == 0 { return .success(()) }
        let error = failure("drmHandleEvent", fd)
        return error.errno == EAGAIN || error.errno == EINTR ? .success(()) : .failure(error)
    }

    /// Waits up to `milliseconds` for the fd to become readable (only used while closing).
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// The `/dev/dri/card*` nodes, in number order.
    static func cardPaths() -> [String] {
        guard case .success(let names) = FileIO.list("/dev/dri") else { return [] }
        return names.filter { $0.hasPrefix("card") }
            .sorted { (Int($0.dropFirst(4)) ?? .max, $0) < (Int($1.dropFirst(4)) ?? .max, $1) }
            .map { "/dev/dri/" + $0 }
    }
}
