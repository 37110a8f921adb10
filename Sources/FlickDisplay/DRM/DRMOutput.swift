import CDRM
import Glibc
import FlickCore
import FlickSystem

/// A DRM/KMS output: a legacy modeset, then frames flipped with the atomic API where the driver
/// has it (kmscube, drm-howto), else with the legacy page flip.
///
/// Setup, one query per step: card (configured, or the first `/dev/dri/card*` with a connected
/// connector) → resources → connector → mode → CRTC → two dumb buffers → save the CRTC →
/// `drmModeSetCrtc` once → the atomic API and the CRTC's planes (`DRMPlanes`), if any.
///
/// With planes, a frame is `FrameLayers`: the primary plane shows a composed buffer or, at zoom
/// 1, the content's own scan-out copy (or a band of it) from the viewport's corner, no pixel
/// copied: one framebuffer over the whole buffer, the plane's `SRC_X`/`SRC_Y` moved each frame
/// (`ScanOutPan`; a framebuffer per corner where the driver refuses that one); two overlays
/// show the indicator strips; one non-blocking atomic commit with
/// `PAGE_FLIP_EVENT` queues it all. Without planes, frames are composed buffers flipped with
/// `drmModePageFlip(… PAGE_FLIP_EVENT …)`. Either way the loop watches `pollDescriptor` and calls
/// `dispatch(now:)`, which reads the flip event (`drmHandleEvent`) and reports
/// `.presented(at:)` with the kernel's vblank time.
///
/// A frame's buffers live as long as it is pending or on screen: the objects of the frame
/// replaced by a flip are released when the flip completes, never under the scan-out.
public final class DRMOutput: Output {
    /// What to open.
    public struct Configuration: Hashable, Sendable {
        /// The card, e.g. `/dev/dri/card1`; `nil` probes every card in order.
        public var cardPath: String?
        /// The connector name, e.g. `HDMI-A-1`; `nil` takes the first connected one.
        public var connectorName: String?
        /// The mode; `nil` takes the preferred (else the largest).
        public var mode: ModeRequest?
        /// How a panned frame reaches the view's corner: `.source` (one framebuffer per buffer,
        /// the plane's SRC moved; views where the driver refuses that framebuffer), or `.views`
        /// (a framebuffer per corner of the view). `FLICKD_DRM_PAN=views` in the environment
        /// chooses views (the e2e VM measures both ways on the same kernel with it).
        public var pan: ScanOutPan

        /// Creates a configuration.
        public init(cardPath: String? = nil, connectorName: String? = nil, mode: ModeRequest? = nil,
                    pan: ScanOutPan = Self.panFromEnvironment()) {
            self.cardPath = cardPath
            self.connectorName = connectorName
            self.mode = mode
            self.pan = pan
        }

