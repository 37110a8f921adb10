import FlickCore
import FoundationEssentials

/// One line the daemon sends: a reply to a request, or an event for a subscriber.
///
/// Replies carry `id`, `ok` and `error` or `status`; a command that moves the view also carries
/// `offset` and `zoomScale`: where the view goes, as the daemon applied the request.
///
/// Events use the same shape as `flickd replay --json`: `type`, `t` (seconds on the stream's
/// clock, never going back), the scroll view's state when it happened (`offset`, `zoomScale` and
/// the flags) and the event's own fields. One convention for all of them (docs/protocol.md):
/// `x`/`y` are always a point in unscaled content coordinates; offsets (`offset`,
/// `targetOffset`) are UIKit's `contentOffset` in scaled content pixels; `vx`/`vy` are an
/// offset's velocity in px/s, positive when the offset grows; `translation` is a finger's
/// travel in screen pixels.
public struct ControlMessage: Codable, Hashable, Sendable {
    // Reply fields.
    /// The request's id, echoed.
    public var id: Int?
    /// Whether the request succeeded (replies only).
    public var ok: Bool?
    /// Why it failed (replies only).
    public var error: String?
    /// `status`'s answer.
    public var status: ControlStatus?

    // Event fields.
    /// The event's name: a delegate message (`didScroll`, …), a content touch (`tap`, …) or a
    /// gesture (`gesture`).
    public var type: String?
    /// The time, seconds on the stream's clock: `CLOCK_MONOTONIC` live, the recording's clock in
    /// a replay; it never goes back.
    public var t: Double?
    /// A point in unscaled content coordinates (content touches; taps, long presses, double
    /// taps and stops).
    public var x: Double?
    public var y: Double?
    /// An offset's velocity, px/s, positive when the offset grows (`willEndDragging`, `flick`).
    public var vx: Double?
    public var vy: Double?
    /// The content offset when it happened, [x, y], scaled content pixels.
    public var offset: [Double]?
    /// The zoom scale when it happened.
    public var zoomScale: Double?
    public var willDecelerate: Bool?
    /// Where the content will rest, [x, y], an offset (`willEndDragging`, `flick`).
    public var targetOffset: [Double]?
    /// For `drag` gestures: the finger's travel, [dx, dy], screen pixels.
    public var translation: [Double]?
    /// For `flick` gestures: seconds until the content rests.
    public var duration: Double?
    /// For `bounce` gestures: how far past the edge the content went, px.
    public var distance: Double?
    /// For `page-change` gestures: the page in view before (0-based).
    public var fromPage: Int?
    /// For `pinch` gestures: the scale the pinch began at (`zoomScale` is where it ended).
    public var fromScale: Double?
    /// The scroll view's state properties when it happened (UIKit's `isTracking`, …): on every
    /// delegate message, content touch, gesture and `state` event.
    public var tracking: Bool?
    public var dragging: Bool?
    public var decelerating: Bool?
    public var zooming: Bool?
    public var zoomBouncing: Bool?
    public var scrolling: Bool?
    /// For `gesture` events: the gesture's name (`flick`, `tap`, …).
    public var gesture: String?
    /// For `bounce` gestures: the edge (`top`, `left`, `bottom`, `right`).
    public var edge: String?
    /// For `page-change` gestures: the page now in view (0-based); for `link`: the page the
    /// link is on.
    public var page: Int?
    /// For `link` events (a tap on a document's link): the page it goes to (0-based), and the
    /// content point brought to the view's top-left, [x, y].
    public var toPage: Int?
    public var destination: [Double]?
    /// For `link` events: the URI, or the file outside the document (and `toPage`, its page
    /// from 0, when said), that flickd does not open: the app's to act on.
    public var uri: String?
    public var file: String?
    /// For `link` events: why an internal link leads nowhere.
    public var missing: String?
    /// For `transition` lines (`flickd replay --json --trace`): the machine, the state before,
    /// the event and the state after.
    public var machine: String?
    public var from: String?
    public var on: String?
    public var to: String?
    /// For `diagnostic` lines: what made no sense.
    public var message: String?
    /// For `power` events: `on`, `dim` or `off`, and why (`idle`, `schedule`, `touch`,
    /// `command`, `start`).
    public var state: String?
    public var reason: String?
    /// For content touches (`contentTouchDown`, `contentTouchMove`, …, `tap`): the id of the
    /// finger, the same for every event of one touch.
    public var contact: Int?
    /// For `tileRequest` and `tileCancel`: the request's id (a provider's `tile` answers it).
    public var request: Int?
    /// For `tileRequest`: the tile to draw and where.
    public var tile: ControlTileRequest?
    /// For `provide`'s reply: the content's levels and the pool's layout.
    public var provider: ControlProviderStatus?
    /// For `reload`'s reply: the config file read (absent: none, the built-in defaults), and
    /// one line per key that changed, as the journal says them (`key: old → new`, and when it
    /// applies unless at once).
    public var config: String?
    public var changes: [String]?

