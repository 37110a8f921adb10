import FlickControl
import FlickCore
import FlickDisplay
import FlickSystem
import Glibc
import Synchronization

/// A document (a PDF or SVG, or a folder of them) drawn by `flickd-render` where there is no
/// loop to wait on: `flickd replay`. The helper is started as the daemon starts it
/// (`RenderProcess`, the same `RenderArguments`), its `provide` is checked against flickd's
/// layout as the daemon checks it, and each tile is asked for through the daemon's own
/// `TileProvider` the moment a frame needs it, and waited for. So a replay shows the same frames
/// every run, and they are the frames the daemon shows once its tiles have come (the daemon
/// never waits: it draws what has arrived and asks for the rest).
///
/// States: **introducing** (the helper started; its first line awaited, `open`) → `provide` →
/// **serving** (one tile asked at a time, its answer awaited) → the helper's end, a line that is
/// not the protocol's, or a tile not drawn within `wait` → **broken**: every tile after fails at
/// once with the reason, drawn from a coarser level as any tile that cannot be made. A
/// `documentError` instead of `provide` is the document's refusal: `open` throws it.
final class RenderedDocument: TileSource {
    let grid: TileGrid
    let isOpaque: Bool
    let name: String
    let background: Color?
    let contentScale: Int
    var lowestLevel: Int { 0 }
    /// As the daemon's provider content: nothing is drawn before a frame asks.
    var pinsCoarseLevels: Bool { false }
    /// The helper and the exchange with it, used by one caller at a time.
    private let session: Mutex<Session>

    /// The most a tile may take: the daemon's `content.provider_timeout_ms` for as many turns
    /// as it lets a request wait while the helper draws others (a replay has time; a tile the
    /// helper does not draw by then would not show in the daemon either).
    static func wait(configuration: Configuration) -> Duration {
        configuration.providerTimeout * TileProvider.maxTurns
    }

    /// Starts the helper for `files` (the content `path`, laid out for a view of `view` pixels
    /// with `configuration`'s settings) and takes its `provide`.
    /// - Returns: the document's tiles, its pages in content pixels, and its links' table (the
    ///   links come as the pages are drawn: `takeLinks()`).
    /// - Throws: `ContentError` naming the file: the helper's `documentError`, or why it could
    ///   not start or be understood.
    static func open(path: String, files: [String], configuration: Configuration,
                     view: PixelSize) throws -> (document: RenderedDocument, pages: [Content.Page], links: DocumentLinks) {
        let arguments = RenderArguments(configuration: configuration, view: view)
        let process: RenderProcess
        do {
            process = try RenderProcess(executable: DocumentFiles.helperPath, documents: files) { arguments.line(names: $0) }
        } catch {
            throw ContentError(path: path, reason: .documentFailed("flickd-render cannot start: \(error)"))
        }
        guard let socket = process.takeSocket() else {
            throw ContentError(path: path, reason: .documentFailed("flickd-render has no connection"))
        }
        let session = Session(process: process, socket: socket, wait: wait(configuration: configuration))
        // The daemon's limit for a start: parsing a big PDF takes a while.
        let (line, pool) = try session.firstLine(path: path, within: RenderSupervision.defaultStartLimit)
        let command: ControlCommand
        do {
            command = try ControlCommand(ControlRequest.decode(line))
        } catch {
            throw ContentError(path: path, reason: .documentFailed("flickd-render's first line is not the protocol's: \(error)"))
        }
        switch command {
        case .documentError(let failure):
            throw ContentError(path: path, reason: .documentFailed(failure.message))
        case .provide(let declared):
            guard let pool else {
                throw ContentError(path: path, reason: .documentFailed("flickd-render's provide came without its pool"))
            }
            guard let document = declared.document else {
                throw ContentError(path: path, reason: .documentFailed("flickd-render's provide declares no document"))
            }
            let pages: [Content.Page], links: DocumentLinks
            do {
                (pages, links) = try arguments.layOut(document, declared: PixelSize(width: declared.width, height: declared.height))
            } catch {
                throw ContentError(path: path, reason: .documentFailed(error.message))
            }
            let rendered = try RenderedDocument(path: path, declared: declared, pool: pool, session: session)
            return (rendered, pages, links)
        default:
            throw ContentError(path: path, reason: .documentFailed("flickd-render began with '\(line.prefix(80))', not provide"))
        }
    }

    private init(path: String, declared: ControlCommand.Provide, pool fd: Descriptor, session: sending Session) throws {
        let pool: SharedTilePool
        do {
            pool = try SharedTilePool(fd: fd.rawValue, slots: declared.slots, tileSize: declared.tileSize)
        } catch {
            throw ContentError(path: path, reason: .documentFailed("flickd-render's pool: \(error)"))
        }
        // The daemon's provider content, so the grid and the requests are the daemon's.
        guard let source = ProviderSource(name: path, size: PixelSize(width: declared.width, height: declared.height),
                                          detail: declared.detail, tileSize: declared.tileSize, opaque: declared.opaque,
                                          background: declared.background.map { Color(rgb: $0) }),
              let provider = TileProvider(grid: source.grid, contentScale: source.contentScale, pool: pool,
                                          format: declared.opaque ? .xrgb8888 : .argb8888, timeout: session.wait,
                                          clock: { Instant.monotonicNow() }) else {
            throw ContentError(path: path, reason: .documentFailed(
                "flickd-render declared \(declared.width)x\(declared.height) in \(declared.tileSize) px tiles, which cannot be shown"))
        }
        grid = source.grid
        isOpaque = source.isOpaque
        name = path
        background = source.background
        contentScale = source.contentScale
        try session.serve(provider, path: path)
        self.session = Mutex(session)
    }

