import FlickCore
import FlickSystem
import Glibc

/// An output on a Linux framebuffer device (`/dev/fb0`), for boards without KMS.
///
/// Double-buffered by panning when the virtual area holds two screens, else drawn into memory and
/// copied on commit. fbdev has no asynchronous vblank event, so with `waitForVBlank` the commit
/// blocks in `FBIO_WAITFORVSYNC` (where the driver supports it) — the one place FlickDisplay
/// waits — and the presentation is reported at the next `dispatch(now:)`, due at once.
public final class FbdevOutput: Output {
    /// The device path.
    public let device: String
    /// The layout decided from the screen info.
    public let layout: FbdevLayout
    /// The visible size.
    public var size: PixelSize { layout.size }
    /// The driver's millimetres (`fb_var_screeninfo.width`/`height`), when it sets them.
    public var physicalSize: Size? { variable.physicalSize }
    /// Whether a commit awaits its `dispatch`.
    public var isFlipPending: Bool { presentedAt != nil }
    /// The frame on screen (the shadow holds it too when single-buffered), copied out of the
    /// mapping.
    public func snapshot() -> PixelBuffer? {
        guard !isClosed, let copy = PixelBuffer(width: size.width, height: size.height) else { return nil }
        copy.copy(from: shadow ?? screens[front])
        return copy
    }
    /// Due at once after a commit.
    public var nextDeadline: Instant? { presentedAt }

    private let fd: Int32
    private let mapping: UnsafeMutableRawPointer
    private var variable: FbVarScreenInfo
    private var screens: [PixelBuffer]
    private let shadow: PixelBuffer?
    private var front = 0
    private var presentedAt: Instant?
    private var waitForVBlank: Bool
    private var isClosed = false

    // linux/fb.h request numbers ('F' = 0x46).
    private static let getVariable: UInt = 0x4600
    private static let getFixed: UInt = 0x4602
    private static let panDisplay: UInt = 0x4606
    private static let waitForVSync: UInt = 0x4004_4620  // _IOW('F', 0x20, __u32)

    /// Opens and maps a framebuffer device.
    ///
    /// - Parameters:
    ///   - device: the device node.
    ///   - waitForVBlank: whether commits wait for vblank (`FBIO_WAITFORVSYNC`) to avoid tearing.
    /// - Throws: `FbdevError` naming the device.
    public init(device: String = "/dev/fb0", waitForVBlank: Bool = true) throws {
        let fd: Int32
        switch retryingResult("open", device, { open(device, O_RDWR | O_CLOEXEC) }) {
        case .success(let value): fd = value
        case .failure(let error): throw FbdevError.open(device: device, cause: error)
        }
        var fixed = FbFixScreenInfo()
        var variable = FbVarScreenInfo()
        let ok = fixed.bytes.withUnsafeMutableBytes { ioctl(fd, Self.getFixed, $0.baseAddress!) } == 0
            && variable.bytes.withUnsafeMutableBytes { ioctl(fd, Self.getVariable, $0.baseAddress!) } == 0
        guard ok else {
            let error = SystemError.current("ioctl", device)
            _ = Glibc.close(fd)
            throw FbdevError.ioctl(device: device, request: "FBIOGET_SCREENINFO", cause: error)
        }
        let layout: FbdevLayout
        do { layout = try FbdevLayout.plan(variable: variable, fixed: fixed, device: device) } catch {
            _ = Glibc.close(fd)
            throw error
        }
        let address = mmap(nil, layout.mappedLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else {
            let error = SystemError.current("mmap", device)
            _ = Glibc.close(fd)
            throw FbdevError.mmap(device: device, cause: error)
        }
        let screenBytes = layout.stride * layout.size.height
        self.screens = (0..<layout.bufferCount).compactMap {
            PixelBuffer(borrowing: address + $0 * screenBytes, width: layout.size.width, height: layout.size.height,
                        stride: layout.stride)
        }
        self.shadow = layout.bufferCount == 1 ? PixelBuffer(width: layout.size.width, height: layout.size.height) : nil
        self.fd = fd
        self.mapping = address
        self.device = device
        self.layout = layout
        self.variable = variable
        self.waitForVBlank = waitForVBlank
        self.front = layout.bufferCount == 2 && variable.yoffset >= UInt32(layout.size.height) ? 1 : 0
    }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        guard presentedAt == nil else { throw OutputError.flipPending }
        return try body(shadow ?? screens[1 - front])
    }

    /// Composed frames only: fbdev has no planes.
    public func commit(_ layers: FrameLayers, now: Instant) throws {
        guard layers.isComposedOnly else { throw OutputError.unsupported }
        guard !isClosed else { throw OutputError.closed }
        guard presentedAt == nil else { throw OutputError.flipPending }
        if waitForVBlank {
            var crtc: UInt32 = 0
            // Drivers without it answer ENOTTY: stop asking, accept tearing.
            if ioctl(fd, Self.waitForVSync, &crtc) != 0 && errno == ENOTTY { waitForVBlank = false }
        }
        if let shadow {
            screens[0].copy(from: shadow)
        } else {
            variable.yoffset = UInt32((1 - front) * layout.size.height)
            variable.xoffset = 0
            let result = variable.bytes.withUnsafeMutableBytes { ioctl(fd, Self.panDisplay, $0.baseAddress!) }
            guard result == 0 else { throw FbdevError.ioctl(device: device, request: "FBIOPAN_DISPLAY", cause: .current("ioctl", device)) }
            front = 1 - front
        }
        presentedAt = now
    }

    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard let time = presentedAt, now >= time else { return [] }
        presentedAt = nil
        return [.presented(at: time)]
    }

    /// Unmaps and closes the device. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        presentedAt = nil
        screens.removeAll()
        munmap(mapping, layout.mappedLength)
        _ = Glibc.close(fd)
    }

    deinit { close() }
}
