import CDRM
import FlickSystem
import Glibc

/// The raw libdrm calls of the atomic API: planes, their properties, framebuffers with an
/// offset and a pixel format, atomic commits (after kmscube's and drm_info's use of them).
extension LibDRM {
    /// DRM fourcc codes (`drm_fourcc.h` builds them with a macro Swift cannot import).
    enum FourCC {
        /// `DRM_FORMAT_XRGB8888`, 'XR24'.
        static let xrgb8888: UInt32 = 0x3432_5258
        /// `DRM_FORMAT_ARGB8888`, 'AR24'.
        static let argb8888: UInt32 = 0x3432_5241
    }

    /// What a plane is for (the `type` property).
    enum PlaneKind: Hashable {
        case overlay, primary, cursor, unknown
    }

    /// One plane: where it can go, what it can show, and its property ids by name.
    struct PlaneSummary {
        var id: UInt32
        var kind: PlaneKind
        /// Bit *n* set: the plane can be used with the *n*-th CRTC of the card's resources.
        var possibleCRTCs: UInt32
        var formats: [UInt32]
        var properties: [String: UInt32]
    }

    /// Asks for universal planes and the atomic API; `false` when the driver has no atomic
    /// modesetting (the output then stays on the legacy page flip, composing every frame).
    static func enableAtomic(_ fd: Int32) -> Bool {
        Counter.count(.other)
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0 else { return false }
        Counter.count(.other)
        return drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
    }

    /// Every plane of the card; `drmModeGetPlaneResources`, `drmModeGetPlane` and the planes'
    /// properties. A plane that cannot be read is left out.
    static func planes(_ fd: Int32) -> Result<[PlaneSummary], SystemError> {
        Counter.count(.other)
        guard let resources = drmModeGetPlaneResources(fd) else { return .failure(failure("drmModeGetPlaneResources", fd)) }
        defer { drmModeFreePlaneResources(resources) }
        let ids = resources.pointee.planes.map { Array(UnsafeBufferPointer(start: $0, count: Int(resources.pointee.count_planes))) } ?? []
        var planes: [PlaneSummary] = []
        for id in ids {
            Counter.count(.other)
            guard let plane = drmModeGetPlane(fd, id) else { continue }
            let p = plane.pointee
            let formats = p.formats.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.count_formats))) } ?? []
            drmModeFreePlane(plane)
            let (properties, values) = objectProperties(fd, id, type: UInt32(bitPattern: Int32(truncatingIfNeeded: DRM_MODE_OBJECT_PLANE)))
            let kind: PlaneKind = switch properties["type"].flatMap({ values[$0] }) {
            case UInt64(DRM_PLANE_TYPE_OVERLAY): .overlay
            case UInt64(DRM_PLANE_TYPE_PRIMARY): .primary
            case UInt64(DRM_PLANE_TYPE_CURSOR): .cursor
            default: .unknown
            }
            planes.append(PlaneSummary(id: id, kind: kind, possibleCRTCs: p.possible_crtcs, formats: formats, properties: properties))
        }
        return .success(planes)
    }

    /// An object's property ids by name, and their current values by id.
    static func objectProperties(_ fd: Int32, _ id: UInt32, type: UInt32) -> ([String: UInt32], [UInt32: UInt64]) {
        Counter.count(.other)
        guard let list = drmModeObjectGetProperties(fd, id, type) else { return ([:], [:]) }
        defer { drmModeFreeObjectProperties(list) }
        var names: [String: UInt32] = [:], values: [UInt32: UInt64] = [:]
        for i in 0..<Int(list.pointee.count_props) {
            Counter.count(.other)
            guard let propID = list.pointee.props?[i], let property = drmModeGetProperty(fd, propID) else { continue }
            let name = withUnsafeBytes(of: property.pointee.name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            drmModeFreeProperty(property)
            names[name] = propID
            values[propID] = list.pointee.prop_values?[i]
        }
        return (names, values)
    }

    /// `drmModeAddFB2` of one memory plane: `handle`'s pixels from `offset` on, `pitch` bytes a row.
    static func addFramebuffer2(_ fd: Int32, width: Int, height: Int, format: UInt32, handle: UInt32,
                                pitch: Int, offset: Int) -> Result<UInt32, SystemError> {
        guard let pitch32 = UInt32(exactly: pitch), let offset32 = UInt32(exactly: offset) else {
            return .failure(failure("drmModeAddFB2", fd, errno: ERANGE))
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch32, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (offset32, 0, 0, 0)
        var id: UInt32 = 0
        Counter.count(.added)
        let rc = withUnsafeMutableBytes(of: &handles) { h in
            withUnsafeMutableBytes(of: &pitches) { p in
                withUnsafeMutableBytes(of: &offsets) { o in
                    drmModeAddFB2(fd, UInt32(width), UInt32(height), format,
                                  h.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                  p.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                  o.baseAddress!.assumingMemoryBound(to: UInt32.self), &id, 0)
                }
            }
        }
        return status(rc, "drmModeAddFB2", fd).map { id }
    }

    /// One atomic request: property values to set together, committed once.
    final class AtomicRequest {
        private let request: drmModeAtomicReqPtr
        private(set) var failed = false

        init?() {
            guard let request = drmModeAtomicAlloc() else { return nil }
            self.request = request
        }

        deinit { drmModeAtomicFree(request) }

        /// Adds `object.property = value`; a property the driver does not have (id 0) fails the request.
        func set(_ object: UInt32, _ property: UInt32?, _ value: UInt64) {
            guard let property, property != 0, drmModeAtomicAddProperty(request, object, property, value) >= 0 else {
                failed = true
                return
            }
        }

        /// `drmModeAtomicCommit`; `testOnly` asks whether the driver would accept it.
        func commit(_ fd: Int32, flipEvent: Bool, nonBlocking: Bool, testOnly: Bool = false, allowModeset: Bool = false,
                    userData: UnsafeMutableRawPointer?) -> Result<Void, SystemError> {
            guard !failed else { return .failure(failure("drmModeAtomicAddProperty", fd, errno: EINVAL)) }
            var flags: UInt32 = 0
            if flipEvent { flags |= UInt32(DRM_MODE_PAGE_FLIP_EVENT) }
            if nonBlocking { flags |= UInt32(DRM_MODE_ATOMIC_NONBLOCK) }
            if testOnly { flags |= UInt32(DRM_MODE_ATOMIC_TEST_ONLY) }
            if allowModeset { flags |= UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET) }
            Counter.count(.commit)
            let rc = drmModeAtomicCommit(fd, request, flags, userData)
            return status(rc, "drmModeAtomicCommit", fd)
        }
    }
}