    func tile(_ key: TileKey) throws -> PixelBuffer {
        let result = session.withLock { $0.draw(key) }
        switch result {
        case .success(let tile): return tile
        // Named by the document, not the tile: a helper that stops is said once, not per tile.
        case .failure(let why): throw ContentError(path: name, reason: .documentFailed("tile \(key): \(why)"))
        }
    }

    func takeLinks() -> [(page: Int, links: [DocumentLink])] {
        session.withLock { $0.takeLinks() }
    }

    /// Why a tile was not drawn.
    private struct Broken: Error, CustomStringConvertible {
        var description: String
    }

    /// The helper's process and connection, and the one request waiting.
    private final class Session {
        let process: RenderProcess
        let socket: Descriptor
        let wait: Duration
        private var provider: TileProvider?
        private var input: [UInt8] = []
        private var sent: Int?
        private var broken: String?
        /// The helper's `links` lines not taken yet.
        private var links: [(page: Int, links: [DocumentLink])] = []

        init(process: RenderProcess, socket: Descriptor, wait: Duration) {
            self.process = process
            self.socket = socket
            self.wait = wait
        }

        /// The helper's first line and the file passed with it (its pool, with `provide`).
        func firstLine(path: String, within limit: Duration) throws -> (line: [UInt8], file: Descriptor?) {
            var files: [Int32] = []
            defer { files.dropFirst().forEach { close($0) } }
            let deadline = Instant.monotonicNow() + limit
            while true {
                if let newline = input.firstIndex(of: 0x0A) {
                    let line = Array(input[..<newline])
                    input.removeFirst(newline + 1)
                    return (line, files.first.map(Descriptor.init(owning:)))
                }
                guard readSome(until: deadline, files: &files) else {
                    if let file = files.first { close(file) }
                    files.removeAll()
                    throw ContentError(path: path, reason: .documentFailed(broken ?? "flickd-render said nothing"))
                }
            }
        }

        /// Answers the helper's `provide` as the daemon does, and serves from now on.
        func serve(_ provider: TileProvider, path: String) throws {
            provider.send = { [unowned self] message in self.send(message) }
            self.provider = provider
            let reply = Array(ControlMessage.reply(id: 1).line())
            do {
                try writeWhole(reply, to: socket.rawValue, context: "flickd-render's connection")
            } catch {
                throw ContentError(path: path, reason: .documentFailed("flickd-render's connection: \(error.message)"))
            }
        }

        /// Asks the helper for `key` and waits for its answer.
        func draw(_ key: TileKey) -> Result<PixelBuffer, Broken> {
            guard let provider else { return .failure(Broken(description: "flickd-render is not serving")) }
            if let broken { return .failure(Broken(description: broken)) }
            sent = nil
            provider.want([key])
            guard let id = sent else { return .failure(Broken(description: "no such tile in the document")) }
            let deadline = Instant.monotonicNow() + wait
            var files: [Int32] = []
            while provider.isOutstanding(id) {
                while let newline = input.firstIndex(of: 0x0A) {
                    let line = input[..<newline]
                    defer { input.removeFirst(newline + 1) }
                    let command = try? ControlCommand(ControlRequest.decode(line))
                    if case let .links(page, found)? = command { links.append((page, found)) }
                    guard case let .tile(request, drawn)? = command else { continue }
                    do {
                        try provider.answer(request, drawn: drawn)
                    } catch {
                        broken = "flickd-render answered a tile it was not asked for (\(error))"
                    }
                }
                if let broken { return .failure(Broken(description: broken)) }
                guard provider.isOutstanding(id) else { break }
                guard readSome(until: deadline, files: &files) else {
                    files.forEach { close($0) }
                    return .failure(Broken(description: broken ?? "flickd-render is stuck"))
                }
                files.forEach { close($0) }
                files.removeAll()
            }
            provider.want([])
            guard let arrival = provider.takeArrivals().first(where: { $0.key == key }), case .success(let tile) = arrival.result else {
                return .failure(Broken(description: "flickd-render answered without drawing it"))
            }
            return .success(tile)
        }

        func takeLinks() -> [(page: Int, links: [DocumentLink])] {
            defer { links.removeAll() }
            return links
        }

        private func send(_ message: TileProvider.Message) {
            if case .request(let request) = message { sent = request.id }
            do {
                try writeWhole(Array(message.controlMessage.line()), to: socket.rawValue, context: "flickd-render's connection")
            } catch {
                broken = "its connection: \(error.message)"
            }
        }

        /// Reads what the helper sent by `deadline`; false, with `broken` said, when nothing can
        /// come any more.
        private func readSome(until deadline: Instant, files: inout [Int32]) -> Bool {
            let left = deadline - Instant.monotonicNow()
            guard left > .zero else {
                broken = "flickd-render drew nothing within \(wait.inSeconds.brief) s (content.provider_timeout_ms × \(TileProvider.maxTurns))"
                return false
            }
            var poller = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left / .milliseconds(1) + 1, 60_000)))
            if ready < 0 && errno == EINTR { return true }
            guard ready > 0 else { return true }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = receiveWithFiles(on: socket.rawValue, into: &chunk, files: &files)
            if n < 0 && errno == EINTR { return true }
            guard n > 0 else {
                broken = n == 0 ? "flickd-render closed its connection" : "reading its connection: \(SystemError.current("recvmsg", "flickd-render").message)"
                return false
            }
            input += chunk[..<n]
            return true
        }
    }
}
