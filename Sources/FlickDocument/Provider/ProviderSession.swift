import FlickControl
import FlickCore
import FlickSystem
import FoundationEssentials
import Glibc

/// The helper's side of the provider exchange (docs/protocol.md, "Content providers"), on the
/// socket flickd passed. One state machine:
///
/// | state | on | to |
/// |---|---|---|
/// | introducing (`provide` sent) | the reply, ok | serving |
/// | introducing | the reply, refused | finished(refused) |
/// | serving | `tileRequest` | serving, the request queued (answered undrawn when it cannot be drawn: outside the pool, or past `slots` outstanding) |
/// | serving | `tileCancel` of a queued request | serving, answered undrawn, dequeued |
/// | serving | a reply, an unknown event, a cancel of an answered request | serving |
/// | serving | a queued request, nothing left to read | serving, drawn and answered (one per pass, reading in between, so a cancel can still skip the rest); before the answer, `links` for each page it meets whose links were not sent yet and that has some |
/// | any | end of stream, a read or write error, a line over 64 KiB | finished(closed) |
public final class ProviderSession {
    /// How a session ended.
    public enum Ending: Equatable, Sendable {
        /// flickd closed the connection (or it broke): the helper's work is over.
        case closed(String)
        /// flickd refused `provide`: its words.
        case refused(String)
    }

    private enum State {
        case introducing
        case serving
        case finished(Ending)
    }

    /// A tile asked for and not answered yet.
    private struct Pending {
        var request: Int
        var job: TileJob
        var offset: Int
    }

    private let socket: Int32
    private let document: Document
    private let pool: TilePool
    private let slots: Int
    private let background: UInt32
    private var state = State.introducing
    private var queue: [Pending] = []
    private var buffer: [UInt8] = []
    /// The pages whose links were sent (or found to have none): each page's go once a session.
    private var linksSent: Set<Int> = []
    private let decoder = JSONDecoder()
    /// Tiles answered, drawn or not (for the tests and the benchmark).
    public private(set) var answered = 0
    /// The longest line flickd may send before the connection counts as broken.
    static let lineLimit = 65_536

    /// A session for `document` on `socket`, its tiles drawn into `pool`.
    public init(socket: Int32, document: Document, pool: TilePool, slots: Int, background: UInt32) {
        self.socket = socket
        self.document = document
        self.pool = pool
        self.slots = slots
        self.background = background
    }

    /// Sends `provide` (the pool passed along) and serves tile requests until flickd goes.
    public func run(provide: String) -> Ending {
        let line = Array(provide.utf8)
        // The pool travels with the first byte; the rest of the line follows as usual.
        guard ControlClient.send(line.prefix(1), passing: pool.descriptor.rawValue, on: socket) == 1 else {
            return .closed("sending provide: \(SystemError.current("sendmsg", "the socket to flickd").message)")
        }
        do {
            try writeWhole(Array(line.dropFirst()), to: socket, context: "the socket to flickd")
        } catch {
            return .closed("sending provide: \(error.message)")
        }
        while true {
            if case let .finished(ending) = state { return ending }
            if queue.isEmpty || readable() {
                receive()
            } else {
                drawNext()
            }
        }
    }

    /// Whether the socket has something to read now.
    private func readable() -> Bool {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Reads what is there (waits for something) and handles every complete line.
    private func receive() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n < 0, errno == EINTR { return }
        guard n > 0 else {
            state = .finished(.closed(n == 0 ? "flickd closed the connection" : SystemError.current("recv", "the socket to flickd").message))
            return
        }
        buffer += chunk[0..<n]
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = Array(buffer[..<newline])
            buffer.removeFirst(newline + 1)
            handle(line)
        }
        if buffer.count > Self.lineLimit { state = .finished(.closed("a line from flickd over \(Self.lineLimit) bytes")) }
    }

    private func handle(_ line: [UInt8]) {
        guard let message = try? decoder.decode(ControlMessage.self, from: Data(line)) else { return }
        switch state {
        case .introducing:
            guard message.type == nil, message.id == HelperMessages.firstID, let ok = message.ok else { return }
            state = ok ? .serving : .finished(.refused(message.error ?? "no reason given"))
        case .serving:
            switch message.type {
            case "tileRequest":
                if let request = message.request { take(request, message.tile) }
            case "tileCancel":
                if let request = message.request, let index = queue.firstIndex(where: { $0.request == request }) {
                    queue.remove(at: index)
                    answer(request, drawn: false)
                }
            default:
                // Replies to answers (a late one refused), content touches, events added later.
                break
            }
        case .finished:
            break
        }
    }

    /// Queues a request, or answers it undrawn when it cannot be drawn.
    private func take(_ request: Int, _ tile: ControlTileRequest?) {
        guard let tile, queue.count < slots else { return answer(request, drawn: false) }
        let job = TileJob(scale: tile.scale, x: tile.x, y: tile.y, pixelWidth: tile.pixelWidth, pixelHeight: tile.pixelHeight,
                          stride: tile.stride)
        guard job.isDrawable, tile.offset >= 0, tile.offset <= pool.byteCount - job.byteCount else { return answer(request, drawn: false) }
        queue.append(Pending(request: request, job: job, offset: tile.offset))
    }

    private func drawNext() {
        let next = queue.removeFirst()
        sendLinks(of: next.job)
        guard case .serving = state else { return }
        let drawn = document.draw(next.job, into: pool.base + next.offset, background: background)
        answer(next.request, drawn: drawn)
    }

    /// Sends `links` for the pages `job` meets that have links and whose links flickd has not
    /// had yet: with the first tile drawn of a page, before its answer, so flickd knows a page's
    /// links by the time it shows any of it.
    private func sendLinks(of job: TileJob) {
        for page in document.pages(meeting: job) where linksSent.insert(page).inserted {
            for line in HelperMessages.links(page: page, document.links(page: page)) {
                do {
                    try writeWhole(Array(line.utf8), to: socket, context: "the socket to flickd")
                } catch {
                    state = .finished(.closed(error.message))
                    return
                }
            }
        }
    }

    private func answer(_ request: Int, drawn: Bool) {
        answered += 1
        do {
            try writeWhole(Array(HelperMessages.tile(request, drawn: drawn).utf8), to: socket, context: "the socket to flickd")
        } catch {
            state = .finished(.closed(error.message))
        }
    }
}
