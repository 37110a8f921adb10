import FlickCore
import FoundationEssentials

/// One request line on the control socket, as JSON: `{"id": 7, "cmd": "set-offset", "x": 0,
/// "y": 480, "animated": true}`. Fields a command does not use are ignored; a missing field it
/// needs is an error naming it.
public struct ControlRequest: Codable, Hashable, Sendable {
    /// Echoed in the reply so a client can match them; optional.
    public var id: Int?
    /// The command's name (see `ControlCommand`).
    public var cmd: String
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?
    public var scale: Double?
    public var page: Int?
    public var animated: Bool?
    /// For `subscribe`: the event types wanted; all when absent.
    public var events: [String]?
    /// For `snapshot`: the PNG's file name in the daemon's snapshot folder (none when the client
    /// passes an open file with the request); for `load`: the content's path.
    public var path: String?
    /// For `touch-overlay` and the switches (`scroll-enabled`, …): on or off.
    public var enabled: Bool?
    /// For `provide`: the side of a tile in pixels.
    public var tileSize: Int?
    /// For `provide`: the slots in the pool passed with it.
    public var slots: Int?
    /// For `provide`: levels of detail above zoom 1 (0–3): the finest is 2^detail times the
    /// content's size.
    public var detail: Int?
    /// For `provide`: whether every pixel is opaque (the default).
    public var opaque: Bool?
    /// For `provide`: what shows where no tile is drawn yet, `#RRGGBB`.
    public var background: String?
    /// For `provide`: the provider's name (`content.path = "provider:NAME"` shows only it).
    public var name: String?
    /// For `tile`: the id of the `tileRequest` answered.
    public var request: Int?
    /// For `tile`: whether the tile was drawn (the default); `false` after a `tileCancel`.
    public var drawn: Bool?
    /// For `display`: `on`, `off` or `dim`.
    public var state: String?
    /// For `claim`: the finger whose touch the content keeps (the `contact` of its
    /// `contentTouchDown`).
    public var contact: Int?
    /// For `provide` from flickd-render only: the document's files and pages (docs/documents.md).
    public var document: ControlDocumentDeclaration?
    /// For `documentError` (flickd-render only): the file, why (`notADocument`, `encrypted`, …)
    /// and what a person reads; `page` is the page it is about, 1-based, if any.
    public var file: String?
    public var reason: String?
    public var message: String?
    /// For `links` (flickd-render only): the links on `page` (0-based), in its points.
    public var links: [ControlLink]?

    /// Creates a request.
    public init(id: Int? = nil, cmd: String, x: Double? = nil, y: Double? = nil, width: Double? = nil,
                height: Double? = nil, scale: Double? = nil, page: Int? = nil, animated: Bool? = nil,
                events: [String]? = nil, path: String? = nil, enabled: Bool? = nil, tileSize: Int? = nil,
                slots: Int? = nil, detail: Int? = nil, opaque: Bool? = nil, background: String? = nil, name: String? = nil,
                request: Int? = nil, drawn: Bool? = nil, state: String? = nil, contact: Int? = nil) {
        self.id = id
        self.cmd = cmd
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.scale = scale
        self.page = page
        self.animated = animated
        self.events = events
        self.path = path
        self.enabled = enabled
        self.tileSize = tileSize
        self.slots = slots
        self.detail = detail
        self.opaque = opaque
        self.background = background
        self.name = name
        self.request = request
        self.drawn = drawn
        self.state = state
        self.contact = contact
    }
}

