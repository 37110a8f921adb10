import FlickCore
import FlickSystem

/// The daemon's side of the content-provider protocol (docs/protocol.md): which tiles to ask an
/// app for, in which slot of its pool, and what to make of its answers. It holds no socket:
/// `send` carries its messages, and the loop hands it the app's answers and the time.
///
/// States of one request:
/// - **sent** (`tileRequest`; its slot is the app's) → **answered**: drawn (the slot is copied,
///   the tile arrives) or not; the slot is free again;
/// - **sent** → **cancelled** (`tileCancel`: its tile was left out of the wanted list twice in a
///   row) → **answered** (a tile drawn anyway is still taken);
/// - **sent** or **cancelled** → **given up** (overdue, `due(_:)`: the tile may be asked again,
///   in another slot) → **answered late** (ignored; only now is the slot free).
///
/// A request is overdue when the app has answered nothing for `timeout` since it was sent: an
/// app drawing its queue in turn (a document's helper drawing an expensive page, 0.1–0.3 s a
/// tile) is making progress, and the last of sixteen requests is not late for having waited
/// for fifteen. So a slow app is not taken for a hung one; a hung one answers nothing and is
/// overdue `timeout` after its last answer. A request an app leaves unanswered while it answers
/// others is given up `maxTurns` × `timeout` after it was sent, so it cannot hold a slot for good.
///
/// A frame never waits here: the loop says what it wants and goes on; tiles arrive through
/// `fileDescriptor`, as the tile loader's do.
public final class TileProvider: TileFetching {
    /// One request, as the app is told of it.
    public struct Request: Hashable, Sendable {
        /// Its id, unique on the connection.
        public var id: Int
        /// The tile.
        public var key: TileKey
        /// Pixels per content pixel at the tile's level.
        public var scale: Double
        /// The content rectangle the tile shows, in unscaled content pixels.
        public var x: Double, y: Double, width: Double, height: Double
        /// The tile's size in pixels.
        public var pixelWidth: Int, pixelHeight: Int
        /// Where to draw it: the slot, its byte offset in the pool, the bytes between rows.
        public var slot: Int, offset: Int, stride: Int
    }

    /// What goes to the app.
    public enum Message: Hashable, Sendable {
        /// Draw this tile.
        case request(Request)
        /// The tile of this request is no longer wanted.
        case cancel(Int)
    }

    /// Why an answer is refused.
    public enum AnswerError: Error, Hashable, Sendable, CustomStringConvertible {
        /// No request with this id is waiting for an answer.
        case notOutstanding(Int)

        public var description: String {
            switch self {
            case let .notOutstanding(id): "no tile request \(id) is waiting for an answer"
            }
        }
    }

    private struct Outstanding {
        var request: Request
        var sentAt: Instant
        var cancelled = false
        var givenUp = false
        /// Want lists in a row that left the tile out.
        var unwanted = 0
    }

    /// The app's last answer (drawn, not drawn or late): its last sign of progress.
    private var lastAnswerAt: Instant?
    /// The most `timeout`s a request waits while the app answers others.
    public static let maxTurns = 8

    /// The pyramid.
    public let grid: TileGrid
    /// Where the app draws.
    public let pool: SharedTilePool
    /// The tiles' pixel format.
    public let format: PixelFormat
    /// How long a request may wait for its answer.
    public let timeout: Duration
    /// Pixels of the full resolution per content pixel (`TileSource.contentScale`).
    public let contentScale: Int
    /// Carries a message to the app.
    public var send: (Message) -> Void
    /// Gives a buffer for the answered tile `key` of the size and format given to be copied
    /// into instead of a new mapping: the tile's own when the cache holds it and nothing else
    /// reads it (`TileCache.overwritableBuffer`), else one of a tile that went
    /// (`TileCache.reusableBuffer`); `nil` for none.
    public var reusableBuffer: (_ key: TileKey, _ width: Int, _ height: Int, _ format: PixelFormat) -> PixelBuffer? = { _, _, _, _ in nil }
    private let clock: () -> Instant
    private let wake: WakePipe
    private var wanted: [TileKey] = []
    private var outstanding: [Int: Outstanding] = [:]
    private var freeSlots: [Int]
    private var nextID = 1
    private var arrivals: [TileArrival] = []
    private var stopped = false
    private var latencies: [Double] = []
    private var latencyNext = 0