        /// `.views` when `FLICKD_DRM_PAN` is `views`, else `.source`.
        public static func panFromEnvironment() -> ScanOutPan {
            guard let value = getenv("FLICKD_DRM_PAN") else { return .source }
            return String(cString: value) == "views" ? .views : .source
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
    /// The connector's millimetres, when it reports them.
    public var physicalSize: Size? { connector.physicalSize }
    /// Whether a flip is queued and its event not yet read.
    public private(set) var isFlipPending = false
    /// One period of the chosen mode (60 Hz when the mode does not say).
    public var refreshPeriod: Duration {
        let hz = mode.refreshRate.isFinite && mode.refreshRate > 0 ? mode.refreshRate : 60
        return .seconds(double: 1 / hz)
    }
    /// A copy of the frame on screen, its layers combined as the display controller does.
    public func snapshot() -> PixelBuffer? {
        guard !isClosed, let copy = PixelBuffer(width: size.width, height: size.height) else { return nil }
        shown.layers.flatten(composed: buffers[front].pixels, into: copy)
        return copy
    }

    /// Overlay planes for the indicator strips: two when the driver has them, else none (also
    /// after the driver refused a frame of layers).
    public var overlayPlaneCount: Int { planes == nil || planesRefused ? 0 : planes!.overlays.count }

    /// Whether frames go through the atomic API with the CRTC's planes.
    public var usesPlanes: Bool { overlayPlaneCount > 0 }
    /// DRM flips are reported through the card's fd, never by a timer.
    public var nextDeadline: Instant? { nil }
    /// The card's fd: readable when a flip event is waiting.
    public var pollDescriptor: Descriptor? { isClosed ? nil : card.descriptor }

    /// A frame queued or on screen, with the objects it needs kept alive.
    private struct Frame {
        var layers: FrameLayers
        var objects: [AnyObject]
        /// The overlay planes it turns on.
        var overlaysOn: Int
    }

    private let card: DRMCard
    private var buffers: [DumbBuffer]
    /// The composed buffer shown last; the other one is lent for drawing.
    private var front = 0
    private let saved: LibDRM.SavedCRTC?
    private var planes: DRMPlanes?
    private var planesRefused = false
    private var shown = Frame(layers: .composed, objects: [], overlaysOn: 0)
    private var pending: Frame?
    /// When the frame in flight was committed (the loop's clock: `CLOCK_MONOTONIC`, as the
    /// kernel's vblank times).
    private var pendingCommittedAt = Instant.zero
    /// The flip given up by `forgetPendingFlip`, with what was on screen before it, until a
    /// commit refused as busy or an event says whether it was lost.
    private var forgotten: (frame: Frame, shown: Frame, front: Int)?
    /// The CRTC's vblank counter when a frame was committed after a forgotten flip: the
    /// forgotten flip, if it was only late, completed at or before it (the kernel took the new
    /// commit, so it was done), and the new frame completes after it. The loop's clock cannot
    /// tell them apart: it is read when the loop wakes, and the late flip may complete between
    /// that reading and the commit.
    private var recommittedAtSequence: UInt64?
    /// The content's scan-out copy, made on first use.
    private var scanout: ContentScanout?
    /// Buffers drawn into directly (`makeScanOutBuffer`): the last two made (a band on screen
    /// and the one being drawn). An older one stays alive while a frame on screen shows it.
    private var drawable: [ContentScanout] = []
    /// Content the driver would not scan out (compared by identity), so it is not retried.
    private weak var refusedContent: PixelBuffer?
    /// How panned frames reach a corner when the driver allows it (`Configuration.pan`).
    private var pan: ScanOutPan
    /// Whether the journal was told that a buffer is panned through views after all.
    private var saidViews = false
    private var events: [OutputEvent] = []
    private var isClosed = false
    /// Whether the CRTC is active (`setActive`): no frame is committed while it is not.
    public private(set) var isActive = true

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
        if case .failure(let error) = LibDRM.setCRTC(card.fd, crtc, framebuffer: buffers[0].framebuffer,
                                                     connector: connector.id, mode: rawModes[modeIndex]) {
            throw error.isPermissionError ? DRMError.notMaster(card: card.path, step: .setCRTC, cause: error)
                                          : DRMError.call(card: card.path, step: .setCRTC, cause: error)
        }
        self.card = card
        self.connector = connector
        self.mode = mode
        self.crtc = crtc
        self.buffers = buffers
        self.pan = configuration.pan
        // Planes are an improvement, never a requirement: any failure keeps the legacy flips.
        if LibDRM.enableAtomic(card.fd), case .success(let all) = LibDRM.planes(card.fd),
           let index = resources.crtcs.firstIndex(of: crtc) {
            self.planes = DRMPlanes.choose(from: all, crtcIndex: index)
        } else {
            self.planes = nil
        }
    }

    /// Opens one card and finds its connector, or says why not.
    private static func probe(_ path: String, connectorName: String?) throws
        -> (DRMCard, ConnectorSummary, [drmModeModeInfo], LibDRM.Resources) {
        let (card, resources, connectors) = try read(path)
        guard let index = KMSSelection.chooseConnector(connectors.map(\.0), named: connectorName) else {
            throw DRMError.noConnectedConnector(card: path)
        }
        return (card, connectors[index].0, connectors[index].1, resources)
    }

