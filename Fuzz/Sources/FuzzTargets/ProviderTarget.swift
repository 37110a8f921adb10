import CMemfd
import FlickControl
import FlickCore
import FlickDaemon
import FlickDisplay
import Glibc

/// A content provider's bytes (docs/protocol.md, "Content providers") against flickd's side of
/// the protocol: lines cut as `ControlServer` cuts them → `ControlRequest.decode`,
/// `ControlCommand.init`, and the accepted `provide`, `tile` and `invalidate` handed to the
/// daemon's own `ContentHost` (its provider session makes a real `TileProvider` and `TileStore`
/// over a real sealed memfd pool), drawn by real frames (`FrameComposer` on a small headless
/// display: the rig is the host's `ContentScreen`, and its `ProviderLink` to the app).
///
/// Each line is decoded. A line starting with a control byte (0x00–0x1F but tab and CR: never
/// JSON, so always refused as malformed) is also a step of the app or of the loop, chosen by
/// that byte (`Step`), its parameters in the bytes after it: a frame at a view the bytes place
/// (offset, zoom, a resting point to fetch ahead of), a want list around a rectangle at a level
/// (with keys outside the grid, zoomed, repeated), time passing and `expire(now:)`, arrivals
/// taken, invalidations applied, an answer to an outstanding request by its index (drawn into its
/// slot, or not), an answer to an id that is not outstanding, every request answered, a raw
/// invalidation (any Doubles, any Ints), the connection gone. `set-offset` and `set-zoom`
/// lines move the view and draw a frame too.
///
/// The app's pool is one per input, taken at the first accepted `provide` as the app declares it
/// when that is at most `maxPoolBytes` (else 4 slots of 64 px, so the declaration is refused as
/// the daemon refuses a pool of the wrong size), and passed again at every later `provide`. The
/// content's size is whatever `provide` accepts (up to 2²⁴ × 2²⁴ pixels, with its levels of
/// `detail`: the grid costs nothing,
/// tiles are made only when answered, and the cache is small). The display has no overlay planes,
/// so every frame is composed: the scan-out band (its worker thread, and the requests it makes
/// through `TileStore.want` and `renewStale`) is outside this target.
///
/// Checks, after every line: a model of the protocol (`Session`) kept from the messages flickd
/// sends and the answers it takes agrees with the provider: every request is for a tile of the
/// grid, in a slot no outstanding request holds, with the geometry docs/protocol.md gives; at
/// most `slots` are outstanding; no tile is asked twice while asked or while its arrival waits; a
/// cancel is for a request outstanding and not cancelled or given up; nothing is sent while
/// paused or after the connection went; an answer is taken exactly when the request is
/// outstanding; the counters, `outstandingCount`, `isOutstanding`, `pendingCount` and
/// `nextDeadline` are the model's; after a want, an answer or an expiry, a free slot means every
/// wanted tile is asked (no slot leaks). Each drawn tile arrives in the cache with the pixels the
/// app drew; each refusal is recorded as failed. The cache holds at most its budget plus one
/// frame's tiles plus what arrived since the frame; stale and failed keys are the grid's; once
/// invalidations are applied, a stale tile is in the cache or in what a band holds (the step
/// places a band's rectangle, or none); changes lie inside the content. A `provide` that
/// `ControlCommand` accepts makes a grid.
enum ProviderTarget {
    /// The largest pool the app makes as declared; larger declarations get a small pool, refused.
    static let maxPoolBytes = 1 << 20
    /// The tile cache's budget (the daemon's `content.cache_mb`, small).
    static let cacheBytes = 1 << 20
    /// How long a request may wait for its answer (`content.provider_timeout_ms`).
    static let timeout = Duration.seconds(1)
    /// The host's config: any provider's content, the cache and the time-out above.
    static let configuration: Configuration = {
        var c = Configuration()
        c.contentPath = "provider"
        c.cacheMegabytes = cacheBytes >> 20
        c.providerTimeout = timeout
        // No grace: a gone provider's content goes at the wake-up that ends its session, which
        // `disconnect()` checks (the grace's deadline is ContentHostTests').
        c.providerGraceSeconds = 0
        return c
    }()
    /// The display: small, what is checked is the bookkeeping of every frame, not its pixels.
    static let panel = PixelSize(width: 48, height: 32)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let rig = ProviderRig()
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            rig.line(line)
        }
        rig.end()
    }

    /// What a line starting with a control byte does: the case the byte modulo their number
    /// picks. The seeds write 0x14 + the case (0x14–0x1D, none of them JSON whitespace).
    enum Step: UInt8, CaseIterable {
        /// A frame; bytes: x, y (16 bits each, across the scrollable range), zoom (128 is 1, 16
        /// a doubling), flags (bit 0: whole-pixel offset, bit 1: a resting point, then its
        /// distance in views).
        case frame
        /// `TileProvider.want` with the tiles around a rectangle; bytes: level (down from the
        /// finest), x, y (16 bits each, across the level), columns, rows, extras (bit 0 a key
        /// repeated, 1 zoomed, 2 past the grid, 3 a negative row, 4 reversed, 5 an empty list).
        case want
        /// Time passes (byte × 8 ms), then `expire(now:)`.
        case expire
        /// `takeArrivals()` and `takeFailures()`.
        case arrivals
        /// `applyInvalidations(bandHolds:)` and `takeChanges()`; bytes: with bit 0 of the first,
        /// a band holds a rectangle (x, y, width, height: 16 bits each, across the content).
        case invalidations
        /// Answers the outstanding request at an index (byte), drawn unless bit 0 of the next.
        case answer
        /// Answers an id that may not be outstanding: 0, −1, the extremes, the last, the next, a number.
        case bogus
        /// Answers every outstanding request (drawn unless bit 0 of the byte), then takes the arrivals.
        case answerAll
        /// `invalidate` with any numbers: four raw Doubles, or four Ints from 16-bit values shifted.
        case rawInvalidate
        /// The provider's connection goes: its content goes with it.
        case disconnect
    }

    /// A provide line as flickctl-style JSON.
    static func provide(id: Int? = nil, width: String, height: String, tileSize: Int? = nil, slots: Int = 4,
                        extra: String = "") -> String {
        var fields = [#""cmd": "provide""#, #""width": \#(width)"#, #""height": \#(height)"#, #""slots": \#(slots)"#]
        if let id { fields.insert(#""id": \#(id)"#, at: 0) }
        if let tileSize { fields.append(#""tileSize": \#(tileSize)"#) }
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// An input being written: JSON lines and step lines.
    struct Script {
        var bytes: [UInt8] = []

        mutating func json(_ lines: String...) {
            for line in lines { bytes += Array(line.utf8) + [0x0A] }
        }

        /// A step line: its byte, then parameters (a newline in them would cut the line: made 0x0B).
        mutating func step(_ step: Step, _ parameters: [UInt8] = []) {
            bytes.append(0x14 + step.rawValue)
            bytes += parameters.map { $0 == 0x0A ? 0x0B : $0 }
            bytes.append(0x0A)
        }

        /// A frame at (x, y) in 1/256ths of the scrollable range, at a zoom byte, with flags.
        mutating func frame(_ x: UInt8, _ y: UInt8, zoom: UInt8 = 128, flags: UInt8 = 1) {
            step(.frame, [x, 0, y, 0, zoom, flags])
        }
    }

    static func tile(_ request: Int, drawn: Bool? = nil, id: Int? = nil) -> String {
        let idField = id.map { #""id": \#($0), "# } ?? ""
        let drawnField = drawn.map { #", "drawn": \#($0)"# } ?? ""
        return #"{\#(idField)"cmd": "tile", "request": \#(request)\#(drawnField)}"#
    }

    /// Sessions as the example providers hold them (provide, answers, invalidations, scrolling),
    /// with cancels, time-outs, late answers, a reconnection and hostile steps; each command's
    /// refusals; extreme numbers.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var out: [(name: String, bytes: [UInt8])] = []
        let small = provide(id: 1, width: "1000", height: "3000", tileSize: 64, slots: 4)

        // The exchange with JSON only: provide, a frame's requests answered by id, an invalidation.
        var json = Script()
        json.json(small, #"{"id": 2, "cmd": "set-offset", "x": 300, "y": 1000, "animated": false}"#)
        json.json(tile(1, id: 3), tile(2), tile(3, drawn: true), tile(4, drawn: false))
        json.json(#"{"id": 4, "cmd": "set-offset", "x": 300, "y": 1000}"#,
                  #"{"id": 5, "cmd": "invalidate", "x": 0, "y": 1030, "width": 1000, "height": 40}"#)
        json.json(#"{"id": 6, "cmd": "set-zoom", "scale": 0.25}"#, tile(5), tile(6), tile(7), tile(8), tile(5))
        json.json(#"{"id": 7, "cmd": "set-zoom", "scale": 3.5, "animated": true}"#, tile(99), tile(-1))
        out.append(("json-session.jsonl", json.bytes))

        // The same with steps: frames, answers by index, arrivals, scrolling away (cancels).
        var steps = Script()
        steps.json(small)
        steps.frame(0x40, 0x40)
        steps.step(.answerAll)
        steps.frame(0x40, 0x40)
        steps.frame(0x40, 0xF0)
        steps.frame(0x40, 0xF0)
        steps.step(.answer, [0, 1])
        steps.step(.answer, [1, 0])
        steps.step(.arrivals)
        steps.step(.bogus, [3])
        steps.frame(0x40, 0x40, flags: 2 | 40 << 2)
        steps.step(.answer, [2, 0])
        steps.step(.arrivals)
        steps.json(#"{"cmd": "invalidate", "x": 0, "y": 0, "width": 1e6, "height": 1e6}"#)
        steps.step(.invalidations)
        steps.frame(0x40, 0x40)
        steps.step(.answerAll)
        out.append(("steps-session.bin", steps.bytes))

        // Time-outs: requests given up, asked again in other slots, then answered late.
        var late = Script()
        late.json(provide(width: "640", height: "480", tileSize: 64, slots: 8))
        late.frame(0, 0)
        late.step(.expire, [60])
        late.step(.expire, [70])
        late.frame(0, 0)
        late.step(.answer, [0])
        late.step(.answerAll, [1])
        late.step(.expire, [255])
        late.frame(0x80, 0x80, zoom: 100, flags: 0)
        late.step(.answerAll)
        out.append(("time-outs.bin", late.bytes))

        // Want lists straight to the provider, hostile ones included; bogus answers.
        var want = Script()
        want.json(provide(width: "100000", height: "70000", tileSize: 128, slots: 2, extra: #""opaque": false"#))
        for extras: UInt8 in [0, 1, 2, 4, 8, 16, 32, 63] {
            want.step(.want, [extras % 5, 0x12, 0x34, 0x56, 0x78, 3, 2, extras])
            want.step(.answer, [extras, extras])
        }
        for which: UInt8 in 0..<8 { want.step(.bogus, [which, 0x7F, 0xFF, 0xFF, 0xFF]) }
        want.step(.arrivals)
        want.step(.want, [0, 0, 0, 0, 0, 1, 1, 0])
        want.step(.expire, [130])
        want.step(.answerAll)
        out.append(("want-lists.bin", want.bytes))

        // A provider that goes and comes back; a second provide while connected; the pool it
        // made the first time is the one it has.
        var again = Script()
        again.json(provide(id: 1, width: "2000", height: "2000", tileSize: 128, slots: 16,
                           extra: ##""background": "#101820", "name": "timetable""##),
                   provide(id: 2, width: "2000", height: "2000", tileSize: 128, slots: 16))
        again.frame(0, 0)
        again.step(.disconnect)
        again.json(tile(1), provide(id: 3, width: "10", height: "10", tileSize: 64, slots: 64),
                   provide(id: 4, width: "10", height: "10", tileSize: 128, slots: 16))
        again.frame(0, 0)
        again.step(.answerAll)
        again.frame(0, 0, zoom: 200)
        out.append(("reconnect.bin", again.bytes))

        // Invalidations of every shape: floods (merged past 32), outside the content, raw numbers.
        var invalidate = Script()
        invalidate.json(small)
        invalidate.frame(0, 0)
        invalidate.step(.answerAll)
        for i in 0..<40 {
            invalidate.json(#"{"cmd": "invalidate", "x": \#(i * 25), "y": \#(i % 7 * 13), "width": 4, "height": 4.5}"#)
        }
        invalidate.frame(0, 0)
        invalidate.step(.answerAll)
        let raw: [[Double]] = [[.nan, 0, 10, 10], [-.infinity, -1e308, .infinity, .leastNonzeroMagnitude], [1e19, -0.0, 1e308, .nan]]
        for numbers in raw {
            invalidate.step(.rawInvalidate, numbers.flatMap { d in withUnsafeBytes(of: d.bitPattern.littleEndian) { Array($0) } })
        }
        invalidate.step(.rawInvalidate, [0x80, 0, 0x7F, 0xFF, 0x00, 0x10, 0xFF, 0xFF, 63, 2, 40, 1])
        invalidate.step(.invalidations)
        invalidate.frame(0, 0)
        out.append(("invalidations.bin", invalidate.bytes))

        // The largest and smallest contents, zoomed all the way out and in.
        var sizes = Script()
        sizes.json(provide(width: "16777216", height: "16777216", tileSize: 64, slots: 4))
        sizes.frame(0xFF, 0xFF, zoom: 0, flags: 0)
        sizes.step(.answerAll)
        sizes.frame(0x80, 0x80, zoom: 255, flags: 3)
        sizes.step(.answerAll)
        sizes.frame(0x80, 0x80, zoom: 128, flags: 0xFF)
        sizes.step(.disconnect)
        sizes.json(provide(width: "1", height: "1", tileSize: 64, slots: 4))
        sizes.frame(0, 0)
        sizes.step(.answerAll)
        sizes.frame(0, 0, zoom: 255)
        out.append(("extreme-sizes.bin", sizes.bytes))

        // Every provide field at and past its limits, and malformed lines of each command.
        var refusals = Script()
        refusals.json(provide(width: "0", height: "10"), provide(width: "10", height: "16777217"),
                      provide(width: "1.5", height: "10"), provide(width: "1e308", height: "-0.0"),
                      provide(width: "10", height: "10", tileSize: 63), provide(width: "10", height: "10", tileSize: 1025),
                      provide(width: "10", height: "10", slots: 0), provide(width: "10", height: "10", slots: 65))
        refusals.json(provide(width: "10", height: "10", extra: ##""background": "#12345""##),
                      provide(width: "10", height: "10", extra: #""background": "red""#),
                      provide(width: "10", height: "10", extra: #""name": "a b""#),
                      provide(width: "10", height: "10", extra: #""name": """#))
        refusals.json(#"{"cmd": "provide", "width": 10, "height": 10}"#, #"{"cmd": "provide", "width": "10", "height": 10, "slots": 1}"#,
                      #"{"cmd": "tile"}"#, #"{"cmd": "tile", "request": "1"}"#, #"{"cmd": "tile", "request": 1.5}"#,
                      #"{"cmd": "tile", "request": 1, "drawn": 0}"#,
                      #"{"cmd": "invalidate", "x": 0, "y": 0, "width": -1, "height": 1}"#, #"{"cmd": "invalidate", "x": 0, "y": 0}"#,
                      #"{"cmd": "invalidate", "x": 1e309, "y": 0, "width": 1, "height": 1}"#, "provide 100 100", #"{"cmd": "provide""#)
        out.append(("refusals.jsonl", refusals.bytes))
        var orphan = Script()
        orphan.json(tile(1), #"{"cmd": "invalidate", "x": 1, "y": 2, "width": 3, "height": 4}"#)
        out.append(("tile-without-provider.jsonl", orphan.bytes))

        // Extreme numbers in every numeric field of the three commands.
        var extreme = Script()
        extreme.json(small)
        for v in ["1e19", "-1e19", "1.7976931348623157e308", "5e-324", "-0.0", "9223372036854775807", "-9223372036854775808"] {
            extreme.json(provide(id: 1, width: v, height: v, tileSize: 64, slots: 4),
                         #"{"cmd": "tile", "request": \#(v), "drawn": false}"#,
                         #"{"cmd": "invalidate", "x": \#(v), "y": \#(v), "width": \#(v), "height": \#(v)}"#,
                         #"{"cmd": "set-offset", "x": \#(v), "y": \#(v)}"#)
        }
        out.append(("extreme-numbers.jsonl", extreme.bytes))
        return out
    }
}

/// The app's pool: a memfd of its slots, sealed against shrinking and growing, mapped writable
/// on the app's side (as `examples/provider` and the tests make one).
private final class AppPool {
    let fd: Int32
    let memory: UnsafeMutableRawPointer
    let bytes: Int

    init(slots: Int, tileSize: Int) {
        bytes = slots * tileSize * tileSize * 4
        fd = flickd_memfd_create("flickd-fuzz-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        // Out of descriptors or memory is the harness's failure (a leak across inputs), not flickd's.
        precondition(fd >= 0, "memfd_create: errno \(errno)")
        precondition(ftruncate(fd, off_t(bytes)) == 0 && flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW) == 0,
                     "cannot size and seal the pool: errno \(errno)")
        let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        precondition(mapped != nil && mapped != MAP_FAILED, "cannot map the pool: errno \(errno)")
        memory = mapped!
    }

    deinit {
        munmap(memory, bytes)
        close(fd)
    }

    /// Pools already made, by slots and tile size: an input's pool is one of these. Making,
    /// sealing, mapping and faulting in a new memfd for every input took a tenth of the time;
    /// what a slot holds from an earlier input is drawn over before any answer is checked.
    nonisolated(unsafe) private static var made: [[Int]: AppPool] = [:]

    static func made(slots: Int, tileSize: Int) -> AppPool {
        if let pool = made[[slots, tileSize]] { return pool }
        if made.count >= 8 { made.removeAll() }
        let pool = AppPool(slots: slots, tileSize: tileSize)
        made[[slots, tileSize]] = pool
        return pool
    }

    /// The pixels the app draws for a request: a word per row, other words at the row's ends,
    /// all depending on the request, so a tile copied from the wrong slot, row or column shows.
    static func pixel(_ id: Int, column: Int, row: Int, width: Int) -> UInt32 {
        let base = UInt32(truncatingIfNeeded: id &* 0x9E37_79B1 &+ row &* 0x85EB_CA77)
        if column == width - 1 { return base ^ 0xFF00_00FF }
        if column == 0 { return base ^ 0x00FF_FF00 }
        return base
    }

    /// The columns drawn and checked: the ends and the middle of every row (the rest of the slot
    /// is copied all the same; drawing it too took a third of the target's time).
    static func columns(width: Int) -> [Int] { width > 2 ? [0, width / 2, width - 1] : Array(0..<width) }

    func draw(_ r: TileProvider.Request) {
        let columns = Self.columns(width: r.pixelWidth)
        for j in 0..<r.pixelHeight {
            let row = (memory + r.offset + j * r.stride).assumingMemoryBound(to: UInt32.self)
            for i in columns { row[i] = Self.pixel(r.id, column: i, row: j, width: r.pixelWidth) }
        }
    }
}

/// One provider's connection on flickd's side, and the model of the protocol the checks keep.
private final class Session {
    let grid: TileGrid
    let pool: SharedTilePool
    let provider: TileProvider
    let store: TileStore
    let composer: FrameComposer
    /// Its size in content pixels (the grid's over `provider.contentScale`).
    let contentSize: Size

    /// The app's last answer to an outstanding request: its last sign of progress.
    var lastAnswerAt: Instant?

    /// When a request sent at `sentAt` is overdue (`TileProvider`): the time-out after the later
    /// of its sending and the last answer, at the latest `maxTurns` time-outs after its sending.
    func due(_ sentAt: Instant) -> Instant {
        min((lastAnswerAt.map { max($0, sentAt) } ?? sentAt) + ProviderTarget.timeout,
            sentAt + ProviderTarget.timeout * TileProvider.maxTurns)
    }

    /// A request sent and not answered, as the app knows it.
    struct Open {
        var request: TileProvider.Request
        var sentAt: Instant
        var cancelled = false
        var givenUp = false
    }

    /// What an answer made arrive, waiting in the provider until the store takes it.
    enum Arrival {
        case drawn(id: Int)
        case failed
    }

    var open: [Int: Open] = [:]
    var lastID = 0
    var arrivals: [(key: TileKey, what: Arrival)] = []
    /// The provider's want list when the last one came from a `want` step (then the checks know
    /// it); `nil` after a frame chose it.
    var wanted: [TileKey]?
    /// Tiles taken by the store since that list: they need no request.
    var takenSinceWant: Set<TileKey> = []
    var requested = 0, cancelled = 0, drawn = 0, notDrawn = 0, late = 0, timeouts = 0, invalidations = 0
    /// Bytes of tiles the store took since the last frame began: the cache keeps them past its budget.
    var insertedSinceFrame = 0
    var stopped = false

    init(provider: TileProvider, store: TileStore, composer: FrameComposer, contentSize: Size) {
        grid = provider.grid
        pool = provider.pool
        self.provider = provider
        self.store = store
        self.composer = composer
        self.contentSize = contentSize
    }

    /// The keys of requests the provider counts as asked (cancelled or not), and of those neither
    /// cancelled nor given up (a tile asked twice would be one of these twice).
    var askedKeys: Set<TileKey> { Set(open.values.filter { !$0.givenUp }.map(\.request.key)) }
    var liveKeys: Set<TileKey> { Set(open.values.filter { !$0.givenUp && !$0.cancelled }.map(\.request.key)) }
}

/// Plays one input: the app's lines and steps against flickd's side of the protocol.
private final class ProviderRig: ContentScreen, ProviderLink {
    var now = Instant.seconds(100)
    var app: AppPool?
    var session: Session?
    /// The session last made, stopped or not: what a provider sends is checked against it.
    var current: Session?
    let output = HeadlessOutput(size: ProviderTarget.panel, overlayPlanes: 0)!
    var offset = Point(x: 0, y: 0)
    var zoom = 1.0
    var resting: Point?
    /// The app's one connection.
    let caller = ControlServer.Caller(id: 1)
    /// The daemon's side: no state store; other content's tiles made as frames need them.
    private(set) var host: ContentHost!
    /// What the host showed last, and the composer drawing it.
    var shown: (content: Content, composer: FrameComposer)?

    init() {
        host = ContentHost(configuration: ProviderTarget.configuration, tileWorkers: 0, clock: { [unowned self] in self.now })
        host.link = self
        host.screen = self
    }

    func line(_ line: Slice<UnsafeRawBufferPointer>) {
        // The reply to `provide` is out: its requests may go (the host's deadline, due now).
        if let s = session, s.provider.isPaused {
            fuzzCheck(s.open.isEmpty, "requests sent while paused")
            dispatchHost()
            fuzzCheck(!s.provider.isPaused, "a provider still paused after the reply to its provide")
            checkSession()
        }
        let request: ControlRequest
        do {
            request = try ControlRequest.decode(line)
        } catch {
            guard case .malformed = error else { return fuzzCheck(false, "decode threw \(error)") }
            if let first = line.first, first < 0x20, first != 0x09, first != 0x0D {
                let steps = ProviderTarget.Step.allCases
                step(steps[Int(first) % steps.count], Array(line.dropFirst()))
            }
            return
        }
        let command: ControlCommand
        do {
            command = try ControlCommand(request)
        } catch {
            if case .unknownCommand = error {
                fuzzCheck(!ControlCommand.names.contains(request.cmd), "'\(request.cmd)' refused as unknown")
            }
            return
        }
        switch command {
        case .provide(let declared): provide(declared)
        case let .tile(id, drawn):
            if session != nil {
                answer(id, drawn: drawn)
            } else {
                refusedAsNoProvider("tile") { () throws(ControlError) in try host.answerTile(id, drawn: drawn, caller: caller) }
            }
        case let .invalidate(x, y, width, height):
            invalidate(x: x, y: y, width: width, height: height)
        case let .setOffset(x, y, _):
            offset = Point(x: x, y: y)
            frame()
        case let .setZoomScale(scale, _):
            zoom = scale
            frame()
        default: break
        }
        checkSession()
    }

    func end() {
        checkSession()
        disconnect()
    }

    // MARK: ContentScreen, ProviderLink: the host's pipeline and socket

    var viewPixels: PixelSize { ProviderTarget.panel }

    /// The host shows content: a provider's, or the placeholder once it went.
    func present(_ content: Content, at t: Instant) throws {
        fuzzCheck(t == now, "content shown at \(t), the clock at \(now)")
        shown = (content, FrameComposer(output: output, compositor: Compositor(), content: content))
    }

    func restore(offset: Point, zoomScale: Double, at t: Instant) {
        fuzzCheck(false, "a saved position restored with no state store")
    }

    func contentChanged(at t: Instant) {}

    func send(_ message: TileProvider.Message, to caller: ControlServer.Caller) {
        fuzzCheck(caller == self.caller, "\(message) sent to \(caller), not the app")
        guard let s = current else { return fuzzCheck(false, "\(message) sent before any provide") }
        received(message, s)
    }

    func subscribe(_ caller: ControlServer.Caller, to types: Set<String>) {
        fuzzCheck(caller == self.caller && types.contains("contentTouchDown"), "\(caller) subscribed to \(types)")
    }

    // MARK: The host's side

    /// What the host's loop does now: its deadlines (a provider's requests let go, a gone
    /// provider's session ended) are due by now.
    private func dispatchHost() {
        if let deadline = host.nextDeadline {
            fuzzCheck(deadline <= now, "the host's deadline \(deadline) is after now, \(now)")
            host.dispatch(now: now)
        }
        fuzzCheck(host.nextDeadline == nil, "the host still wants a wake-up at \(String(describing: host.nextDeadline))")
    }

    /// A provider's command from a connection that is not the provider: refused, saying so.
    private func refusedAsNoProvider(_ command: String, _ body: () throws(ControlError) -> Void) {
        do {
            try body()
            fuzzCheck(false, "'\(command)' taken with no provider")
        } catch {
            fuzzCheck(error == .failed("'\(command)': this connection is not the content provider (send provide first)"),
                      "'\(command)' with no provider refused: \(error)")
        }
    }

    /// `provide`, through the host: checked and started, or refused.
    private func provide(_ d: ControlCommand.Provide) {
        let expected = d.slots * d.tileSize * d.tileSize * 4
        if app == nil {
            app = expected <= ProviderTarget.maxPoolBytes ? AppPool.made(slots: d.slots, tileSize: d.tileSize)
                : AppPool.made(slots: 4, tileSize: 64)
        }
        shown = nil
        do {
            _ = try host.provide(d, pool: app!.fd, caller: caller)
        } catch {
            // One provider at a time: the connection already provides the content.
            if session != nil {
                return fuzzCheck(error == .failed("this connection already provides the content"), "a second provide refused: \(error)")
            }
            let wrongSize = SharedTilePool.Refusal.wrongSize(bytes: app!.bytes, expected: expected)
            return fuzzCheck(error == .failed("\(wrongSize)") && app!.bytes != expected,
                             "a sealed memfd of \(app!.bytes) bytes refused for \(d.slots) slots of \(d.tileSize): \(error)")
        }
        fuzzCheck(session == nil, "a second provide on one connection taken")
        guard let tiles = host.providerTiles, let shown, shown.content.tiles === tiles.store else {
            return fuzzCheck(false, "an accepted provide shows no provider's content")
        }
        let provider = tiles.provider, store = tiles.store
        let pool = provider.pool
        fuzzCheck(app!.bytes == expected && pool.slots == d.slots && pool.slotBytes == d.tileSize * d.tileSize * 4
                  && pool.stride == d.tileSize * 4, "a pool of \(app!.bytes) bytes taken for \(d)")
        // ControlCommand checked the declaration: the grid follows from it.
        let g = provider.grid
        fuzzCheck(g.width == d.width << d.detail && g.height == d.height << d.detail && g.tileSize == d.tileSize
                  && g.overlap == 0 && provider.contentScale == 1 << d.detail, "the grid \(g) for \(d)")
        fuzzCheck(store.cache.count == 0, "a provider's store made \(store.cache.count) tiles itself")
        let s = Session(provider: provider, store: store, composer: shown.composer, contentSize: shown.content.size)
        session = s
        current = s
        // Showing draws a frame at once, from the home position; its requests wait for the reply.
        fuzzCheck(provider.isPaused, "a provider's requests let go before the reply to its provide")
        offset = Point(x: 0, y: 0)
        zoom = 1
        resting = nil
        frame()
    }

    /// `invalidate`, through the host: applied to the provider's store, or refused.
    private func invalidate(x: Double, y: Double, width: Double, height: Double) {
        guard let s = session else {
            return refusedAsNoProvider("invalidate") { () throws(ControlError) in
                try host.invalidate(x: x, y: y, width: width, height: height, caller: caller)
            }
        }
        do {
            try host.invalidate(x: x, y: y, width: width, height: height, caller: caller)
            s.invalidations += 1
        } catch {
            fuzzCheck(false, "the provider's invalidate refused: \(error)")
        }
    }

    /// The connection goes: the host ends the session at its next wake-up, the provider stops
    /// and asks for nothing more, and the configured content shows again.
    private func disconnect() {
        guard let s = session else { return }
        checkSession()
        host.disconnected(caller)
        fuzzCheck(host.providerTiles != nil, "the session ended within the wake-up that noticed the connection gone")
        dispatchHost()
        fuzzCheck(host.providerTiles == nil && host.providerStatus == nil, "the session outlived its connection")
        fuzzCheck(shown.map { $0.content.tiles !== s.store } ?? false, "the provider's content still shown after it went")
        s.stopped = true
        s.provider.want(s.grid.tiles(at: s.grid.maxLevel, covering: PixelRect(x0: 0, y0: 0, x1: 256, y1: 256)))
        session = nil
    }

    // MARK: The protocol's model

    /// A message flickd sends the app, checked against the model and recorded in it.
    private func received(_ message: TileProvider.Message, _ s: Session) {
        fuzzCheck(!s.stopped && !s.provider.isPaused, "\(message) sent while \(s.stopped ? "stopped" : "paused")")
        switch message {
        case .request(let r):
            fuzzCheck(r.id > s.lastID, "request \(r.id) after \(s.lastID)")
            s.lastID = r.id
            fuzzCheck(s.open.count < s.pool.slots, "request \(r.id) with \(s.open.count) of \(s.pool.slots) slots outstanding")
            fuzzCheck((0..<s.pool.slots).contains(r.slot) && !s.open.values.contains { $0.request.slot == r.slot },
                      "request \(r.id) in slot \(r.slot), held by \(s.open.values.filter { $0.request.slot == r.slot }.map(\.request.id))")
            let g = s.grid
            fuzzCheck(g.contains(r.key) && r.key.zoom == nil, "request \(r.id) for \(r.key), not a tile of \(g)")
            fuzzCheck(!s.liveKeys.contains(r.key), "\(r.key) asked again while request \(s.open.values.first { $0.request.key == r.key }!.request.id) is")
            fuzzCheck(!s.arrivals.contains { $0.key == r.key }, "\(r.key) asked again while its arrival waits")
            if let wanted = s.wanted { fuzzCheck(wanted.contains(r.key), "\(r.key) asked but not wanted") }
            let rect = g.tileRect(r.key), scale = g.scale(of: r.key.level) * Double(s.provider.contentScale)
            fuzzCheck(r.pixelWidth == rect.width && r.pixelHeight == rect.height && rect.width >= 1 && rect.height >= 1
                      && rect.width <= g.tileSize && rect.height <= g.tileSize, "request \(r) for a tile of \(rect)")
            fuzzCheck(r.offset == r.slot * s.pool.slotBytes && r.stride == s.pool.stride
                      && r.offset + (r.pixelHeight - 1) * r.stride + r.pixelWidth * 4 <= s.pool.slots * s.pool.slotBytes,
                      "request \(r) outside its slot")
            // The content rectangle: the tile's pixels over the scale; the last column and row
            // reach past the content by less than one level pixel.
            fuzzCheck(r.scale == scale && r.x == Double(rect.x0) / scale && r.y == Double(rect.y0) / scale
                      && r.width == Double(rect.width) / scale && r.height == Double(rect.height) / scale
                      && r.x + r.width < s.contentSize.width + 1 / scale && r.y + r.height < s.contentSize.height + 1 / scale,
                      "request \(r) shows the wrong content rectangle")
            s.open[r.id] = Session.Open(request: r, sentAt: now)
            s.requested += 1
        case .cancel(let id):
            guard var o = s.open[id] else { return fuzzCheck(false, "cancel of \(id), not outstanding") }
            fuzzCheck(!o.cancelled && !o.givenUp, "cancel of \(id), \(o.cancelled ? "cancelled already" : "given up")")
            o.cancelled = true
            s.open[id] = o
            s.cancelled += 1
        }
    }

    /// The app's `tile` answer; the model changes first, as the provider's next requests follow
    /// within the call.
    private func answer(_ id: Int, drawn wasDrawn: Bool) {
        guard let s = session else { return }
        let expected = s.open.removeValue(forKey: id)
        if expected != nil { s.lastAnswerAt = now }
        if let o = expected {
            if o.givenUp {
                s.late += 1
            } else {
                if wasDrawn {
                    app!.draw(o.request)
                    s.drawn += 1
                    s.arrivals.append((o.request.key, .drawn(id: id)))
                } else {
                    s.notDrawn += 1
                    if !o.cancelled { s.arrivals.append((o.request.key, .failed)) }
                }
                s.wanted?.removeAll { $0 == o.request.key }
            }
        }
        do {
            try host.answerTile(id, drawn: wasDrawn, caller: caller)
            fuzzCheck(expected != nil, "an answer to \(id) taken, not outstanding")
        } catch {
            fuzzCheck(expected == nil && error == .failed("\(TileProvider.AnswerError.notOutstanding(id))"),
                      "the answer to outstanding \(id) refused: \(error)")
        }
        checkLiveness(s)
    }

    /// After a want, an answer or an expiry: with a slot free, every wanted tile is asked,
    /// waiting to be taken, or taken since the list.
    private func checkLiveness(_ s: Session) {
        guard let wanted = s.wanted, !s.stopped, !s.provider.isPaused, s.open.count < s.pool.slots else { return }
        let live = s.liveKeys, waiting = Set(s.arrivals.map(\.key))
        for key in wanted where !live.contains(key) && !waiting.contains(key) && !s.takenSinceWant.contains(key) {
            fuzzCheck(false, "\(key) wanted, not asked, with \(s.pool.slots - s.open.count) slots free")
        }
    }

    /// The provider and the store agree with the model.
    private func checkSession() {
        guard let s = session else { return }
        let p = s.provider
        fuzzCheck(host.providerTiles?.provider === p && host.providerTiles?.store === s.store, "the host serves another provider")
        fuzzCheck(p.outstandingCount == s.open.count && s.open.count <= s.pool.slots,
                  "\(p.outstandingCount) outstanding, the app has \(s.open.count), \(s.pool.slots) slots")
        for id in s.open.keys { fuzzCheck(p.isOutstanding(id), "request \(id) no longer outstanding") }
        fuzzCheck(Set(s.open.values.map(\.request.slot)).count == s.open.count, "two outstanding requests share a slot")
        fuzzCheck(p.requested == s.requested && p.cancelled == s.cancelled && p.drawn == s.drawn && p.notDrawn == s.notDrawn
                  && p.lateAnswers == s.late && p.timeouts == s.timeouts,
                  "counters requested \(p.requested) cancelled \(p.cancelled) drawn \(p.drawn) notDrawn \(p.notDrawn) late \(p.lateAnswers) timeouts \(p.timeouts); the app saw \(s.requested) \(s.cancelled) \(s.drawn) \(s.notDrawn) \(s.late) \(s.timeouts)")
        let asked = s.askedKeys
        if let wanted = s.wanted {
            fuzzCheck(p.pendingCount == wanted.count { !asked.contains($0) } + asked.count,
                      "pendingCount \(p.pendingCount) for \(wanted.count) wanted and \(asked.count) asked")
        } else {
            fuzzCheck(p.pendingCount >= asked.count, "pendingCount \(p.pendingCount) with \(asked.count) asked")
        }
        fuzzCheck(s.store.pendingCount == p.pendingCount, "the store's pendingCount is not the provider's")
        let deadline = s.open.values.filter { !$0.givenUp }.map { s.due($0.sentAt) }.min()
        fuzzCheck(p.nextDeadline == deadline && s.store.nextDeadline == deadline,
                  "next deadline \(String(describing: p.nextDeadline)), the app's \(String(describing: deadline))")
        if let mean = p.meanLatencyMs { fuzzCheck(mean.isFinite && mean >= 0, "mean latency \(mean) ms") }
        fuzzCheck(s.store.presentLatencies.count <= 1024 && s.store.presentLatencies.allSatisfy { $0 >= .zero },
                  "present latencies \(s.store.presentLatencies.count)")
        fuzzCheck(s.store.invalidations == s.invalidations, "\(s.store.invalidations) invalidations, \(s.invalidations) sent")
        let g = s.grid
        fuzzCheck(s.store.stale.allSatisfy { $0.zoom == nil && g.contains($0) }, "a stale key outside the grid")
        fuzzCheck(s.store.failed.keys.allSatisfy { $0.zoom == nil && g.contains($0) }, "a failed key outside the grid")
        fuzzCheck(s.store.cache.keys.allSatisfy { g.contains(TileKey(level: $0.level, column: $0.column, row: $0.row)) },
                  "a cached key outside the grid")
    }

    // MARK: Steps

    private func step(_ step: ProviderTarget.Step, _ p: [UInt8]) {
        func byte(_ i: Int) -> UInt8? { i < p.count ? p[i] : nil }
        func word(_ i: Int) -> Int? { i + 1 < p.count ? Int(p[i]) << 8 | Int(p[i + 1]) : nil }
        guard let s = session else { return }
        switch step {
        case .frame:
            if let z = byte(4) { zoom = z == 128 ? 1 : pow(2, (Double(z) - 128) / 16) }
            let view = ProviderTarget.panel
            let range = Size(width: max(0, s.contentSize.width * zoom - Double(view.width)) + Double(view.width),
                             height: max(0, s.contentSize.height * zoom - Double(view.height)) + Double(view.height))
            if let x = word(0) { offset.x = Double(x) / 65535 * range.width - Double(view.width) / 2 }
            if let y = word(2) { offset.y = Double(y) / 65535 * range.height - Double(view.height) / 2 }
            if let flags = byte(5) {
                if flags & 1 != 0 { offset = Point(x: offset.x.rounded(), y: offset.y.rounded()) }
                let views = Double(flags >> 2) - 32
                resting = flags & 2 != 0 ? Point(x: offset.x + views * Double(view.width) / 3, y: offset.y + views * Double(view.height)) : nil
            }
            frame()
        case .want:
            let g = s.grid
            let level = g.maxLevel - Int(byte(0) ?? 0) % (g.maxLevel + 2)
            let size = g.levelSize(level)
            let x = (word(1) ?? 0) * size.width / 65536, y = (word(3) ?? 0) * size.height / 65536
            let columns = Int(byte(5) ?? 1) % 5, rows = Int(byte(6) ?? 1) % 5
            let extras = byte(7) ?? 0
            var keys = g.tiles(at: level, covering: PixelRect(x0: x, y0: y, x1: x + columns * g.tileSize, y1: y + rows * g.tileSize))
            if level < 0 { keys = [TileKey(level: level, column: 0, row: 0)] }
            if extras & 1 != 0, let first = keys.first { keys.append(first) }
            if extras & 2 != 0, let first = keys.first { keys.insert(TileKey(level: first.level, column: first.column, row: first.row, zoom: 0.5), at: 0) }
            if extras & 4 != 0 { keys.append(TileKey(level: g.maxLevel + 1 - Int(extras >> 6), column: g.tileCount(level).columns, row: 0)) }
            if extras & 8 != 0 { keys.insert(TileKey(level: level, column: 0, row: -1), at: 0) }
            if extras & 16 != 0 { keys.reverse() }
            if extras & 32 != 0 { keys = [] }
            var seen = Set<TileKey>()
            s.wanted = keys.filter { g.contains($0) && $0.zoom == nil && seen.insert($0).inserted }
            s.takenSinceWant = []
            s.provider.want(keys)
            checkLiveness(s)
        case .expire:
            now = now + .milliseconds(8 * Int(byte(0) ?? 0))
            expire(s)
        case .arrivals:
            takeArrivals(s)
        case .invalidations:
            let g = s.grid
            var holds: [PixelRect] = []
            if (byte(0) ?? 0) & 1 != 0 {
                let x = (word(1) ?? 0) * g.width / 65536, y = (word(3) ?? 0) * g.height / 65536
                holds = [PixelRect(x0: x, y0: y, x1: x + (word(5) ?? 0) * g.width / 65536, y1: y + (word(7) ?? 0) * g.height / 65536)]
            }
            s.store.applyInvalidations(bandHolds: holds)
            let content = PixelRect(x0: 0, y0: 0, x1: g.width, y1: g.height)
            for r in s.store.takeChanges() {
                fuzzCheck(!r.isEmpty && r.intersection(content) == r, "a change \(r) outside the content \(content)")
            }
            // Bounded by the cache and the bands, not by the tiles a session has shown.
            for key in s.store.stale where !s.store.cache.contains(key) {
                fuzzCheck(holds.contains { !$0.intersection(g.contentRect(key)).isEmpty }, "\(key) stale, evicted and in no band")
            }
        case .answer:
            let ids = s.open.keys.sorted()
            guard !ids.isEmpty else { return }
            answer(ids[Int(byte(0) ?? 0) % ids.count], drawn: (byte(1) ?? 0) & 1 == 0)
        case .bogus:
            let number = Int(Int32(bitPattern: UInt32(word(1) ?? 0) << 16 | UInt32(word(3) ?? 0)))
            let ids = [0, -1, Int.max, Int.min, s.lastID, s.lastID + 1, number, -number]
            answer(ids[Int(byte(0) ?? 0) % ids.count], drawn: number & 1 == 0)
        case .answerAll:
            let drawn = (byte(0) ?? 0) & 1 == 0
            for id in s.open.keys.sorted() where session === s { answer(id, drawn: drawn) }
            takeArrivals(s)
        case .rawInvalidate:
            if p.count >= 32 {
                let d = (0..<4).map { i in
                    Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(p[8 * i + $1]) << (8 * $1) })
                }
                invalidate(x: d[0], y: d[1], width: d[2], height: d[3])
                return
            } else {
                let v = (0..<4).map { i in Int(Int16(bitPattern: UInt16(word(2 * i) ?? 0))) << (Int(byte(8 + i) ?? 0) % 64) }
                s.store.invalidate(PixelRect(x0: v[0], y0: v[1], x1: v[2], y1: v[3]))
            }
            s.invalidations += 1
        case .disconnect:
            disconnect()
        }
    }

    /// The overdue requests given up, the model first (the provider asks again within the call).
    private func expire(_ s: Session) {
        for (id, var o) in s.open where !o.givenUp && now >= s.due(o.sentAt) {
            o.givenUp = true
            s.open[id] = o
            s.timeouts += 1
        }
        s.store.expire(now: now)
        checkLiveness(s)
    }

    /// A frame at the view, as the loop draws one: after `Pipeline.dispatch` gave up what is
    /// overdue and took what arrived; the store's invalidations and changes are taken inside.
    /// Presented at its vblank.
    private func frame() {
        guard let s = session else { return }
        expire(s)
        takeArrivals(s)
        let content = s.contentSize
        zoom = min(max(zoom, 1.0 / 4096), 1000)
        // The model keeps the offset within the content, or a bounce past its edges.
        let view = ProviderTarget.panel.size
        offset.x = min(max(offset.x, -view.width), max(0, content.width * zoom - view.width) + view.width)
        offset.y = min(max(offset.y, -view.height), max(0, content.height * zoom - view.height) + view.height)
        var state = RenderState(boundsSize: view, contentOffset: offset, zoomScale: zoom, contentSize: content,
                                background: .black)
        state.restingOffset = resting
        let frames = s.store.frames
        s.wanted = nil
        do {
            try s.composer.commit(state, now: now)
        } catch {
            return fuzzCheck(false, "a frame refused: \(error)")
        }
        guard let vblank = output.nextDeadline else { return fuzzCheck(false, "a frame committed with no vblank") }
        now = max(now, vblank)
        _ = try? output.dispatch(now: now)
        s.store.framePresented(at: now)
        if s.store.frames != frames { s.insertedSinceFrame = 0 }
    }

    /// The store takes what arrived: each drawn tile is in the cache with the app's pixels, each
    /// refusal failed, and the cache is within its budget but for one frame's tiles and what came since.
    private func takeArrivals(_ s: Session) {
        let taken = s.store.takeArrivals()
        fuzzCheck(taken == s.arrivals.count, "\(taken) arrivals taken, \(s.arrivals.count) answered")
        var last: [TileKey: Int] = [:]
        for (key, what) in s.arrivals {
            switch what {
            case .drawn(let id): last[key] = id
            case .failed: fuzzCheck(s.store.failed[key] != nil, "\(key) refused by the app but not failed")
            }
        }
        for (key, id) in last {
            guard let tile = s.store.cache.tile(key) else { return fuzzCheck(false, "\(key) drawn but not in the cache") }
            let rect = s.grid.tileRect(key)
            fuzzCheck(tile.width == rect.width && tile.height == rect.height, "\(key) arrived as \(tile.size), not \(rect)")
            let columns = AppPool.columns(width: tile.width)
            for row in 0..<tile.height {
                let pixels = tile.row(row)
                for column in columns where pixels[column] != AppPool.pixel(id, column: column, row: row, width: tile.width) {
                    fuzzCheck(false, "\(key) pixel (\(column), \(row)) is \(pixels[column]), drawn \(AppPool.pixel(id, column: column, row: row, width: tile.width))")
                }
            }
            s.insertedSinceFrame += tile.stride * tile.height
        }
        s.takenSinceWant.formUnion(s.arrivals.map(\.key))
        s.arrivals.removeAll()
        _ = s.store.takeFailures()
        if !last.isEmpty {
            // A frame draws at most 3 × 3 tiles of its level (a level is at most twice the
            // screen's detail), each with a coarser cover or a resampled copy.
            let frameBytes = 32 * s.pool.slotBytes
            fuzzCheck(s.store.cache.usedBytes <= ProviderTarget.cacheBytes + frameBytes + s.insertedSinceFrame,
                      "the cache holds \(s.store.cache.usedBytes) bytes; budget \(ProviderTarget.cacheBytes), \(s.insertedSinceFrame) arrived since the frame")
        }
    }
}