/// What a client can ask the daemon to do.
public enum ControlCommand: Hashable, Sendable {
    /// The current offset, zoom, sizes, states, device and content.
    case status
    /// `setContentOffset(_:animated:)`.
    case setOffset(x: Double, y: Double, animated: Bool)
    /// `scrollRectToVisible(_:animated:)`, in scaled content coordinates.
    case scrollRectToVisible(x: Double, y: Double, width: Double, height: Double, animated: Bool)
    /// `setZoomScale(_:animated:)`.
    case setZoomScale(Double, animated: Bool)
    /// `zoom(to:animated:)`, in unscaled content coordinates.
    case zoomToRect(x: Double, y: Double, width: Double, height: Double, animated: Bool)
    /// Scrolls to page `n` (0-based) of a paged content.
    case showPage(Int, animated: Bool)
    /// `scrollToTop()`; without animation, a jump that still ends with `didScrollToTop`.
    case scrollToTop(animated: Bool)
    /// `stopScrollingAndZooming()`.
    case stop
    /// `flashScrollIndicators()`.
    case flashIndicators
    /// Streams events (all, or the named types) on this connection after the reply.
    case subscribe(events: Set<String>?)
    /// Writes the frame on screen as a PNG: into the file the client passed with the request
    /// (an fd, `SCM_RIGHTS`), else as `path` in the daemon's snapshot folder.
    case snapshot(path: String?)
    /// Re-reads the config file (like SIGHUP); a bad file is rejected and the old one stays.
    case reload
    /// Shows other content (an image, a PDF, an SVG, a Deep Zoom pyramid, a folder of pages)
    /// inside the directories the config allows (`content.load_directories`); `path` is
    /// absolute, as the daemon cannot know a client's working directory.
    case load(path: String)
    /// Shows or hides dots and trails under the fingers (`debug.touch_overlay`) until the next
    /// reload or restart.
    case touchOverlay(Bool)
    /// Turns one of UIScrollView's switches on or off until the next reload or restart (the
    /// config file's value then).
    case setSwitch(Switch, Bool)
    /// Makes this connection the content provider: the app draws the content on request into
    /// the pool passed with the request (docs/protocol.md, "Content providers").
    case provide(Provide)
    /// flickd-render cannot show its document (docs/documents.md); taken only on its own
    /// connection.
    case documentError(ControlDocumentFailure)
    /// flickd-render's links on a page (0-based) it has drawn, in that page's points; taken
    /// only on its own connection.
    case links(page: Int, [DocumentLink])
    /// The provider's answer to a `tileRequest`: drawn into its slot, or not.
    case tile(request: Int, drawn: Bool)
    /// The provider's content changed in this rectangle (unscaled content pixels).
    case invalidate(x: Double, y: Double, width: Double, height: Double)
    /// Lights, dims or darkens the panel now (`[power]`, docs/power.md); the idle timers and
    /// the schedule go on from there.
    case display(DisplayState)
    /// The content keeps the touch of this finger to its end (UIKit's
    /// `touchesShouldCancel(in:)` answering false): a drag no longer takes it back.
    case claim(contact: Int)

    /// What `display` asks of the panel.
    public enum DisplayState: String, CaseIterable, Hashable, Sendable {
        case on, off, dim
    }

    /// What a provider declares.
    public struct Provide: Hashable, Sendable {
        /// The content's size at zoom 1, in content pixels.
        public var width: Int, height: Int
        /// The side of a tile.
        public var tileSize: Int
        /// Slots in the pool.
        public var slots: Int
        /// Levels of detail above zoom 1: the finest level is 2^detail times the content.
        public var detail: Int
        /// Whether every pixel is opaque.
        public var opaque: Bool
        /// `0xRRGGBB` shown where no tile is drawn yet, if given.
        public var background: UInt32?
        /// The provider's name (`provider` when none is given).
        public var name: String
        /// The document flickd-render laid out (docs/documents.md); taken only on its own connection.
        public var document: ControlDocumentDeclaration?

        /// The sizes a provider may declare (those of a Deep Zoom grid).
        public static let sides = 1...(1 << 24)
        /// The tile sides a provider may declare.
        public static let tileSizes = 64...1024
        /// The slots a pool may have.
        public static let slotCounts = 1...64
        /// The levels of detail above zoom 1 a provider may declare (up to zoom 8 sharp).
        public static let details = 0...3
    }

    /// UIScrollView's switches a client can flip, each named as its command.
    public enum Switch: String, CaseIterable, Hashable, Sendable {
        /// `isScrollEnabled` (`scroll.scroll_enabled`): off, touches do not scroll and a moving
        /// finger is the content's.
        case scrollEnabled = "scroll-enabled"
        /// `scrollsToTop` (`scroll.scrolls_to_top`): off, the scroll-to-top strip is content.
        case scrollsToTop = "scrolls-to-top"
        /// `delaysContentTouches` (`gestures.delays_content_touches`): off, the content hears a
        /// touch-down at once.
        case delaysContentTouches = "delays-content-touches"
        /// `canCancelContentTouches` (`gestures.can_cancel_content_touches`): off, a touch the
        /// content has stays the content's when it moves.
        case canCancelContentTouches = "can-cancel-content-touches"
    }

