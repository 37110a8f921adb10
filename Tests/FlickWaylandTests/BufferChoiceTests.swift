import Glibc
import Testing
@testable import FlickWayland

/// dma-buf or shared memory, from what the compositor lists and whether /dev/udmabuf opened.
@Suite struct BufferChoiceTests {
    static let xr24 = DmabufOffer.xrgb8888
    static let argb: UInt32 = 0x3432_5241
    /// An Intel Y-tiled modifier: a layout the CPU does not draw.
    static let tiled: UInt64 = 0x0100_0000_0000_0002

    /// What a version-3 compositor lists through `modifier` events.
    static func offer(_ modifiers: [UInt32: [UInt64]], version: UInt32 = 3) -> DmabufOffer {
        var offer = DmabufOffer(version: version)
        for (format, list) in modifiers {
            offer.format(format)
            for modifier in list { offer.modifier(format, modifier) }
        }
        return offer
    }

    @Test func linearListedIsTakenAlone() {
        let offer = Self.offer([Self.xr24: [Self.tiled, DmabufOffer.linear, DmabufOffer.invalid]])
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil) == .dmabuf(modifiers: [DmabufOffer.linear]))
    }

    /// Weston 10 on a driver without modifiers lists INVALID alone: LINEAR is asked first (it is
    /// what the memory is, and version 3 answers an unsupported one with `failed`), then INVALID.
    @Test func implicitOnlyTriesLinearThenImplicit() {
        let offer = Self.offer([Self.xr24: [DmabufOffer.invalid]])
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil)
                == .dmabuf(modifiers: [DmabufOffer.linear, DmabufOffer.invalid]))
    }

    /// Before version 3 only `format` events come: they mean the implicit modifier.
    @Test func formatEventsBeforeVersionThreeMeanImplicit() {
        var offer = DmabufOffer(version: 2)
        offer.format(Self.xr24)
        #expect(offer.modifiers[Self.xr24] == [DmabufOffer.invalid])
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil)
                == .dmabuf(modifiers: [DmabufOffer.linear, DmabufOffer.invalid]))
        // From version 3 a format event alone lists nothing: the modifier events say which.
        var three = DmabufOffer(version: 3)
        three.format(Self.xr24)
        #expect(three.modifiers[Self.xr24] == nil)
    }

    @Test func aLaterVersionWithImplicitOnlyGetsImplicitAlone() {
        let offer = Self.offer([Self.xr24: [DmabufOffer.invalid]], version: 4)
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil) == .dmabuf(modifiers: [DmabufOffer.invalid]))
    }

    @Test func tiledOnlyIsSharedMemoryNamingTheModifiers() {
        let offer = Self.offer([Self.xr24: [Self.tiled]])
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil)
                == .shm(reason: "the compositor takes XRGB8888 dma-bufs only with modifiers 0x100000000000002, not linear rows the CPU draws"))
    }

    @Test func noXRGB8888IsSharedMemory() {
        let offer = Self.offer([Self.argb: [DmabufOffer.linear]])
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: nil) == .shm(reason: "the compositor's linux-dmabuf lists no XRGB8888"))
    }

    @Test func noGlobalIsSharedMemory() {
        #expect(BufferChoice.decide(preference: .auto, offer: nil, udmabuf: nil)
                == .shm(reason: "the compositor offers no linux-dmabuf (zwp_linux_dmabuf_v1)"))
    }

    @Test func noUdmabufIsSharedMemorySayingWhy() {
        let offer = Self.offer([Self.xr24: [DmabufOffer.linear]])
        let why = WaylandBufferSource.why(errno: ENOENT)
        #expect(why == "No such file or directory (the kernel has no udmabuf: CONFIG_UDMABUF)")
        #expect(BufferChoice.decide(preference: .auto, offer: offer, udmabuf: why) == .shm(reason: "/dev/udmabuf: " + why))
        #expect(WaylandBufferSource.why(errno: EACCES) == "Permission denied (flickd's user cannot open it: udev gives it to group kvm)")
    }

    @Test func theConfigForcesSharedMemory() {
        let offer = Self.offer([Self.xr24: [DmabufOffer.linear]])
        #expect(BufferChoice.decide(preference: .shm, offer: offer, udmabuf: nil) == .shm(reason: "display.wayland_buffers = \"shm\""))
    }

    @Test func modifiersAreNamedForTheDisplayLine() {
        #expect(BufferChoice.name(DmabufOffer.linear) == "LINEAR")
        #expect(BufferChoice.name(DmabufOffer.invalid) == "implicit")
        #expect(BufferChoice.name(Self.tiled) == "0x100000000000002")
    }
}
