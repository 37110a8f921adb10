import CDRM
import FlickCore

/// A DRM card's file descriptor, closed exactly once when the last user lets go.
final class DRMCard {
    let path: String
    let fd: Int32

    init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { LibDRM.close(fd) }
}

/// One scan-out buffer: dumb buffer → framebuffer → mapping, released in reverse, once.
final class DumbBuffer {
    let card: DRMCard
    let handle: UInt32
    let framebuffer: UInt32
    let mapping: UnsafeMutableRawPointer
    let byteCount: Int
    /// The pixels, drawn with the kernel's pitch (not width × 4).
    let pixels: PixelBuffer

    /// Builds the buffer, undoing the finished steps in reverse if a later one fails.
    init(card: DRMCard, width: Int, height: Int) throws {
        let fd = card.fd
        let info: LibDRM.DumbBufferInfo
        switch LibDRM.createDumb(fd, width: width, height: height) {
        case .success(let value): info = value
        case .failure(let errno): throw DRMError.call(card: card.path, step: .createDumbBuffer, errno: errno)
        }
        let framebuffer: UInt32
        switch LibDRM.addFramebuffer(fd, width: width, height: height, pitch: info.pitch, handle: info.handle) {
        case .success(let id): framebuffer = id
        case .failure(let errno):
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: .addFramebuffer, errno: errno)
        }
        let mapping: UnsafeMutableRawPointer
        switch LibDRM.map(fd, handle: info.handle, size: info.size) {
        case .success(let address): mapping = address
        case .failure(let failure):
            LibDRM.removeFramebuffer(fd, framebuffer)
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: failure.step, errno: failure.errno)
        }
        guard let pixels = PixelBuffer(borrowing: mapping, width: width, height: height, stride: info.pitch) else {
            LibDRM.unmap(mapping, size: info.size)
            LibDRM.removeFramebuffer(fd, framebuffer)
            LibDRM.destroyDumb(fd, info.handle)
            throw DRMError.call(card: card.path, step: .mmap, errno: SystemErrno(rawValue: 22))
        }
        pixels.fill(0xFF00_0000)
        self.card = card
        self.handle = info.handle
        self.framebuffer = framebuffer
        self.mapping = mapping
        self.byteCount = info.size
        self.pixels = pixels
    }

    deinit {
        LibDRM.unmap(mapping, size: byteCount)
        LibDRM.removeFramebuffer(card.fd, framebuffer)
        LibDRM.destroyDumb(card.fd, handle)
    }
}

/// A DRM/KMS output using the legacy modeset and page-flip API (kmscube, drm-howto).
///
/// Setup, one query per step: card (configured, or the first `/dev/dri/card*` with a connected
/// connector) → resources → connector → mode → CRTC → two dumb buffers → save the CRTC →
/// `drmModeSetCrtc` once. Frames are then shown with `drmModePageFlip(… PAGE_FLIP_EVENT …)`;
/// the loop watches `pollDescriptor` and calls `dispatch(now:)`, which reads the flip event
/// (`drmHandleEvent`) and reports `.presented(at:)` with the kernel's vblank time.
public final class DRMOutput: Output {
    /// What to open.
    public struct Configuration: Hashable, Sendable {
        /// The card, e.g. `/dev/dri/card1`; `nil` probes every card in order.
        public var cardPath: String?
        /// The connector name, e.g. `HDMI-A-1`; `nil` takes the first connected one.
        public var connectorName: String?
        /// The mode; `nil` takes the preferred (else the largest).
        public var mode: ModeRequest?

        /// Creates a configuration.
        public init(cardPath: String? = nil, connectorName: String? = nil, mode: ModeRequest? = nil) {
            self.cardPath = cardPath
            self.connectorName = connectorName
            self.mode = mode
        }
    }

    /// The card in use.
    public var cardPath: String { card.path }
    /// The chosen connector.
    public let connector: ConnectorSummary
    /// The chosen mode.
    public let mode: DisplayMode
    /// The CRTC driving the connector.
    public let crtc: CRTCID
    /// The mode's size.
    public var size: PixelSize { PixelSize(width: mode.width, height: mode.height) }
    /// Whether a flip is queued and its event not yet read.
    public private(set) var isFlipPending = false
    /// One period of the chosen mode (60 Hz when the mode does not say).
    public var refreshPeriod: Duration {
        let hz = mode.refreshRate.isFinite && mode.refreshRate > 0 ? mode.refreshRate : 60
        return .nanoseconds(Int64((1e9 / hz).rounded()))
    }
    /// The buffer being scanned out.
    public var shownBuffer: PixelBuffer? { isClosed ? nil : buffers[front].pixels }
    /// DRM flips are reported through the card's fd, never by a timer.
    public var nextDeadline: Instant? { nil }
    /// The card's fd: readable when a flip event is waiting.
    public var pollDescriptor: Int32? { isClosed ? nil : card.fd }

    private let card: DRMCard
    private var buffers: [DumbBuffer]
    private var front = 0
    private let saved: LibDRM.SavedCRTC?
    private var events: [OutputEvent] = []
    private var isClosed = false