    /// Opens a card and reads its resources and every connector that answers, with its modes
    /// as the kernel gives them; or says which step failed. Reading a connector probes it.
    private static func read(_ path: String) throws(DRMError)
        -> (DRMCard, LibDRM.Resources, [(ConnectorSummary, [drmModeModeInfo])]) {
        let card: DRMCard
        switch LibDRM.open(path) {
        case .success(let fd): card = DRMCard(path: path, fd: fd)
        case .failure(let error) where error.isPermissionError: throw .permissionDenied(card: path, cause: error)
        case .failure(let error): throw .call(card: path, step: .open, cause: error)
        }
        let resources: LibDRM.Resources
        switch LibDRM.resources(card.fd) {
        case .success(let value): resources = value
        case .failure(let error): throw .call(card: path, step: .getResources, cause: error)
        }
        var connectors: [(ConnectorSummary, [drmModeModeInfo])] = []
        for id in resources.connectors {
            if case .success(let connector) = LibDRM.connector(card.fd, id) { connectors.append(connector) }
        }
        return (card, resources, connectors)
    }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        // The back buffer is still on screen until the flip away from it completes.
        guard !isFlipPending else { throw OutputError.flipPending }
        return try body(buffers[1 - front].pixels!)
    }

    public func makeLayerBuffer(_ size: PixelSize) throws -> LayerBuffer {
        guard usesPlanes, !isClosed else { throw OutputError.unsupported }
        let buffer = try DumbBuffer(card: card, width: size.width, height: size.height, use: .overlay)
        return LayerBuffer(pixels: buffer.pixels!, backing: buffer)
    }

    /// Allocates a scan-out buffer, copies the content into it and test-commits a view of it, the
    /// first time the content is shown (a buffer of the card's own only tests); `false` when the
    /// copy or the test commit is refused (the content is then composed).
    public func prepareScanOut(_ content: PixelBuffer) -> Bool {
        guard usesPlanes, !isClosed, content.format == .xrgb8888, refusedContent !== content,
              content.width >= size.width, content.height >= size.height else { return false }
        if let scanout, scanout.source === content { return true }
        if let own = drawable.first(where: { $0.source === content }) {
            // Drawn into directly: nothing to copy, only whether the driver shows it.
            guard own.pan != nil || testScanOut(own) else {
                refusedContent = content
                return false
            }
            return true
        }
        guard let copy = try? ContentScanout(card: card, content: content), testScanOut(copy) else {
            refusedContent = content
            return false
        }
        scanout = copy
        return true
    }

    /// A mapped dumb buffer of the card's, shown through views at offsets like the content.
    public func makeScanOutBuffer(_ size: PixelSize) -> PixelBuffer? {
        guard usesPlanes, !isClosed, let own = try? ContentScanout(card: card, drawable: size) else { return nil }
        drawable.append(own)
        if drawable.count > 2 { drawable.removeFirst(drawable.count - 2) }
        return own.source
    }

    /// Whether the driver shows `scanout` on the primary plane, and how frames pan it
    /// (`scanout.pan`): a test commit of its one framebuffer from its corner, else (that
    /// framebuffer or that commit refused: said once) one of a panel-sized view, as before.
    private func testScanOut(_ scanout: ContentScanout) -> Bool {
        if pan == .source {
            if scanout.makeFramebuffer(), testPrimary(scanout.framebuffer) {
                scanout.pan = .source
                return true
            }
            scanout.removeFramebuffer()
            sayViews("a framebuffer of \(scanout.size) (the content's scan-out copy or band) was refused")
        }
        guard let view = try? ContentViewFramebuffer(content: scanout, x: 0, y: 0, size: size),
              testPrimary(view.id) else { return false }
        scanout.pan = .views
        return true
    }

    /// Whether a test commit of the primary plane showing `framebuffer` from its corner passes.
    private func testPrimary(_ framebuffer: UInt32) -> Bool {
        guard let planes, let request = LibDRM.AtomicRequest() else { return false }
        DRMPlanes.set(planes.primary, framebuffer: framebuffer, crtc: crtc, x: 0, y: 0, size: size, in: request)
        if case .failure = request.commit(card.fd, flipEvent: false, nonBlocking: false, testOnly: true, userData: nil) {
            return false
        }
        return true
    }

    /// Tells the journal once (through the next `dispatch`) that panned frames add a
    /// framebuffer each after all.
    private func sayViews(_ why: String) {
        guard !saidViews else { return }
        saidViews = true
        events.append(.note("display: \(why): panned frames add a framebuffer each, "
            + "instead of moving the plane's source"))
    }

