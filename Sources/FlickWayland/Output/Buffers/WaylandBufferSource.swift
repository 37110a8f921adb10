import CWayland
import CWaylandProtocols
import FlickCore
import FlickDisplay
import Glibc

/// Which memory the window's frames are drawn into, chosen once at start (`BufferChoice`), and
/// the set of buffers of the window's size.
///
/// dma-bufs (`DmabufBuffers`) when the compositor lists XRGB8888 with a linear or implicit
/// modifier, `/dev/udmabuf` opens, and a first set of the window's size is `created`; else
/// shared memory (`ShmBuffers`), and `description` says why.
///
/// | kind          | event                                         | next                         |
/// |---------------|-----------------------------------------------|------------------------------|
/// | (start)       | choice dmabuf, first set created              | dmabuf                       |
/// | (start)       | choice shm, or every modifier's set failed    | shm (the reason kept)        |
/// | dmabuf        | a new size: its set pending                   | dmabuf (no buffer until it is created) |
/// | dmabuf        | a set failed, or its memory cannot be had     | shm for good (`notice`, said once) |
/// | shm           | anything                                      | shm                          |
final class WaylandBufferSource {
    /// The memory in use, or why shared memory.
    enum Kind: Hashable {
        case dmabuf(modifier: UInt64)
        case shm(reason: String)
    }

    private(set) var kind: Kind
    /// Set when dma-bufs were given up after the start, for the journal; taken by the output.
    var notice: String?
    private var current: (any WaylandBufferSet)?
    private let shm: OpaquePointer
    private var dmabuf: OpaquePointer?
    private var udmabuf: Int32
    private let offer: OfferRecord
    private let offerListener = WaylandListener(zwp_linux_dmabuf_v1_listener(
        format: { data, _, format in waylandOwner(data, as: OfferRecord.self)?.offer.format(format) },
        modifier: { data, _, format, high, low in
            waylandOwner(data, as: OfferRecord.self)?.offer.modifier(format, UInt64(high) << 32 | UInt64(low))
        }
    ))

    /// What the `zwp_linux_dmabuf_v1` listener records.
    private final class OfferRecord {
        var offer: DmabufOffer
        init(version: UInt32) { offer = DmabufOffer(version: version) }
    }

    /// Decides at start (round trips: the offer, then the first set's `created` or `failed`).
    /// - Parameters:
    ///   - shm: the bound `wl_shm` (always offered: `WaylandRequirements.output`).
    ///   - size: the window's buffer size now.
    /// - Throws: `WaylandError` when the connection breaks.
    init(connection: WaylandConnection, shm: OpaquePointer, preference: WaylandBufferPreference, size: PixelSize) throws(WaylandError) {
        self.shm = shm
        // Version 3 at most: its format and modifier events say all a CPU-drawn linear buffer can
        // use; version 4's feedback adds the main device and scan-out tranches, which name
        // layouts and devices such a buffer cannot take.
        if preference == .auto, connection.global("zwp_linux_dmabuf_v1") != nil {
            let bound = try connection.bind(flickd_zwp_linux_dmabuf_v1_interface(), version: 3)
            dmabuf = bound.proxy
            offer = OfferRecord(version: bound.version)
            zwp_linux_dmabuf_v1_add_listener(bound.proxy, offerListener.pointer, Unmanaged.passUnretained(offer).toOpaque())
            try connection.roundTrip()
        } else {
            dmabuf = nil
            offer = OfferRecord(version: 0)
        }
        udmabuf = dmabuf == nil ? -1 : open("/dev/udmabuf", O_RDWR | O_CLOEXEC)
        let unopened = udmabuf >= 0 ? nil : Self.why(errno: errno)
        kind = .shm(reason: "")
        switch BufferChoice.decide(preference: preference, offer: dmabuf == nil ? nil : offer.offer, udmabuf: dmabuf == nil ? nil : unopened) {
        case .shm(let reason):
            kind = .shm(reason: reason)
        case .dmabuf(let modifiers):
            kind = try firstSet(connection: connection, size: size, modifiers: modifiers)
        }
    }

