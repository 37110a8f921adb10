import CDRM
import FlickCore
import FlickSystem
import Glibc

/// A DRM card's file descriptor, closed exactly once when the last user lets go.
final class DRMCard {
    let path: String
    /// The card, watched by the loop for flip events: closed when the last holder lets go.
    let descriptor: Descriptor
    /// Its number, for libdrm's calls.
    var fd: Int32 { descriptor.rawValue }

    init(path: String, fd: Int32) {
        self.path = path
        descriptor = Descriptor(owning: fd)
    }
}

/// One buffer in the card's memory: dumb buffer → framebuffer → mapping, released in reverse,
/// once.
final class DumbBuffer {
    /// What the buffer is for, which decides its framebuffer and first contents.
    enum Use {
        /// A whole composed frame: an `XRGB8888` framebuffer, black.
        case frame
        /// An overlay layer: an `ARGB8888` framebuffer, transparent.
        case overlay
        /// The content, scanned out through framebuffers that view parts of it
        /// (`ContentViewFramebuffer`): none of its own, and mapped only to be filled.
        case content
    }

    let card: DRMCard
    let handle: UInt32
    /// The framebuffer showing the whole buffer; 0 for `.content`.
    let framebuffer: UInt32
    let pitch: Int
    private var mapping: UnsafeMutableRawPointer?
    let byteCount: Int
    /// The pixels, drawn with the kernel's pitch (not width × 4); `nil` once unmapped.
    private(set) var pixels: PixelBuffer?

    /// Builds the buffer, undoing the finished steps in reverse if a later one fails.
    init(card: DRMCard, width: Int, height: Int, use: Use = .frame) throws {
        let fd = card.fd
        let info: LibDRM.DumbBufferInfo
        switch LibDRM.createDumb(fd, width: width, height: height) {
        case .success(let value): info = value
        case .failure(let error): throw DRMError.call(card: card.path, step: .createDumbBuffer, cause: error)
        }
        var framebuffer: UInt32 = 0
        let added: Result<UInt32, SystemError>? = switch use {
        case .frame: LibDRM.addFramebuffer(fd, width: width, height: height, pitch: info.pitch, handle: info.handle)
        case .overlay: LibDRM.addFramebuffer2(fd, width: width, height: height, format: LibDRM.FourCC.argb8888,
                                              handle: info.handle, pitch: info.pitch, offset: 0)
        case .content: nil
        }
        switch added {
        case .success(let id): framebuffer = id
        case .failure(let error):
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: .addFramebuffer, cause: error)
        case nil: break
        }
        let mapping: UnsafeMutableRawPointer
        switch LibDRM.map(fd, handle: info.handle, size: info.size) {
        case .success(let address): mapping = address
        case .failure(let failure):
            if framebuffer != 0 { LibDRM.removeFramebuffer(fd, framebuffer) }
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: failure.step, cause: failure.cause)
        }
        let format: PixelFormat = use == .overlay ? .argb8888 : .xrgb8888
        guard let pixels = PixelBuffer(borrowing: mapping, width: width, height: height, stride: info.pitch, format: format) else {
            LibDRM.unmap(mapping, size: info.size)
            if framebuffer != 0 { LibDRM.removeFramebuffer(fd, framebuffer) }
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: .mmap, cause: LibDRM.failure("mmap", fd, errno: EINVAL))
        }
        switch use {
        case .frame: pixels.fill(0xFF00_0000)
        case .overlay: pixels.fill(0)
        case .content: break
        }
        self.card = card
        self.handle = info.handle
        self.framebuffer = framebuffer
        self.pitch = info.pitch
        self.mapping = mapping
        self.byteCount = info.size
        self.pixels = pixels
    }

    /// Drops the process's mapping (the buffer stays in the card's memory): content is written
    /// once and then only scanned out, so its pages need not count against the daemon.
    func unmap() {
        pixels = nil
        if let mapping { LibDRM.unmap(mapping, size: byteCount) }
        mapping = nil
    }

    deinit {
        unmap()
        if framebuffer != 0 { LibDRM.removeFramebuffer(card.fd, framebuffer) }
        LibDRM.destroyDumb(card.fd, handle)
    }
}

/// The content copied once into the card's memory, so the primary plane can scan it out.
final class ContentScanout {
    /// The content it copies (compared by identity).
    weak var source: PixelBuffer?
    let buffer: DumbBuffer
    /// The framebuffer over the whole buffer, which frames pan by the plane's source rectangle
    /// (`ScanOutPan.source`); 0 until made, and for a buffer panned through views.
    private(set) var framebuffer: UInt32 = 0
    /// How frames reach a corner of it: decided by the first test commit (`DRMOutput`).
    var pan: ScanOutPan?
    /// The buffer's size in pixels.
    var size: PixelSize { PixelSize(width: width, height: height) }
    private let width: Int
    private let height: Int

    /// Copies `content` into a new dumb buffer of its size, then unmaps it.
    init(card: DRMCard, content: PixelBuffer) throws {
        let buffer = try DumbBuffer(card: card, width: content.width, height: content.height, use: .content)
        buffer.pixels?.copy(from: content)
        buffer.unmap()
        self.source = content
        self.buffer = buffer
        width = content.width
        height = content.height
    }

    /// A dumb buffer kept mapped, drawn into directly: its own pixels are the source.
    init(card: DRMCard, drawable size: PixelSize) throws {
        let buffer = try DumbBuffer(card: card, width: size.width, height: size.height, use: .content)
        self.source = buffer.pixels
        self.buffer = buffer
        width = size.width
        height = size.height
    }

    /// Adds the framebuffer over the whole buffer, once; `false` when the driver refuses it
    /// (larger than its framebuffers may be) or the buffer is past what 16.16 coordinates hold.
    func makeFramebuffer() -> Bool {
        if framebuffer != 0 { return true }
        guard width <= 0xFFFF, height <= 0xFFFF,
              case .success(let id) = LibDRM.addFramebuffer2(buffer.card.fd, width: width, height: height,
                                                             format: LibDRM.FourCC.xrgb8888, handle: buffer.handle,
                                                             pitch: buffer.pitch, offset: 0) else { return false }
        framebuffer = id
        return true
    }

    /// Removes that framebuffer (the buffer is panned through views from now on); only while no
    /// frame shows it.
    func removeFramebuffer() {
        guard framebuffer != 0 else { return }
        LibDRM.removeFramebuffer(buffer.card.fd, framebuffer)
        framebuffer = 0
    }

    deinit { removeFramebuffer() }
}

/// A panel-sized framebuffer viewing the content from one corner: the content's buffer at a
/// byte offset, with its pitch. Removed when the last frame showing it lets go.
final class ContentViewFramebuffer {
    let content: ContentScanout
    let id: UInt32
    let x: Int
    let y: Int

    init(content: ContentScanout, x: Int, y: Int, size: PixelSize) throws {
        let card = content.buffer.card
        switch LibDRM.addFramebuffer2(card.fd, width: size.width, height: size.height, format: LibDRM.FourCC.xrgb8888,
                                      handle: content.buffer.handle, pitch: content.buffer.pitch,
                                      offset: y * content.buffer.pitch + x * 4) {
        case .success(let id): self.id = id
        case .failure(let error): throw DRMError.call(card: card.path, step: .addFramebuffer, cause: error)
        }
        self.content = content
        self.x = x
        self.y = y
    }

    deinit { LibDRM.removeFramebuffer(content.buffer.card.fd, id) }
}