    /// Requests sent so far.
    public private(set) var requested = 0
    /// Tiles the app drew and flickd took.
    public private(set) var drawn = 0
    /// Answers that drew nothing.
    public private(set) var notDrawn = 0
    /// Requests cancelled (`tileCancel` sent).
    public private(set) var cancelled = 0
    /// Requests given up for want of an answer in time.
    public private(set) var timeouts = 0
    /// Answers to requests already given up (ignored).
    public private(set) var lateAnswers = 0
    /// While paused, what is wanted is noted and nothing is sent (the app has not heard the
    /// reply to its `provide` yet); unpausing sends what is wanted then.
    public var isPaused = false {
        didSet { if !isPaused { issue() } }
    }

    /// A provider for `grid`, drawing into `pool`.
    /// - Parameters:
    ///   - clock: the loop's time (tests inject theirs).
    ///   - send: carries messages to the app (the daemon's connection; set later if need be).
    /// - Returns: `nil` when no wake-up pipe can be made.
    public init?(grid: TileGrid, contentScale: Int = 1, pool: SharedTilePool, format: PixelFormat, timeout: Duration,
                 clock: @escaping () -> Instant, send: @escaping (Message) -> Void = { _ in }) {
        guard let wake = WakePipe() else { return nil }
        self.grid = grid
        self.pool = pool
        self.format = format
        self.timeout = timeout
        self.contentScale = contentScale
        self.clock = clock
        self.send = send
        self.wake = wake
        freeSlots = Array((0..<pool.slots).reversed())
    }

    // MARK: TileFetching

    public var fileDescriptor: Descriptor { wake.fileDescriptor }

    /// Tiles wanted and not asked for yet, and requests waiting for an answer in time.
    public var pendingCount: Int {
        let asked = Set(outstanding.values.filter { !$0.givenUp }.map(\.request.key))
        return wanted.count { !asked.contains($0) } + asked.count
    }

    /// Requests waiting for an answer, given-up ones included (their slots are the app's).
    public var outstandingCount: Int { outstanding.count }

    /// Whether request `id` waits for an answer (given up or not).
    public func isOutstanding(_ id: Int) -> Bool { outstanding[id] != nil }

    /// Takes the new list, cancels requests left out of it twice in a row, and asks for the
    /// most wanted tiles not asked for yet while slots are free.
    public func want(_ keys: [TileKey]) {
        guard !stopped else { return }
        var seen = Set<TileKey>()
        wanted = keys.filter { grid.contains($0) && $0.zoom == nil && seen.insert($0).inserted }
        for (id, var entry) in outstanding where !entry.cancelled && !entry.givenUp {
            entry.unwanted = seen.contains(entry.request.key) ? 0 : entry.unwanted + 1
            if entry.unwanted >= 2 {
                entry.cancelled = true
                cancelled += 1
                send(.cancel(id))
            }
            outstanding[id] = entry
        }
        issue()
    }

    public func takeArrivals() -> [TileArrival] {
        wake.drain()
        defer { arrivals.removeAll(keepingCapacity: true) }
        return arrivals
    }

    public func stop() {
        stopped = true
        wanted.removeAll()
    }

    // MARK: The app's side