    /// Opens and modesets a card.
    ///
    /// - Throws: `DRMError` naming the card, the step and the errno.
    public init(_ configuration: Configuration = Configuration()) throws {
        let paths = configuration.cardPath.map { [$0] } ?? LibDRM.cardPaths()
        var tried: [String] = []
        var firstError: DRMError?
        var found: (DRMCard, ConnectorSummary, [drmModeModeInfo], LibDRM.Resources)?
        for path in paths {
            do {
                found = try Self.probe(path, connectorName: configuration.connectorName)
                break
            } catch let error as DRMError {
                tried.append(error.description)
                firstError = firstError ?? error
            }
        }
        guard let (card, connector, rawModes, resources) = found else {
            // A single configured card, or one refused card, deserves its own precise error.
            if paths.count == 1, let firstError { throw firstError }
            throw DRMError.noCard(tried: tried)
        }
        guard let modeIndex = KMSSelection.chooseMode(connector.modes, requested: configuration.mode) else {
            throw configuration.mode.map { DRMError.modeNotAvailable(card: card.path, requested: $0, available: connector.modes) }
                ?? DRMError.noConnectedConnector(card: card.path)
        }
        var encoders: [EncoderSummary] = []
        for id in Set(connector.encoders + (connector.currentEncoder.map { [$0] } ?? [])) {
            if case .success(let encoder) = LibDRM.encoder(card.fd, id) { encoders.append(encoder) }
        }
        guard let crtc = KMSSelection.chooseCRTC(for: connector, encoders: encoders, crtcs: resources.crtcs) else {
            throw DRMError.noCRTC(card: card.path, connector: connector.name)
        }
        let mode = connector.modes[modeIndex]
        let buffers = [try DumbBuffer(card: card, width: mode.width, height: mode.height),
                       try DumbBuffer(card: card, width: mode.width, height: mode.height)]
        // A CRTC we cannot read is not restored; losing the console's mode is not fatal.
        self.saved = try? LibDRM.crtc(card.fd, crtc).get()
        if case .failure(let errno) = LibDRM.setCRTC(card.fd, crtc, framebuffer: buffers[0].framebuffer,
                                                     connector: connector.id, mode: rawModes[modeIndex]) {
            throw errno.isPermissionError ? DRMError.notMaster(card: card.path, step: .setCRTC, errno: errno)
                                          : DRMError.call(card: card.path, step: .setCRTC, errno: errno)
        }
        self.card = card
        self.connector = connector
        self.mode = mode
        self.crtc = crtc
        self.buffers = buffers
    }

    /// Opens one card and finds its connector, or says why not.
    private static func probe(_ path: String, connectorName: String?) throws
        -> (DRMCard, ConnectorSummary, [drmModeModeInfo], LibDRM.Resources) {
        let card: DRMCard
        switch LibDRM.open(path) {
        case .success(let fd): card = DRMCard(path: path, fd: fd)
        case .failure(let errno) where errno.isPermissionError: throw DRMError.permissionDenied(card: path, errno: errno)
        case .failure(let errno): throw DRMError.call(card: path, step: .open, errno: errno)
        }
        let resources: LibDRM.Resources
        switch LibDRM.resources(card.fd) {
        case .success(let value): resources = value
        case .failure(let errno): throw DRMError.call(card: path, step: .getResources, errno: errno)
        }
        var connectors: [(ConnectorSummary, [drmModeModeInfo])] = []
        for id in resources.connectors {
            if case .success(let connector) = LibDRM.connector(card.fd, id) { connectors.append(connector) }
        }
        guard let index = KMSSelection.chooseConnector(connectors.map(\.0), named: connectorName) else {
            throw DRMError.noConnectedConnector(card: path)
        }
        return (card, connectors[index].0, connectors[index].1, resources)
    }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        // The back buffer is still on screen until the flip away from it completes.
        guard !isFlipPending else { throw OutputError.flipPending }
        return try body(buffers[1 - front].pixels)
    }

    public func commit(now: Instant) throws {
        guard !isClosed else { throw OutputError.closed }
        guard !isFlipPending else { throw OutputError.flipPending }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        if case .failure(let errno) = LibDRM.pageFlip(card.fd, crtc, framebuffer: buffers[1 - front].framebuffer, userData: userData) {
            throw errno.isPermissionError ? DRMError.notMaster(card: card.path, step: .pageFlip, errno: errno)
                                          : DRMError.call(card: card.path, step: .pageFlip, errno: errno)
        }
        isFlipPending = true
    }

    /// Reads the card's events (never blocks: the fd is non-blocking).
    ///
    /// - Throws: `DRMError` for a failed read.
    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard !isClosed else { return [] }
        if case .failure(let errno) = LibDRM.handleEvents(card.fd, pageFlip: { _, _, seconds, microseconds, userData in
            guard let userData else { return }
            Unmanaged<DRMOutput>.fromOpaque(userData).takeUnretainedValue()
                .flipCompleted(at: Instant(seconds: Int64(seconds), microseconds: Int64(microseconds)))
        }) {
            throw DRMError.call(card: card.path, step: .handleEvent, errno: errno)
        }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The flip handler: the queued buffer is now on screen, the old one free to draw.
    private func flipCompleted(at time: Instant) {
        guard isFlipPending else { return }
        isFlipPending = false
        front = 1 - front
        events.append(.presented(at: time))
    }

    /// Waits (up to a second) for a pending flip, restores the saved CRTC, then frees the buffers
    /// and the card. Idempotent.
    public func close() {
        guard !isClosed else { return }
        // A queued flip cannot be cancelled, and freeing its buffer under it is an error.
        var waited = 0
        while isFlipPending && waited < 10 {
            if LibDRM.waitReadable(card.fd, milliseconds: 100) { _ = try? dispatch(now: .zero) }
            waited += 1
        }
        isClosed = true
        if let saved {
            _ = LibDRM.setCRTC(card.fd, saved.id, framebuffer: saved.framebuffer, x: saved.x, y: saved.y,
                               connector: connector.id, mode: saved.mode)
        }
        buffers.removeAll()
    }

    deinit { close() }
}