    /// Every command name, for help texts and errors.
    public static let names = ["status", "set-offset", "scroll-rect-to-visible", "set-zoom", "zoom-to-rect", "page",
                               "scroll-to-top", "stop", "flash-indicators", "load", "subscribe", "snapshot", "reload",
                               "touch-overlay"] + Switch.allCases.map(\.rawValue) + ["provide", "tile", "invalidate", "display", "claim"]

    /// Interprets a request.
    /// - Throws: `ControlError` naming the unknown command or the missing or bad field.
    public init(_ r: ControlRequest) throws(ControlError) {
        func need(_ value: Double?, _ name: String) throws(ControlError) -> Double {
            guard let value else { throw .missingField(command: r.cmd, field: name) }
            guard value.isFinite else { throw .badField(command: r.cmd, field: name, expected: "a finite number") }
            return value
        }
        func size(_ value: Double?, _ name: String) throws(ControlError) -> Double {
            let v = try need(value, name)
            guard v >= 0 else { throw .badField(command: r.cmd, field: name, expected: "a number of at least 0") }
            return v
        }
        let animated = r.animated ?? true
        switch r.cmd {
        case "status": self = .status
        case "set-offset": self = .setOffset(x: try need(r.x, "x"), y: try need(r.y, "y"), animated: animated)
        case "scroll-rect-to-visible":
            self = .scrollRectToVisible(x: try need(r.x, "x"), y: try need(r.y, "y"), width: try size(r.width, "width"),
                                        height: try size(r.height, "height"), animated: animated)
        case "set-zoom":
            let s = try need(r.scale, "scale")
            guard s > 0 else { throw .badField(command: r.cmd, field: "scale", expected: "a number greater than 0") }
            self = .setZoomScale(s, animated: animated)
        case "zoom-to-rect":
            self = .zoomToRect(x: try need(r.x, "x"), y: try need(r.y, "y"), width: try size(r.width, "width"),
                               height: try size(r.height, "height"), animated: animated)
        case "page":
            guard let page = r.page else { throw .missingField(command: r.cmd, field: "page") }
            guard page >= 0 else { throw .badField(command: r.cmd, field: "page", expected: "a page number of at least 0") }
            self = .showPage(page, animated: animated)
        case "scroll-to-top": self = .scrollToTop(animated: animated)
        case "stop": self = .stop
        case "flash-indicators": self = .flashIndicators
        case "subscribe": self = .subscribe(events: r.events.map(Set.init))
        case "snapshot":
            self = .snapshot(path: r.path.flatMap { $0.isEmpty ? nil : $0 })
        case "reload": self = .reload
        case "load":
            guard let path = r.path, !path.isEmpty else { throw .missingField(command: r.cmd, field: "path") }
            self = .load(path: path)
        case "touch-overlay":
            guard let enabled = r.enabled else { throw .missingField(command: r.cmd, field: "enabled") }
            self = .touchOverlay(enabled)
        case "provide":
            self = .provide(try Self.provide(r))
        case "tile":
            guard let request = r.request else { throw .missingField(command: r.cmd, field: "request") }
            self = .tile(request: request, drawn: r.drawn ?? true)
        case "invalidate":
            self = .invalidate(x: try need(r.x, "x"), y: try need(r.y, "y"), width: try size(r.width, "width"),
                               height: try size(r.height, "height"))
        case "documentError":
            self = .documentError(try ControlDocumentFailure(r))
        case "links":
            guard let page = r.page else { throw .missingField(command: r.cmd, field: "page") }
            guard page >= 0 else { throw .badField(command: r.cmd, field: "page", expected: "a page number from 0") }
            guard let links = r.links else { throw .missingField(command: r.cmd, field: "links") }
            self = .links(page: page, try links.map { link throws(ControlError) in try link.link() })
        case "display":
            guard let text = r.state else { throw .missingField(command: r.cmd, field: "state") }
            guard let state = DisplayState(rawValue: text) else {
                throw .badField(command: r.cmd, field: "state", expected: "\"on\", \"off\" or \"dim\"")
            }
            self = .display(state)
        case "claim":
            guard let contact = r.contact else { throw .missingField(command: r.cmd, field: "contact") }
            self = .claim(contact: contact)
        default:
            guard let which = Switch(rawValue: r.cmd) else { throw .unknownCommand(r.cmd) }
            guard let enabled = r.enabled else { throw .missingField(command: r.cmd, field: "enabled") }
            self = .setSwitch(which, enabled)
        }
    }
}

