import FlickCore

/// Which kind of buffers the window asks for (`display.wayland_buffers`).
public enum WaylandBufferPreference: String, Hashable, Sendable, CaseIterable {
    /// dma-buf buffers (`linux-dmabuf` over `/dev/udmabuf`) where the compositor takes them,
    /// else shared memory.
    case auto
    /// Shared memory (`wl_shm`) always.
    case shm
}

/// What the compositor said it imports through `zwp_linux_dmabuf_v1`: the version bound and,
/// per DRM format (a fourcc), the modifiers (the `format` and `modifier` events of versions 1–3).
public struct DmabufOffer: Hashable, Sendable {
    /// The version bound.
    public var version: UInt32
    /// The modifiers the compositor listed per format.
    public var modifiers: [UInt32: Set<UInt64>]

    /// Creates a record.
    public init(version: UInt32, modifiers: [UInt32: Set<UInt64>] = [:]) {
        self.version = version
        self.modifiers = modifiers
    }

    /// A `format` event: before version 3 it is the only word, and means the implicit
    /// modifier; from version 3 the `modifier` events say which.
    public mutating func format(_ fourcc: UInt32) {
        if version < 3 { modifiers[fourcc, default: []].insert(DmabufOffer.invalid) }
    }

    /// A `modifier` event.
    public mutating func modifier(_ fourcc: UInt32, _ modifier: UInt64) {
        modifiers[fourcc, default: []].insert(modifier)
    }

    /// DRM_FORMAT_XRGB8888, the frames' format (`XR24`).
    public static let xrgb8888: UInt32 = 0x3432_5258
    /// DRM_FORMAT_MOD_LINEAR: rows one after another, what the CPU draws.
    public static let linear: UInt64 = 0
    /// DRM_FORMAT_MOD_INVALID: the implicit modifier (the layout the driver assumes).
    public static let invalid: UInt64 = 0x00FF_FFFF_FFFF_FFFF
}

/// The choice between dma-buf and shared-memory buffers, as a pure function of what the
/// compositor offers and whether `/dev/udmabuf` opened (tested without either).
public enum BufferChoice: Hashable, Sendable {
    /// Try dma-buf buffers with these modifiers, in order; the first the compositor creates wins.
    case dmabuf(modifiers: [UInt64])
    /// Shared memory, and why.
    case shm(reason: String)

    /// Decides.
    /// - Parameters:
    ///   - preference: the config's.
    ///   - offer: what the compositor's `zwp_linux_dmabuf_v1` listed; nil without the global.
    ///   - udmabuf: nil when `/dev/udmabuf` opened, else why not (the error's text).
    ///
    /// The memory is linear rows the CPU draws: LINEAR says exactly that, and is taken when
    /// listed. A compositor listing only the implicit modifier (INVALID: Weston 10 on a driver
    /// without modifiers) is asked for LINEAR first (versions up to 3 allow any modifier; an
    /// unsupported one is answered with `failed`, no error), then INVALID. Neither listed:
    /// the compositor wants a tiled or compressed layout, which the CPU does not draw.
    public static func decide(preference: WaylandBufferPreference, offer: DmabufOffer?, udmabuf: String?) -> BufferChoice {
        if preference == .shm { return .shm(reason: "display.wayland_buffers = \"shm\"") }
        guard let offer else { return .shm(reason: "the compositor offers no linux-dmabuf (zwp_linux_dmabuf_v1)") }
        guard let listed = offer.modifiers[DmabufOffer.xrgb8888], !listed.isEmpty else {
            return .shm(reason: "the compositor's linux-dmabuf lists no XRGB8888")
        }
        let modifiers: [UInt64]
        if listed.contains(DmabufOffer.linear) {
            modifiers = [DmabufOffer.linear]
        } else if listed.contains(DmabufOffer.invalid) {
            modifiers = offer.version <= 3 ? [DmabufOffer.linear, DmabufOffer.invalid] : [DmabufOffer.invalid]
        } else {
            let named = listed.sorted().map { "0x" + String($0, radix: 16) }.joined(separator: ", ")
            return .shm(reason: "the compositor takes XRGB8888 dma-bufs only with modifiers \(named), not linear rows the CPU draws")
        }
        if let udmabuf { return .shm(reason: "/dev/udmabuf: \(udmabuf)") }
        return .dmabuf(modifiers: modifiers)
    }

    /// A modifier as the display line names it.
    public static func name(_ modifier: UInt64) -> String {
        switch modifier {
        case DmabufOffer.linear: "LINEAR"
        case DmabufOffer.invalid: "implicit"
        default: "0x" + String(modifier, radix: 16)
        }
    }
}