    deinit { close() }

    /// Destroys the buffers and the `zwp_linux_dmabuf_v1` proxy while the connection lives
    /// (the window's `close()`: a proxy destroyed after the display is gone is a crash).
    func close() {
        current = nil
        if let dmabuf { zwp_linux_dmabuf_v1_destroy(dmabuf) }
        dmabuf = nil
        if udmabuf >= 0 { Glibc.close(udmabuf) }
        udmabuf = -1
    }

    /// For the display line: `dmabuf buffers (udmabuf, LINEAR)` or `shm buffers: REASON`.
    var description: String {
        switch kind {
        case .dmabuf(let modifier): "dmabuf buffers (udmabuf, \(BufferChoice.name(modifier)))"
        case .shm(let reason): "shm buffers: \(reason)"
        }
    }

    /// The set of buffers of `size`, made when the size is new; nil while a dma-buf set waits
    /// for the compositor's `created` (the caller refuses the frame, which is retried).
    /// - Throws: `OutputError.allocationFailed` when no memory can be had.
    func buffers(for size: PixelSize) throws(OutputError) -> (any WaylandBufferSet)? {
        if let current, current.size == size {
            guard let set = current as? DmabufBuffers else { return current }
            switch set.state {
            case .ready: return set
            case .pending: return nil
            case .failed: giveUp("the compositor refused a \(size) dma-buf (\(BufferChoice.name(set.modifier)))")
            }
        } else if case .dmabuf(let modifier) = kind, let dmabuf {
            do {
                current = try DmabufBuffers(dmabuf: dmabuf, udmabuf: udmabuf, size: size, modifier: modifier)
                return nil
            } catch {
                giveUp("/dev/udmabuf: no dma-buf of \(size): \(String(cString: strerror(errno)))")
            }
        }
        let made = try ShmBuffers(shm: shm, size: size)
        current = made
        return made
    }

    /// Forgets the set (a new size, or the window closing).
    func drop() {
        current = nil
    }

    private func giveUp(_ reason: String) {
        current = nil
        kind = .shm(reason: reason)
        notice = "display: wayland: dma-buf buffers given up, shared memory from now on: \(reason)"
    }

    /// The first set, one modifier after another, each answered within a round trip or two.
    private func firstSet(connection: WaylandConnection, size: PixelSize, modifiers: [UInt64]) throws(WaylandError) -> Kind {
        guard let dmabuf else { return .shm(reason: "the compositor offers no linux-dmabuf (zwp_linux_dmabuf_v1)") }
        var refused: [String] = []
        for modifier in modifiers {
            let set: DmabufBuffers
            do {
                set = try DmabufBuffers(dmabuf: dmabuf, udmabuf: udmabuf, size: size, modifier: modifier)
            } catch {
                return .shm(reason: "/dev/udmabuf: no dma-buf of \(size): \(String(cString: strerror(errno)))")
            }
            for _ in 0..<4 where set.state == .pending { try connection.roundTrip() }
            if set.state == .ready {
                current = set
                return .dmabuf(modifier: modifier)
            }
            refused.append(BufferChoice.name(modifier))
        }
        return .shm(reason: "the compositor refused a \(size) XRGB8888 dma-buf (\(refused.joined(separator: ", ")))")
    }

    /// Why `/dev/udmabuf` did not open, with what to do about the usual causes.
    static func why(errno: Int32) -> String {
        let text = String(cString: strerror(errno))
        switch errno {
        case ENOENT: return text + " (the kernel has no udmabuf: CONFIG_UDMABUF)"
        case EACCES, EPERM: return text + " (flickd's user cannot open it: udev gives it to group kvm)"
        default: return text
        }
    }
}