extension ControlCommand {
    /// A `provide` request's declaration, each field checked against its range.
    static func provide(_ r: ControlRequest) throws(ControlError) -> Provide {
        func whole(_ value: Int?, _ name: String, _ range: ClosedRange<Int>, default fallback: Int? = nil) throws(ControlError) -> Int {
            guard let value = value ?? fallback else { throw .missingField(command: r.cmd, field: name) }
            guard range.contains(value) else {
                throw .badField(command: r.cmd, field: name, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func dimension(_ value: Double?, _ name: String) throws(ControlError) -> Int {
            guard let value else { throw .missingField(command: r.cmd, field: name) }
            guard value.isFinite, value.rounded() == value, value >= 1, value <= Double(Provide.sides.upperBound) else {
                throw .badField(command: r.cmd, field: name, expected: "a whole number of pixels from 1 to \(Provide.sides.upperBound)")
            }
            return Int(value)
        }
        var background: UInt32?
        if let text = r.background {
            let hex = text.utf8.dropFirst()
            guard text.hasPrefix("#"), hex.count == 6, let value = UInt32(String(decoding: hex, as: UTF8.self), radix: 16) else {
                throw .badField(command: r.cmd, field: "background", expected: "a colour as #RRGGBB")
            }
            background = value
        }
        let name = r.name ?? "provider"
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
        guard (1...64).contains(name.utf8.count), allowed else {
            throw .badField(command: r.cmd, field: "name", expected: "1 to 64 of A-Z a-z 0-9 . _ -")
        }
        let width = try dimension(r.width, "width"), height = try dimension(r.height, "height")
        let detail = try whole(r.detail, "detail", Provide.details, default: 0)
        // The finest level is 2^detail times the content, and it too must be a Deep Zoom grid.
        var finest = Provide.details.upperBound
        while finest > 0 && max(width, height) << finest > Provide.sides.upperBound { finest -= 1 }
        guard detail <= finest else {
            throw .badField(command: r.cmd, field: "detail",
                            expected: "at most \(finest) for \(width)x\(height) content (its finest level, 2^detail times its size, is at most \(Provide.sides.upperBound) px a side)")
        }
        return Provide(width: width, height: height,
                       tileSize: try whole(r.tileSize, "tileSize", Provide.tileSizes, default: 256),
                       slots: try whole(r.slots, "slots", Provide.slotCounts),
                       detail: detail, opaque: r.opaque ?? true,
                       background: background, name: name, document: r.document)
    }
}

/// Why a request was refused.
public enum ControlError: FlickError, Hashable, Sendable {
    /// The line is not a JSON object with a string `cmd`.
    case malformed(String)
    /// The line is longer than the server accepts.
    case lineTooLong(limit: Int)
    /// No such command.
    case unknownCommand(String)
    /// A field the command needs is absent.
    case missingField(command: String, field: String)
    /// A field has the wrong kind of value.
    case badField(command: String, field: String, expected: String)
    /// The daemon could not do it (e.g. a snapshot path it cannot write).
    case failed(String)

    public var context: ErrorContext {
        switch self {
        case let .malformed(why):
            ErrorContext(reason: "malformed request: \(why)", expected: "one JSON object per line with a \"cmd\" string")
        case let .lineTooLong(limit): ErrorContext(reason: "request line longer than \(limit) bytes")
        case let .unknownCommand(c):
            ErrorContext(key: "cmd", reason: "unknown command '\(c)'", expected: "one of \(ControlCommand.names.joined(separator: ", "))")
        case let .missingField(c, f): ErrorContext(source: "'\(c)'", key: f, reason: "missing")
        case let .badField(c, f, expected): ErrorContext(source: "'\(c)'", key: f, expected: expected)
        case let .failed(why): ErrorContext(reason: why)
        }
    }
}
