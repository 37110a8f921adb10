import FlickCore

/// An output without a display: buffers in memory, a virtual vblank, PNG captures on request.
///
/// It models a display controller with planes, as DRM has them: a primary plane showing either a
/// composed buffer or the content itself from a whole-pixel corner, and `overlayPlanes` overlays
/// (premultiplied ARGB) blended above it (`FrameLayers`). Composed buffers are allocated on first
/// use, so a session that only scrolls at zoom 1 holds no frame buffer at all; the screen is put
/// together from the layers only when someone looks at it (tests, captures, snapshots).
///
/// Paced like real hardware so that the render loop runs as it does on DRM: a frame committed at
/// time *t* is presented at the first vblank at or after *t* (vblanks fall on whole multiples of
/// the refresh period since `Instant.zero`), and never on the vblank that presented the previous
/// frame, since a panel shows one frame per refresh. That time is `nextDeadline`; the loop's
/// `dispatch(now:)` at or after it reports `.presented(at:)`.
public final class HeadlessOutput: Output {
    /// When frames are written out as PNG files.
    public enum Capture: Hashable, Sendable {
        /// Never (tests read the pixels directly).
        case never
        /// Every presented frame, as `frame-NNNNNN.png` in the folder.
        case everyFrame(directory: String)
        /// Only the frame presented after each `requestCapture()`.
        case onRequest(directory: String)
    }

    /// The physical size of the virtual panel.
    public let size: PixelSize
    /// The virtual refresh period.
    public let refreshPeriod: Duration
    /// The millimetres the virtual panel claims, so a test or a replay can stand for a real
    /// panel's density; nil: unknown, as most backends that cannot tell.
    public let physicalSize: Size?
    /// The PNG capture policy.
    public var capture: Capture
    /// How many frames have been presented.
    public private(set) var presentedFrameCount = 0
    /// When the last frame was presented.
    public private(set) var lastPresentation: Instant?
    /// The PNG files written so far, oldest first.
    public private(set) var capturedFiles: [String] = []
    /// Whether the virtual panel's picture is on (`setActive`); a commit while it is off throws.
    public private(set) var isActive = true
    /// How many times the picture went off.
    public private(set) var deactivationCount = 0

    /// The overlay planes the virtual controller has.
    public let overlayPlaneCount: Int

    /// The two composed buffers, made when first drawn into.
    private var buffers: [PixelBuffer?] = [nil, nil]
    /// The composed buffer shown last; the other one is lent for drawing.
    private var front = 0
    private var shown = FrameLayers.composed
    private var pending: FrameLayers?
    private var pendingDeadline: Instant?
    private var captureRequested = false
    private var isClosed = false
    /// The screen put together from its layers, and the frame it shows.
    private var flattened: (buffer: PixelBuffer, frame: Int)?

    /// Creates a headless output.
    ///
    /// - Parameters:
    ///   - size: the panel size in pixels.
    ///   - refreshRate: the virtual refresh rate in Hz (positive).
    ///   - capture: when to write frames as PNG files.
    ///   - overlayPlanes: the overlay planes to model (0: composed frames only, as fbdev).
    ///   - physicalSize: the panel's millimetres, if it is to have any (positive and finite, or
    ///     it is taken as unknown).
    /// - Returns: `nil` when the size or rate is unusable.
    public init?(size: PixelSize, refreshRate: Double = 60, capture: Capture = .never, overlayPlanes: Int = 2,
                 physicalSize: Size? = nil) {
        // Up to a GHz: a faster rate would round its period to zero nanoseconds.
        guard refreshRate > 0, refreshRate <= 1e9, refreshRate.isFinite, size.width > 0, size.height > 0,
              size.width <= 1 << 16, size.height <= 1 << 16 else { return nil }
        self.size = size
        self.refreshPeriod = .seconds(double: 1 / refreshRate)
        self.capture = capture
        self.overlayPlaneCount = max(0, overlayPlanes)
        self.physicalSize = physicalSize.flatMap { mm in
            mm.width > 0 && mm.height > 0 && mm.width.isFinite && mm.height.isFinite ? mm : nil
        }
    }

    /// Whether a committed frame awaits its virtual vblank.
    public var isFlipPending: Bool { pendingDeadline != nil }

    /// The virtual vblank of the pending frame, if any.
    public var nextDeadline: Instant? { pendingDeadline }

    /// The frame on screen (the last presented one) as the panel shows it; readable by tests.
    /// A composed frame is its own buffer; a frame of layers is put together into a buffer of
    /// its own, once per presented frame. Stops the process if that buffer cannot be allocated.
    public var frontBuffer: PixelBuffer {
        guard let screen = screen() else { fatalError("headless output: cannot allocate a \(size) buffer") }
        return screen
    }

    /// The frame on screen (the output's own buffer: valid until the next presentation); `nil`
    /// once closed or when no memory is left for it.
    public func snapshot() -> PixelBuffer? { isClosed ? nil : screen() }