    /// Takes the app's answer to request `id`: a drawn tile is copied out of its slot at once
    /// (the slot is the app's again when this returns) and arrives; the slot goes to the next
    /// wanted tile.
    /// - Throws: `AnswerError` when no such request waits for an answer.
    public func answer(_ id: Int, drawn wasDrawn: Bool) throws(AnswerError) {
        guard let entry = outstanding.removeValue(forKey: id) else { throw .notOutstanding(id) }
        lastAnswerAt = clock()
        freeSlots.append(entry.request.slot)
        defer { issue() }
        if entry.givenUp {
            lateAnswers += 1
            return
        }
        record(latency: clock() - entry.sentAt)
        let request = entry.request
        if wasDrawn, let tile = pool.copyTile(slot: request.slot, width: request.pixelWidth, height: request.pixelHeight,
                                              format: format, reusing: { [reusableBuffer] in reusableBuffer(request.key, $0, $1, $2) }) {
            drawn += 1
            arrive(TileArrival(key: request.key, result: .success(tile), requestedAt: entry.sentAt))
        } else {
            notDrawn += 1
            // Skipped after a cancel: nothing lost, asked again if wanted again. Refused
            // otherwise: the app cannot draw it, and it is drawn from a coarser level.
            if !entry.cancelled {
                arrive(TileArrival(key: request.key, result: .failure(ContentError(
                    path: "provider tile \(request.key)", reason: .corrupt(detail: "the app answered it without drawing it")))))
            }
        }
        wanted.removeAll { $0 == request.key }
    }

    /// When a request sent at `sentAt` is overdue: `timeout` after the later of its sending and
    /// the app's last answer, and at the latest `maxTurns` × `timeout` after its sending. Later
    /// for a later `sentAt`, so the earliest sent is the first due.
    private func due(_ sentAt: Instant) -> Instant {
        let waitingFrom = lastAnswerAt.map { max($0, sentAt) } ?? sentAt
        return min(waitingFrom + timeout, sentAt + timeout * Self.maxTurns)
    }

    /// Gives up the requests whose answer is overdue at `now`; their tiles may be asked again.
    public func expire(now: Instant) {
        var changed = false
        for (id, var entry) in outstanding where !entry.givenUp && now >= due(entry.sentAt) {
            entry.givenUp = true
            outstanding[id] = entry
            timeouts += 1
            changed = true
        }
        if changed { issue() }
    }

    /// When the next request becomes overdue, if any waits in time.
    public var nextDeadline: Instant? {
        // The loop asks at every wake-up (thousands a second under an app's flood): the earliest
        // request found without an array, and its due time worked out once (`due` is monotonic).
        var earliest: Instant?
        for entry in outstanding.values where !entry.givenUp && earliest.map({ entry.sentAt < $0 }) ?? true {
            earliest = entry.sentAt
        }
        return earliest.map(due)
    }

    /// The mean time from a request to its answer over the last 64 answers, in milliseconds.
    public var meanLatencyMs: Double? {
        latencies.isEmpty ? nil : latencies.reduce(0, +) / Double(latencies.count)
    }

    // MARK: Inside

    /// Sends requests for the most wanted tiles not asked for yet while slots are free.
    private func issue() {
        guard !stopped, !isPaused, !freeSlots.isEmpty else { return }
        let asked = Set(outstanding.values.filter { !$0.givenUp && !$0.cancelled }.map(\.request.key))
        let waiting = Set(arrivals.map(\.key))
        for key in wanted where !asked.contains(key) && !waiting.contains(key) {
            guard let slot = freeSlots.popLast() else { return }
            let request = describe(key, id: nextID, slot: slot)
            nextID += 1
            outstanding[request.id] = Outstanding(request: request, sentAt: clock())
            requested += 1
            send(.request(request))
        }
    }

    private func describe(_ key: TileKey, id: Int, slot: Int) -> Request {
        // Pixels per content pixel: the level's scale of the full resolution, times the full
        // resolution's pixels per content pixel.
        let rect = grid.tileRect(key), scale = grid.scale(of: key.level) * Double(contentScale)
        return Request(id: id, key: key, scale: scale, x: Double(rect.x0) / scale, y: Double(rect.y0) / scale,
                       width: Double(rect.width) / scale, height: Double(rect.height) / scale,
                       pixelWidth: rect.width, pixelHeight: rect.height,
                       slot: slot, offset: slot * pool.slotBytes, stride: pool.stride)
    }

    private func arrive(_ arrival: TileArrival) {
        arrivals.append(arrival)
        if arrivals.count == 1 { wake.signal() }
    }

    private func record(latency: Duration) {
        let ms = Double(latency.components.seconds) * 1e3 + Double(latency.components.attoseconds) / 1e15
        if latencies.count < 64 { latencies.append(ms) } else { latencies[latencyNext] = ms }
        latencyNext = (latencyNext + 1) % 64
    }
}