    public func commit(_ layers: FrameLayers, now: Instant) throws {
        guard !isClosed else { throw OutputError.closed }
        guard !isFlipPending else { throw OutputError.flipPending }
        guard isActive else { throw OutputError.inactive }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard let planes else {
            guard layers.isComposedOnly else { throw OutputError.unsupported }
            if case .failure(let error) = LibDRM.pageFlip(card.fd, crtc, framebuffer: buffers[1 - front].framebuffer, userData: userData) {
                try takeBackForgottenFlip(after: error)
                throw error.isPermissionError ? DRMError.notMaster(card: card.path, step: .pageFlip, cause: error)
                                              : DRMError.call(card: card.path, step: .pageFlip, cause: error)
            }
            flipQueued(Frame(layers: layers, objects: [buffers[1 - front]], overlaysOn: 0), now: now)
            return
        }
        // After a refusal composed frames still go atomic: they turn the overlays off.
        guard layers.isComposedOnly || !planesRefused, layers.overlays.count <= planes.overlays.count,
              let request = LibDRM.AtomicRequest() else {
            throw OutputError.unsupported
        }
        var objects: [AnyObject] = []
        switch layers.primary {
        case .composed:
            objects.append(buffers[1 - front])
            DRMPlanes.set(planes.primary, framebuffer: buffers[1 - front].framebuffer, crtc: crtc, x: 0, y: 0, size: size, in: request)
        case .content(let content, let x, let y):
            let shownFrom = scanout.flatMap { $0.source === content ? $0 : nil }
                ?? drawable.first { $0.source === content }
            guard let shownFrom else { throw OutputError.unsupported }
            switch shownFrom.pan {
            case .source?:
                // The same framebuffer every frame: only the plane's source corner moves.
                objects.append(shownFrom)
                let step = ScanOutPan.source.step(x: x, y: y, shown: nil)
                DRMPlanes.set(planes.primary, framebuffer: shownFrom.framebuffer, crtc: crtc, x: 0, y: 0, size: size,
                              sourceX: step.sourceX, sourceY: step.sourceY, in: request)
            case .views?, nil:
                let view = try reusedView(shownFrom, x: x, y: y) ?? ContentViewFramebuffer(content: shownFrom, x: x, y: y, size: size)
                objects.append(view)
                DRMPlanes.set(planes.primary, framebuffer: view.id, crtc: crtc, x: 0, y: 0, size: size, in: request)
            }
        }
        for (index, plane) in planes.overlays.enumerated() {
            if index < layers.overlays.count {
                let overlay = layers.overlays[index]
                guard let buffer = overlay.buffer.backing as? DumbBuffer else { throw OutputError.unsupported }
                objects.append(buffer)
                DRMPlanes.set(plane, framebuffer: buffer.framebuffer, crtc: crtc, x: overlay.x, y: overlay.y,
                              size: overlay.buffer.pixels.size, in: request)
            } else if index < shown.overlaysOn {
                DRMPlanes.set(plane, framebuffer: 0, crtc: crtc, x: 0, y: 0, size: size, in: request)
            }
        }
        if case .failure(let error) = request.commit(card.fd, flipEvent: true, nonBlocking: true, userData: userData) {
            try takeBackForgottenFlip(after: error)
            if error.isPermissionError { throw DRMError.notMaster(card: card.path, step: .atomicCommit, cause: error) }
            // A driver that refuses a plane setup refuses it every time: compose from now on,
            // and if even a plain frame is refused with no overlay on, flip the legacy way. A
            // source corner it would not take (one that passed the test at the buffer's own
            // corner) is retried first through views, as before.
            if error.errno == EINVAL || error.errno == ERANGE || error.errno == ENOSPC {
                if case .content(let content, _, _) = layers.primary, let panned = objects.first as? ContentScanout,
                   panned.source === content, panned.pan == .source {
                    panned.pan = .views
                    pan = .views
                    sayViews("a pan to a corner of \(panned.size) was refused (\(error))")
                    try commit(layers, now: now)
                    return
                }
                if !layers.isComposedOnly { planesRefused = true } else if shown.overlaysOn == 0 { self.planes = nil }
            }
            throw DRMError.call(card: card.path, step: .atomicCommit, cause: error)
        }
        if Self.pans(to: layers.primary, from: shown.layers.primary) { LibDRM.Counter.count(.panned) }
        flipQueued(Frame(layers: layers, objects: objects, overlaysOn: layers.overlays.count), now: now)
    }

