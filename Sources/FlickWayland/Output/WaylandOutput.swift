import CWayland
import CWaylandProtocols
import FlickCore
import FlickDisplay
import FlickSystem
import Glibc

/// A window on a Wayland compositor as an `Output`: frames composed into dma-buf buffers where
/// the compositor imports them, else shared-memory ones (`WaylandBufferSource`), each commit damaging only what changed (`FrameDamage`), paced by the
/// compositor's frame callbacks and `wp_presentation` feedback (`FramePacing`), which give the
/// presenter the presentation times and refresh period DRM's flip events give it.
///
/// Idle, nothing is committed and nothing is timed: the process sleeps on the socket. A window
/// the compositor does not show gets no frame callback, so its frame stays in flight and nothing
/// wakes (`flipsCanWaitIndefinitely`). A new size or scale from the compositor is adopted
/// through the daemon (`sizeChanged`, then `adoptConfiguredSize()` and a re-layout, the path a
/// new monitor takes). A broken connection is kept (`failure`, `lost`): the descriptor is no
/// longer watched, and the daemon ends with the error.
public final class WaylandOutput: Output {
    /// The connection, shared with the seat (the input).
    public let connection: WaylandConnection
    /// The buffer's pixels: the window's size times its scale.
    public private(set) var size: PixelSize
    /// From the presentation feedback, else the monitor's mode, else 60 Hz.
    public private(set) var refreshPeriod: Duration
    /// Whether the compositor gives presentation times (`wp_presentation`); without it a frame
    /// is taken as shown when its frame callback is read.
    public let hasPresentationTimes: Bool
    /// The frames' memory for the display line: `dmabuf buffers (udmabuf, LINEAR)` or
    /// `shm buffers: WHY`.
    public var buffersDescription: String { source.description }
    /// Whether frames go to the compositor as dma-bufs (it imports them: no copy).
    public var usesDmabuf: Bool { if case .dmabuf = source.kind { true } else { false } }
    /// Called (inside `dispatch(now:)`) when the compositor asks for another size or scale, or
    /// to close the window: the daemon then calls `adoptConfiguredSize()` and lays the content
    /// out again, outside the presenter's call.
    public var sizeChanged: (() -> Void)?
    /// Called once when the connection breaks.
    public var lost: ((WaylandError) -> Void)?
    /// Why the connection broke, once it has.
    public private(set) var failure: WaylandError?

    /// The window (its monitors give `physicalSize` and the refresh before presentation).
    let window: WaylandWindow
    private let compositor: OpaquePointer
    private let shm: OpaquePointer
    private let source: WaylandBufferSource
    private let presentation: OpaquePointer?
    private let presentationClock = PresentationClock.ID()
    private var buffers: (any WaylandBufferSet)?
    /// The buffer lent for drawing, and the one committed last (the next frame's damage is
    /// what differs from it).
    private var lent: Int?
    private var lastCommitted: Int?
    private var pacing = FramePacing()
    private var completed: [FramePacing.Shown] = []
    private var frameCallback: OpaquePointer?
    private var feedback: OpaquePointer?
    private var isClosed = false

    private let presentationListener = WaylandListener(wp_presentation_listener(clock_id: { data, _, clock in
        waylandOwner(data, as: PresentationClock.ID.self)?.clock = clockid_t(clock)
    }))
    private let callbackListener = WaylandListener(wl_callback_listener(done: { data, callback, _ in
        waylandOwner(data, as: WaylandOutput.self)?.frameDone(callback)
    }))
    private let feedbackListener = WaylandListener(wp_presentation_feedback_listener(
        sync_output: { _, _, _ in },
        presented: { data, feedback, secondsHigh, secondsLow, nanoseconds, refresh, _, _, _ in
            let seconds = Int64(UInt64(secondsHigh) << 32 | UInt64(secondsLow))
            waylandOwner(data, as: WaylandOutput.self)?.presented(feedback, seconds: seconds, nanoseconds: Int64(nanoseconds), refresh: refresh)
        },
        discarded: { data, feedback in waylandOwner(data, as: WaylandOutput.self)?.discarded(feedback) }
    ))