    /// Whether the frame on screen is the content itself, scanned out with no copy.
    public var isScanningOutContent: Bool {
        if case .content = shown.primary { return true }
        return false
    }

    /// The overlays on screen, bottom first.
    public var shownOverlays: [FrameLayers.Overlay] { shown.overlays }

    /// How many panel-sized composed buffers exist (0 until a frame had to be composed).
    public var composedBufferCount: Int { buffers.count { $0 != nil } }

    private func screen() -> PixelBuffer? {
        if shown.isComposedOnly { return try? composedBuffer(front) }
        if let flattened, flattened.frame == presentedFrameCount { return flattened.buffer }
        guard let target = flattened?.buffer ?? PixelBuffer(width: size.width, height: size.height) else { return nil }
        shown.flatten(composed: buffers[front], into: target)
        flattened = (target, presentedFrameCount)
        return target
    }

    private func composedBuffer(_ index: Int) throws -> PixelBuffer {
        if let buffer = buffers[index] { return buffer }
        guard let buffer = PixelBuffer(width: size.width, height: size.height) else {
            throw OutputError.allocationFailed(size)
        }
        buffers[index] = buffer
        return buffer
    }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        guard pendingDeadline == nil else { throw OutputError.flipPending }
        return try body(try composedBuffer(1 - front))
    }

    public func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer {
        guard overlayPlaneCount > 0 else { throw OutputError.unsupported }
        guard let pixels = PixelBuffer(width: size.width, height: size.height, format: .argb8888) else {
            throw OutputError.allocationFailed(size)
        }
        return LayerBuffer(pixels: pixels)
    }

    /// Memory is the virtual controller's memory: nothing to prepare, any opaque content is scanned
    /// out as is.
    public func prepareScanOut(_ content: PixelBuffer) -> Bool {
        content.format == .xrgb8888 && !isClosed
    }

    /// Plain memory, as any opaque content here.
    public func makeScanOutBuffer(_ size: PixelSize) -> PixelBuffer? {
        isClosed ? nil : PixelBuffer(width: size.width, height: size.height)
    }

    public func commit(_ layers: FrameLayers, now: Instant) throws {
        guard !isClosed else { throw OutputError.closed }
        guard pendingDeadline == nil else { throw OutputError.flipPending }
        guard isActive else { throw OutputError.inactive }
        guard layers.overlays.count <= overlayPlaneCount else { throw OutputError.unsupported }
        if case .content(let content, let x, let y) = layers.primary {
            guard content.format == .xrgb8888, x >= 0, y >= 0, x + size.width <= content.width,
                  y + size.height <= content.height else { throw OutputError.unsupported }
        }
        pending = layers
        // The first vblank at or after now, and after the last one: Instant + Duration saturates,
        // so a recording whose times lie near the end of Instant's range cannot trap here.
        let period = refreshPeriod.nanoseconds
        let (whole, remainder) = now.nanoseconds.quotientAndRemainder(dividingBy: period)
        var vblank = Instant(nanoseconds: whole * period)
        if remainder > 0 { vblank = vblank + refreshPeriod }
        if let last = lastPresentation, vblank <= last { vblank = last + refreshPeriod }
        pendingDeadline = vblank
    }

    /// Turns the virtual picture off or on, as DPMS would; a flip in flight is still presented.
    public func setActive(_ active: Bool) throws {
        guard !isClosed else { throw OutputError.closed }
        if isActive && !active { deactivationCount += 1 }
        isActive = active
    }

    /// Presents the pending frame if its vblank has come, writing a PNG if the policy says so.
    ///
    /// - Throws: `PNGWriteError` when a capture cannot be written (the frame is presented anyway).
    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard let deadline = pendingDeadline, now >= deadline, let frame = pending else { return [] }
        pendingDeadline = nil
        pending = nil
        if case .composed = frame.primary { front = 1 - front }
        shown = frame
        presentedFrameCount += 1
        lastPresentation = deadline
        switch capture {
        case .never: break
        case .everyFrame(let directory): try writeCapture(into: directory)
        case .onRequest(let directory):
            if captureRequested {
                captureRequested = false
                try writeCapture(into: directory)
            }
        }
        return [.presented(at: deadline)]
    }

    /// Asks for the next presented frame to be written (with `.onRequest` capture).
    public func requestCapture() { captureRequested = true }

    /// Writes the frame on screen as a PNG file, whatever the capture policy.
    ///
    /// - Throws: `PNGWriteError` naming `path`.
    public func writeFrontBuffer(toPNG path: String) throws {
        guard let screen = screen() else { throw OutputError.allocationFailed(size) }
        try PNGCodec.write(screen, to: path)
    }

    private func writeCapture(into directory: String) throws {
        let number = String(presentedFrameCount)
        let name = "frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".png"
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        guard let screen = screen() else { throw OutputError.allocationFailed(size) }
        try PNGCodec.write(screen, to: path)
        capturedFiles.append(path)
    }

    /// Drops the pending frame; later calls throw `OutputError.closed`.
    public func close() {
        isClosed = true
        pendingDeadline = nil
        pending = nil
    }
}