    /// Creates an empty message.
    public init() {}

    /// A success reply.
    public static func reply(id: Int?, status: ControlStatus? = nil) -> ControlMessage {
        var m = ControlMessage()
        m.id = id
        m.ok = true
        m.status = status
        return m
    }

    /// The success reply of a command that moves the view: `offset` and `zoomScale` say where
    /// the view goes as the daemon applied the request (a zoom clamped to its limits, a
    /// rectangle's offset clamped into the bounds), at the end of the animation if it animates.
    public static func reply(id: Int?, applied offset: Point, zoomScale: Double) -> ControlMessage {
        var m = reply(id: id)
        m.offset = [offset.x, offset.y]
        m.zoomScale = zoomScale
        return m
    }

    /// A failure reply.
    public static func failure(id: Int?, _ error: ControlError) -> ControlMessage {
        var m = ControlMessage()
        m.id = id
        m.ok = false
        m.error = error.description
        return m
    }

    /// The message as one JSON line (with the newline), keys sorted for stable output.
    public func line() -> Data {
        // A provider's replies, requests and cancels are written by hand (never an event's line:
        // those carry neither).
        if ok == true || request != nil, let plain = ControlLineWriter.line(self) { return plain }
        var data = (try? Self.encoder.encode(self)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}

/// A pyramid being built as `status` reports it.
public struct ControlPyramidStatus: Codable, Hashable, Sendable {
    /// The image.
    public var image: String
    /// How far the build is, 0…100.
    public var percent: Int
    /// The size of the preview showing the image meanwhile ("1250x1250"), once it shows.
    public var preview: String?

    /// Creates a build status.
    public init(image: String, percent: Int, preview: String? = nil) {
        self.image = image
        self.percent = percent
        self.preview = preview
    }
}

/// Tiled content as `status` reports it.
public struct ControlTileStatus: Codable, Hashable, Sendable {
    /// Levels of detail the content has, the finest first being the full resolution.
    public var levels: Int
    /// The side of a tile, without overlap.
    public var tileSize: Int
    /// Bytes of decoded tiles in memory, and the cache's budget (`content.cache_mb`).
    public var cacheBytes: Int
    /// See `cacheBytes`: what `content.cache_mb` leaves for tiles once the band took its share.
    public var cacheBudgetBytes: Int
    /// Bytes of the scan-out band's two buffers (0 without a band), part of `content.cache_mb`.
    public var bandBytes: Int?
    /// Tiles in memory.
    public var cached: Int
    /// Tiles wanted or being decoded.
    public var pending: Int
    /// Tiles that could not be made (drawn from a coarser level).
    public var failed: Int
    /// Frames drawn, and of those, frames where some part came from a coarser level.
    public var frames: Int
    /// See `frames`.
    public var framesFromCoarser: Int
    /// Of the `frames`, those where some part of the view had nothing to draw (neither its tile
    /// nor a coarser one: the background showed), as before a new content's first tiles arrive.
    public var framesWithHoles: Int?

    /// Creates a tile status.
    public init(levels: Int, tileSize: Int, cacheBytes: Int, cacheBudgetBytes: Int, cached: Int, pending: Int,
                failed: Int, frames: Int, framesFromCoarser: Int, bandBytes: Int? = nil, framesWithHoles: Int? = nil) {
        self.bandBytes = bandBytes
        self.framesWithHoles = framesWithHoles
        self.levels = levels
        self.tileSize = tileSize
        self.cacheBytes = cacheBytes
        self.cacheBudgetBytes = cacheBudgetBytes
        self.cached = cached
        self.pending = pending
        self.failed = failed
        self.frames = frames
        self.framesFromCoarser = framesFromCoarser
    }
}

/// The calls into the kernel's DRM interface the daemon made since start, as `status` reports
/// them (what a panned frame costs the kernel: the e2e VM's figure).
public struct ControlDRMStatus: Codable, Hashable, Sendable {
    /// `drmModeAddFB`/`drmModeAddFB2` calls.
    public var framebuffersAdded: Int
    /// `drmModeRmFB` calls.
    public var framebuffersRemoved: Int
    /// Atomic commits (test-only ones too) and legacy page flips.
    public var commits: Int
    /// Every other ioctl-making call (dumb buffers, properties, the CRTC, …).
    public var other: Int
    /// Frames whose primary plane showed a scan-out buffer from a corner other than the frame
    /// before's: panned frames.
    public var pannedFrames: Int

    /// Creates the counts.
    public init(framebuffersAdded: Int, framebuffersRemoved: Int, commits: Int, other: Int, pannedFrames: Int) {
        self.framebuffersAdded = framebuffersAdded
        self.framebuffersRemoved = framebuffersRemoved
        self.commits = commits
        self.other = other
        self.pannedFrames = pannedFrames
    }
}

/// The daemon's state as `status` reports it.
public struct ControlStatus: Codable, Hashable, Sendable {
    /// The control protocol the daemon speaks (`controlProtocolVersion`; absent: 1).
    public var protocolVersion: Int?
    /// The daemon's version (`flickVersion`).
    public var version: String?
    public var offset: [Double]
    public var zoomScale: Double
    public var contentSize: [Double]
    public var boundsSize: [Double]
    public var tracking: Bool
    public var dragging: Bool
    public var decelerating: Bool
    public var zooming: Bool
    public var scrolling: Bool
    /// `isZoomBouncing` (absent before protocol 2).
    public var zoomBouncing: Bool?
    public var page: Int?
    /// How many pages the content has (absent for content without pages).
    public var pageCount: Int?
    public var device: String?
    public var content: String?
    public var display: String?
    /// Frames composed and queued since start: a monitor's proof that frames flow.
    public var frames: Int?
    /// The DRM calls made since start (absent without a DRM display).
    public var drm: ControlDRMStatus?
    /// Tiled content's levels, cache and pending tiles (absent for an image decoded whole).
    public var tiles: ControlTileStatus?
    /// The image whose pyramid is being built, to be shown when it is (absent otherwise).
    public var building: ControlPyramidStatus?
    /// The content provider, while one is connected.
    public var provider: ControlProviderStatus?
    /// The document flickd-render draws, while the content is one (docs/documents.md).
    public var document: ControlDocumentStatus?
    /// The panel's power: `on`, `dim` or `off` (absent without `[power]`).
    public var power: String?
    /// What display power said once at start (dimming skipped without a backlight).
    public var powerNote: String?
    /// Why the panel is off and until when, while the schedule keeps it off: `outside
    /// power.on_hours until 07:30` (local time); absent otherwise.
    public var powerReason: String?
    /// Why the content on disk is not what shows (a replaced file that is broken or was deleted,
    /// content that could not be shown at start); absent when it is.
    public var contentError: String?
    /// The event loop thread's scheduling as the kernel reports it (`SCHED_RR 1`, or
    /// `SCHED_OTHER, nice 0: SCHED_RR 1 refused, …`; `display.realtime_priority`).
    public var loop: String?

    /// Creates a status.
    public init(offset: [Double], zoomScale: Double, contentSize: [Double], boundsSize: [Double], tracking: Bool,
                dragging: Bool, decelerating: Bool, zooming: Bool, scrolling: Bool, zoomBouncing: Bool? = nil,
                page: Int? = nil, device: String? = nil, content: String? = nil, display: String? = nil,
                frames: Int? = nil, protocolVersion: Int? = controlProtocolVersion, version: String? = flickVersion) {
        self.protocolVersion = protocolVersion
        self.version = version
        self.zoomBouncing = zoomBouncing
        self.frames = frames
        self.offset = offset
        self.zoomScale = zoomScale
        self.contentSize = contentSize
        self.boundsSize = boundsSize
        self.tracking = tracking
        self.dragging = dragging
        self.decelerating = decelerating
        self.zooming = zooming
        self.scrolling = scrolling
        self.page = page
        self.device = device
        self.content = content
        self.display = display
    }
}

extension ControlRequest {
    /// Decodes one line.
    /// - Throws: `ControlError.malformed` with the decoder's reason.
    public static func decode(_ line: some Collection<UInt8>) throws(ControlError) -> ControlRequest {
        // The plain lines a provider floods the daemon with are read without JSONDecoder; the
        // rest, and every line refused, go through it (`ControlRequestScanner`).
        let quick = line.withContiguousStorageIfAvailable { bytes -> Result<ControlRequest, ControlError>? in
            if let request = ControlRequestScanner.scan(bytes) { return .success(request) }
            return ControlRequestScanner.isSurelyNotJSON(bytes) ? .failure(.malformed("not JSON")) : nil
        }
        if let quick = quick.flatMap({ $0 }) { return try quick.get() }
        return try decodeWithFoundation(line)
    }

    /// Decodes one line with Foundation's JSONDecoder: the reference `ControlRequestScanner`
    /// agrees with.
    /// - Throws: `ControlError.malformed` with the decoder's reason.
    public static func decodeWithFoundation(_ line: some Collection<UInt8>) throws(ControlError) -> ControlRequest {
        do {
            return try decoder.decode(ControlRequest.self, from: Data(line))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .malformed("missing \"\(key.stringValue)\"")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .malformed("wrong type at \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\"")
        } catch {
            throw .malformed("not JSON")
        }
    }

    /// One decoder for every line: it keeps no state between them.
    private static let decoder = JSONDecoder()

    /// The request as one JSON line (with the newline).
    public func line() -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        var data = (try? e.encode(self)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }
}

extension ControlMessage {
    /// A `frame` line of `flickd replay --json`: a frame reached the screen at `t` (its vblank,
    /// on the events' clock) showing the content at `offset` and `zoomScale` — while fingers
    /// move it, where they were resampled to for that time, which the delegate events (at the
    /// reports' times) do not say.
    public static func frame(at t: Double, offset: Point, zoomScale: Double) -> ControlMessage {
        var m = ControlMessage()
        m.type = "frame"
        m.t = t
        m.offset = [offset.x, offset.y]
        m.zoomScale = zoomScale
        return m
    }

    /// A `power` event: the panel went `state` for `reason` at `t`, with the view's state as
    /// every event carries it.
    public static func power(state: String, reason: String, at t: Double, view: ScrollState) -> ControlMessage {
        var m = ControlMessage()
        m.type = "power"
        m.t = t
        m.set(view)
        m.state = state
        m.reason = reason
        return m
    }

    /// The event line for one output of the gesture recogniser, with the scroll view's state
    /// when it happened (`view`, the state after its batch, for outputs without one: steps of
    /// the decoders and of the frame presenter).
    public static func event(_ output: GestureOutput, view: ScrollView) -> ControlMessage {
        var m = ControlMessage()
        m.t = output.time.seconds
        m.set(output.state ?? view.state)
        switch output.kind {
        case let .scroll(event):
            m.type = event.name
            switch event {
            case let .didEndDragging(willDecelerate): m.willDecelerate = willDecelerate
            case let .willEndDragging(velocity, target):
                m.vx = velocity.dx
                m.vy = velocity.dy
                m.targetOffset = [target.x, target.y]
            case let .didEndZooming(scale): m.zoomScale = scale
            default: break
            }
        case .state:
            m.type = "state"
        case let .content(touch):
            m.type = touch.name
            m.contact = output.contact?.rawValue
            if let p = touch.location {
                m.x = p.x
                m.y = p.y
            }
        case let .gesture(gesture):
            // A link's tap is an event of its own for apps (`subscribe` to `link`).
            if case .link = gesture { m.type = "link" } else { m.type = "gesture" }
            m.gesture = gesture.name
            switch gesture {
            case let .tap(p), let .longPress(p), let .doubleTap(p, _), let .stop(p):
                m.x = p.x
                m.y = p.y
            case let .flick(v, rest, duration):
                // The gesture keeps the applied velocity in the finger's direction; on the wire
                // it is the offset's, willEndDragging's: the content moves against the finger.
                m.vx = -v.dx
                m.vy = -v.dy
                m.targetOffset = [rest.x, rest.y]
                m.duration = duration
            case let .drag(translation):
                m.translation = [translation.dx, translation.dy]
            case let .pinch(from, to):
                m.fromScale = from
                m.zoomScale = to
            case let .bounce(edge, distance):
                m.edge = edge.rawValue
                m.distance = distance
            case let .pageChange(from, to):
                m.fromPage = from
                m.page = to
            case let .link(p, area):
                m.x = p.x
                m.y = p.y
                m.page = area.page
                m.destination = area.destination.map { [$0.x, $0.y] }
                switch area.target {
                case let .page(to, _, _): m.toPage = to
                case let .uri(uri): m.uri = uri
                case let .file(file, page):
                    m.file = file
                    m.toPage = page
                case let .missing(why): m.missing = why
                }
            case .cancelled, .scrollToTop:
                break
            }
        case let .transition(step):
            m.type = step.isInvalid ? "invalid-transition" : "transition"
            m.machine = step.machine.rawValue
            m.from = step.from
            m.on = step.event
            m.to = step.to
        case let .diagnostic(note):
            m.type = "diagnostic"
            m.message = note
        }
        return m
    }
}

extension ControlMessage {
    /// The scroll view's state on an event: offset, zoom and every flag.
    mutating func set(_ state: ScrollState) {
        offset = [state.contentOffset.x, state.contentOffset.y]
        zoomScale = state.zoomScale
        let f = state.flags
        tracking = f.contains(.tracking)
        dragging = f.contains(.dragging)
        decelerating = f.contains(.decelerating)
        zooming = f.contains(.zooming)
        zoomBouncing = f.contains(.zoomBouncing)
        scrolling = f.contains(.scrolling)
    }

    /// The state an event line carries, if it carries one (`offset`, `zoomScale` and the six
    /// flags): what a client reads back.
    public var scrollState: ScrollState? {
        guard let offset, offset.count == 2, let zoomScale, let tracking, let dragging, let decelerating, let zooming,
              let zoomBouncing, let scrolling else { return nil }
        var flags: ScrollFlags = []
        for (flag, on) in [(ScrollFlags.tracking, tracking), (.dragging, dragging), (.decelerating, decelerating),
                           (.zooming, zooming), (.zoomBouncing, zoomBouncing), (.scrolling, scrolling)] where on {
            flags.insert(flag)
        }
        return ScrollState(contentOffset: Point(x: offset[0], y: offset[1]), zoomScale: zoomScale, flags: flags)
    }
}