    /// Opens a window on the compositor.
    /// - Parameters:
    ///   - connection: the connection (a new one to `WAYLAND_DISPLAY` by default).
    ///   - requested: the window's size in surface pixels; nil: fullscreen.
    ///   - buffers: dma-bufs where the compositor takes them (`auto`), or shared memory.
    /// - Throws: `WaylandError`: no `wl_compositor`, `xdg_wm_base` or `wl_shm`
    ///   (`WaylandRequirements.output`), or a broken connection.
    public init(connection: WaylandConnection, requested: PixelSize? = nil, buffers preference: WaylandBufferPreference = .auto) throws(WaylandError) {
        if let unmet = WaylandRequirements.output.unmet(in: connection.globals, socket: connection.socket) { throw unmet }
        self.connection = connection
        compositor = try connection.bind(flickd_wl_compositor_interface(), version: 4).proxy
        shm = try connection.bind(flickd_wl_shm_interface(), version: 1).proxy
        presentation = connection.global("wp_presentation") == nil ? nil
            : try connection.bind(flickd_wp_presentation_interface(), version: 1).proxy
        // The clock comes right after the bind, read by the window's round trips: events for a
        // proxy without a listener are dropped, so it has one at once.
        if let presentation {
            wp_presentation_add_listener(presentation, presentationListener.pointer, Unmanaged.passUnretained(presentationClock).toOpaque())
        }
        hasPresentationTimes = presentation != nil
        window = try WaylandWindow(connection: connection, compositor: compositor, requested: requested)
        size = window.bufferSize
        source = try WaylandBufferSource(connection: connection, shm: shm, preference: preference, size: window.bufferSize)
        refreshPeriod = .nanoseconds(16_666_667)
        refreshPeriod = monitorRefresh ?? refreshPeriod
        window.changed = { [unowned self] in self.sizeChanged?() }
    }

    deinit { close() }

    /// The `wl_surface`, for the seat: touches and the pointer on it are flickd's.
    public var surface: OpaquePointer { window.surface }
    /// The window's size in surface-local pixels (input coordinates) and its buffer scale.
    public var surfaceSize: PixelSize { window.logical ?? WindowSize.fallback }
    /// The buffer scale.
    public var scale: Int { window.scale }
    /// Whether the window is a fullscreen one (no size was asked for).
    public var isFullscreen: Bool { window.requested == nil }
    /// Whether the compositor asked the window to close.
    public var closeRequested: Bool { window.closeRequested }
    /// Whether the compositor asks for a size or scale not yet adopted.
    public var wantsNewSize: Bool { window.wantsAdoption }

    public var isFlipPending: Bool { pacing.isInFlight }
    public var pollDescriptor: Descriptor? { isClosed || failure != nil ? nil : connection.descriptor }
    /// Nothing timed, except requests the compositor did not take in (a full socket): retried
    /// after a refresh period.
    public var nextDeadline: Instant? {
        connection.isFlushPending && failure == nil ? Instant.monotonicNow() + refreshPeriod : nil
    }
    /// A compositor shows a window's frame only when the window is visible: a frame callback may
    /// never come (minimised, another workspace), and that is no lost flip.
    public var flipsCanWaitIndefinitely: Bool { true }

    /// Takes the size and scale the compositor asked for: new buffers from the next frame, and
    /// the frame in flight forgotten (its events are ignored), as `FramePresenter.attach` forgets
    /// it. The caller lays the content out for `size` then (`PipelineBuilder.attach`).
    /// - Returns: whether `size` changed.
    @discardableResult
    public func adoptConfiguredSize() -> Bool {
        window.adopt()
        forgetFrame()
        let old = size
        size = window.bufferSize
        refreshPeriod = monitorRefresh ?? refreshPeriod
        if size != old {
            buffers = nil
            source.drop()
            lastCommitted = nil
        }
        return size != old
    }

    public func snapshot() -> PixelBuffer? {
        guard !isClosed, let buffers, let index = lastCommitted, let copy = PixelBuffer(width: size.width, height: size.height) else { return nil }
        copy.copy(from: buffers.pixels(index))
        return copy
    }

