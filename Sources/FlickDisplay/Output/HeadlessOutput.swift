import FlickCore

/// An output without a display: buffers in memory, a virtual vblank, PNG captures on request.
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
    /// The PNG capture policy.
    public var capture: Capture
    /// How many frames have been presented.
    public private(set) var presentedFrameCount = 0
    /// When the last frame was presented.
    public private(set) var lastPresentation: Instant?
    /// The PNG files written so far, oldest first.
    public private(set) var capturedFiles: [String] = []

    private var buffers: [PixelBuffer]
    private var front = 0
    private var pendingDeadline: Instant?
    private var captureRequested = false
    private var isClosed = false

    /// Creates a headless output.
    ///
    /// - Parameters:
    ///   - size: the panel size in pixels.
    ///   - refreshRate: the virtual refresh rate in Hz (positive).
    ///   - capture: when to write frames as PNG files.
    /// - Returns: `nil` when the size or rate is unusable or the buffers cannot be allocated.
    public init?(size: PixelSize, refreshRate: Double = 60, capture: Capture = .never) {
        guard refreshRate > 0, refreshRate.isFinite,
              let a = PixelBuffer(width: size.width, height: size.height),
              let b = PixelBuffer(width: size.width, height: size.height) else { return nil }
        self.size = size
        self.refreshPeriod = .nanoseconds(Int64((1e9 / refreshRate).rounded()))
        self.capture = capture
        self.buffers = [a, b]
    }

    /// Whether a committed frame awaits its virtual vblank.
    public var isFlipPending: Bool { pendingDeadline != nil }

    /// The virtual vblank of the pending frame, if any.
    public var nextDeadline: Instant? { pendingDeadline }

    /// The frame on screen (the last presented one); readable by tests.
    public var frontBuffer: PixelBuffer { buffers[front] }
    /// The frame on screen.
    public var shownBuffer: PixelBuffer? { isClosed ? nil : buffers[front] }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        guard pendingDeadline == nil else { throw OutputError.flipPending }
        return try body(buffers[1 - front])
    }

    public func commit(now: Instant) throws {
        guard !isClosed else { throw OutputError.closed }
        guard pendingDeadline == nil else { throw OutputError.flipPending }
        let period = refreshPeriod.nanoseconds
        var vblank = (now.nanoseconds + period - 1) / period * period
        if let last = lastPresentation, vblank <= last.nanoseconds { vblank = last.nanoseconds + period }
        pendingDeadline = Instant(nanoseconds: vblank)
    }

    /// Presents the pending frame if its vblank has come, writing a PNG if the policy says so.
    ///
    /// - Throws: `PNGWriteError` when a capture cannot be written (the frame is presented anyway).
    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard let deadline = pendingDeadline, now >= deadline else { return [] }
        pendingDeadline = nil
        front = 1 - front
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
        try PNGCodec.write(frontBuffer, to: path)
    }

    private func writeCapture(into directory: String) throws {
        let number = String(presentedFrameCount)
        let name = "frame-" + String(repeating: "0", count: max(0, 6 - number.count)) + number + ".png"
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        try PNGCodec.write(frontBuffer, to: path)
        capturedFiles.append(path)
    }

    /// Drops the pending frame; later calls throw `OutputError.closed`.
    public func close() {
        isClosed = true
        pendingDeadline = nil
    }
}