    /// Whether a frame showing `next` pans: a scan-out buffer from another corner than `shown`
    /// (or another buffer than it shows). What `DRMCallCounts` divides its calls by.
    static func pans(to next: FrameLayers.Primary, from shown: FrameLayers.Primary) -> Bool {
        guard case .content(let content, let x, let y) = next else { return false }
        guard case .content(let was, let wasX, let wasY) = shown else { return true }
        return was !== content || wasX != x || wasY != y
    }

    /// A commit the kernel took: `frame` is in flight. After a forgotten flip the vblank counter
    /// is read, so that flip's late event is not taken for this one's.
    private func flipQueued(_ frame: Frame, now: Instant) {
        pending = frame
        pendingCommittedAt = now
        isFlipPending = true
        recommittedAtSequence = forgotten == nil ? nil : LibDRM.vblankSequence(card.fd, crtc)
    }

    /// The view on screen when the corner has not moved (a frame where only the indicators fade).
    private func reusedView(_ content: ContentScanout, x: Int, y: Int) -> ContentViewFramebuffer? {
        guard let view = shown.objects.first as? ContentViewFramebuffer, view.x == x, view.y == y,
              view.content === content else { return nil }
        return view
    }

    /// The chosen connector as the kernel sees it now (asking probes it: a monitor plugged in or
    /// out since), or nil when it cannot be read (the card went away).
    public func currentConnector() -> ConnectorSummary? {
        guard !isClosed, case .success(let (summary, _)) = LibDRM.connector(card.fd, connector.id) else { return nil }
        return summary
    }

    /// Every connector of a card, connected or not, as the kernel sees them now: what hotplug
    /// and a pinned connector's name are checked against without taking the card over.
    ///
    /// - Throws: `DRMError` when the card does not open or has no resources (not a KMS card).
    public static func connectors(card path: String) throws(DRMError) -> [ConnectorSummary] {
        try read(path).2.map(\.0)
    }

    /// The cards under /dev/dri, in number order.
    public static func cardPaths() -> [String] { LibDRM.cardPaths() }

    /// Takes the frame in flight as shown when its flip event never came, so the next frame can
    /// be committed. If the kernel still holds that flip (it was late, not lost: a slow or
    /// emulated machine), the next commit is refused with EBUSY: the frame is then taken back as
    /// in flight and the commit throws `OutputError.flipPending`, so the presenter waits for the
    /// event after all instead of retrying into a busy CRTC.
    public func forgetPendingFlip() {
        guard isFlipPending, let frame = pending else { return }
        forgotten = (frame, shown, front)
        isFlipPending = false
        pending = nil
        if case .composed = frame.layers.primary { front = 1 - front }
        shown = frame
    }

    /// A commit refused with `error`: when it is EBUSY after a flip given up as lost, that flip
    /// is still coming: it is in flight again, and `OutputError.flipPending` is thrown.
    private func takeBackForgottenFlip(after error: SystemError) throws {
        guard error.errno == EBUSY, let lost = forgotten else { return }
        forgotten = nil
        (pending, shown, front) = (lost.frame, lost.shown, lost.front)
        isFlipPending = true
        throw OutputError.flipPending
    }