    public func withBackBuffer<R>(_ body: (PixelBuffer) throws -> R) throws -> R {
        guard !isClosed else { throw OutputError.closed }
        if let failure { throw failure }
        guard !pacing.isInFlight else { throw OutputError.flipPending }
        // A dma-buf set still being created by the compositor (a new size): a refusal, retried.
        guard let set = try source.buffers(for: size) else { throw OutputError.flipPending }
        if set !== buffers {
            // Another set (a new size, or shared memory after dma-bufs were given up): nothing
            // in it was committed.
            buffers = set
            lastCommitted = nil
        }
        // All held by the compositor (it has not released two frames): a refusal, retried.
        guard let index = set.free(excluding: lastCommitted) else { throw OutputError.flipPending }
        lent = index
        return try body(set.pixels(index))
    }

    public func commit(_ layers: FrameLayers, now: Instant) throws {
        guard !isClosed else { throw OutputError.closed }
        if let failure { throw failure }
        guard !pacing.isInFlight else { throw OutputError.flipPending }
        guard layers.isComposedOnly else { throw OutputError.unsupported }
        guard let buffers, let index = lent, let buffer = buffers.buffer(index) else { throw OutputError.flipPending }
        let damage = FrameDamage.toCommit(buffers.pixels(index), since: lastCommitted.map { buffers.pixels($0) })
        wl_surface_attach(window.surface, buffer, 0, 0)
        for rect in damage {
            wl_surface_damage_buffer(window.surface, Int32(rect.x0), Int32(rect.y0), Int32(rect.x1 - rect.x0), Int32(rect.y1 - rect.y0))
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        frameCallback = wl_surface_frame(window.surface)
        if let frameCallback { wl_callback_add_listener(frameCallback, callbackListener.pointer, me) }
        if let presentation, let made = wp_presentation_feedback(presentation, window.surface) {
            feedback = made
            wp_presentation_feedback_add_listener(made, feedbackListener.pointer, me)
        }
        wl_surface_commit(window.surface)
        buffers.attach(index)
        lastCommitted = index
        lent = nil
        _ = pacing.handle(.committed(withFeedback: feedback != nil), now: now)
        do { try connection.flush() } catch { fail(error) }
    }

    public func dispatch(now: Instant) throws -> [OutputEvent] {
        guard !isClosed, failure == nil else { return [] }
        do { try connection.dispatch() } catch {
            fail(error)
            throw error
        }
        let shown = completed
        completed.removeAll()
        var events: [OutputEvent] = shown.map { frame in
            if let refresh = frame.refresh { refreshPeriod = refresh }
            return .presented(at: frame.at)
        }
        if let notice = source.notice {
            source.notice = nil
            events.append(.note(notice))
        }
        return events
    }

    /// Destroys the window and its buffers; the connection closes with its last owner.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        forgetFrame()
        buffers = nil
        source.close()
        if let presentation { wp_presentation_destroy(presentation) }
        wl_shm_destroy(shm)
        wl_compositor_destroy(compositor)
        try? connection.flush()
    }

    private func fail(_ error: WaylandError) {
        guard failure == nil else { return }
        failure = error
        lost?(error)
    }

    private func forgetFrame() {
        if let frameCallback { wl_callback_destroy(frameCallback) }
        if let feedback { wp_presentation_feedback_destroy(feedback) }
        frameCallback = nil
        feedback = nil
        _ = pacing.handle(.forgotten, now: .zero)
    }

    private func frameDone(_ callback: OpaquePointer?) {
        guard let callback, callback == frameCallback else { return }
        wl_callback_destroy(callback)
        frameCallback = nil
        record(.frameDone)
    }

    private func presented(_ proxy: OpaquePointer?, seconds: Int64, nanoseconds: Int64, refresh: UInt32) {
        guard let proxy, proxy == feedback else { return }
        wp_presentation_feedback_destroy(proxy)
        feedback = nil
        let at = PresentationClock.monotonic(seconds: seconds, nanoseconds: nanoseconds, clock: presentationClock.clock)
        record(.presented(at: at, refresh: refresh > 0 ? .nanoseconds(Int64(refresh)) : nil))
    }

    private func discarded(_ proxy: OpaquePointer?) {
        guard let proxy, proxy == feedback else { return }
        wp_presentation_feedback_destroy(proxy)
        feedback = nil
        record(.discarded)
    }

    private func record(_ event: FramePacing.Event) {
        if let shown = pacing.handle(event, now: Instant.monotonicNow()) { completed.append(shown) }
    }
}