    /// Reads the card's events (never blocks: the fd is non-blocking).
    ///
    /// - Throws: `DRMError` for a failed read.
    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard !isClosed else { return [] }
        if case .failure(let error) = LibDRM.handleEvents(card.fd, pageFlip: { _, sequence, seconds, microseconds, userData in
            guard let userData else { return }
            Unmanaged<DRMOutput>.fromOpaque(userData).takeUnretainedValue()
                .flipCompleted(at: Instant(seconds: Int64(seconds), microseconds: Int64(microseconds)), sequence: sequence)
        }) {
            throw DRMError.call(card: card.path, step: .handleEvent, cause: error)
        }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The flip handler: the queued frame is now on screen; what only the old one used is freed.
    private func flipCompleted(at time: Instant, sequence: UInt32) {
        guard isFlipPending, let frame = pending else {
            forgotten = nil
            recommittedAtSequence = nil
            return
        }
        // After a flip given up as lost, an event from a vblank at or before the one counted
        // when the frame in flight was committed is that flip's, reported late: not the frame in
        // flight's. (Events carry the counter's low 32 bits: compared modulo 2^32.)
        if forgotten != nil, Self.isLateFlip(sequence: sequence, time: time, committedAtSequence: recommittedAtSequence,
                                             committedAt: pendingCommittedAt) {
            forgotten = nil
            recommittedAtSequence = nil
            return
        }
        forgotten = nil
        recommittedAtSequence = nil
        isFlipPending = false
        pending = nil
        if case .composed = frame.layers.primary { front = 1 - front }
        shown = frame
        events.append(.presented(at: time))
    }

    /// Whether a flip event is the forgotten flip's rather than the frame committed after it:
    /// by the vblank counter when it was read at that commit, else (a kernel that cannot say)
    /// by the loop's clock.
    static func isLateFlip(sequence: UInt32, time: Instant, committedAtSequence: UInt64?, committedAt: Instant) -> Bool {
        guard let committedAtSequence else { return time < committedAt }
        return Int32(bitPattern: sequence &- UInt32(truncatingIfNeeded: committedAtSequence)) <= 0
    }

    /// DPMS: with the atomic API the CRTC's `ACTIVE` (a blocking commit allowed to modeset),
    /// else the connector's `DPMS` property (on atomic drivers the kernel maps it onto
    /// `ACTIVE`). A flip still pending is waited for first (up to 100 ms: a refresh or two) and
    /// reported by the next `dispatch(now:)`, since a commit cannot replace a queued one.
    ///
    /// - Throws: `DRMError` naming the step, or `OutputError.unsupported` without the property.
    public func setActive(_ active: Bool) throws {
        guard !isClosed else { throw OutputError.closed }
        guard active != isActive else { return }
        if isFlipPending, LibDRM.waitReadable(card.fd, milliseconds: 100) {
            let presented = (try? dispatch(now: .zero)) ?? []
            events.append(contentsOf: presented)
        }
        let result: Result<Void, SystemError>
        if planes != nil, let request = LibDRM.AtomicRequest() {
            let (names, _) = LibDRM.objectProperties(card.fd, crtc.rawValue, type: UInt32(DRM_MODE_OBJECT_CRTC))
            guard let property = names["ACTIVE"] else { throw OutputError.unsupported }
            request.set(crtc.rawValue, property, active ? 1 : 0)
            result = request.commit(card.fd, flipEvent: false, nonBlocking: false, allowModeset: true, userData: nil)
        } else {
            let (names, _) = LibDRM.objectProperties(card.fd, connector.id.rawValue, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
            guard let property = names["DPMS"] else { throw OutputError.unsupported }
            let value = UInt64(active ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
            LibDRM.Counter.count(.other)
            result = LibDRM.status(drmModeConnectorSetProperty(card.fd, connector.id.rawValue, property, value),
                                   "drmModeConnectorSetProperty", card.fd)
        }
        if case .failure(let error) = result {
            throw error.isPermissionError ? DRMError.notMaster(card: card.path, step: .setActive, cause: error)
                                          : DRMError.call(card: card.path, step: .setActive, cause: error)
        }
        isActive = active
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
        if let planes, shown.overlaysOn > 0, let request = LibDRM.AtomicRequest() {
            // The console's mode comes back through the legacy call, which leaves overlays alone.
            for plane in planes.overlays.prefix(shown.overlaysOn) {
                DRMPlanes.set(plane, framebuffer: 0, crtc: crtc, x: 0, y: 0, size: size, in: request)
            }
            _ = request.commit(card.fd, flipEvent: false, nonBlocking: false, userData: nil)
        }
        if let saved {
            _ = LibDRM.setCRTC(card.fd, saved.id, framebuffer: saved.framebuffer, x: saved.x, y: saved.y,
                               connector: connector.id, mode: saved.mode)
        }
        shown = Frame(layers: .composed, objects: [], overlaysOn: 0)
        pending = nil
        scanout = nil
        buffers.removeAll()
    }

    deinit { close() }
}
