import CMemfd
import FlickControl
import FlickCore
import FlickDaemon
import FlickDisplay
import Glibc

/// A content provider that comes and goes: it declares its content with the protocol's own
/// `provide` line (decoded by `ControlRequest` and `ControlCommand` as the control socket
/// decodes it), hands over a sealed memfd pool as the socket would, answers each tile request
/// 5 ms after it came, and dies (its connection gone, `ContentHost.disconnected`) until it
/// starts again. What stands in for the socket is this link: the soak runs in one process.
final class ProviderApp: ProviderLink {
    let caller = ControlServer.Caller(id: 7)
    private var due: [(at: Instant, id: Int)] = []
    private(set) var connected = false
    private(set) var sessions = 0
    private(set) var answered = 0
    static let tileSize = 64, slots = 16

    func send(_ message: TileProvider.Message, to caller: ControlServer.Caller) {
        switch message {
        case .request(let r): due.append((clock() + .milliseconds(5), r.id))
        case .cancel(let id): due.removeAll { $0.id == id }
        }
    }

    func subscribe(_ caller: ControlServer.Caller, to types: Set<String>) {}

    var clock: () -> Instant = { .zero }

    /// When the next answer goes.
    var nextDeadline: Instant? { due.map(\.at).min() }

    /// Connects and provides a 2000×6000 content; the pool's descriptor is the host's to keep
    /// (the socket passes a copy and closes its own).
    func connect(to host: ContentHost) throws {
        let bytes = Self.slots * Self.tileSize * Self.tileSize * 4
        let fd = flickd_memfd_create("soak-provider", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        guard fd >= 0 else { throw SoakFailure("memfd_create failed: errno \(errno)") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(bytes)) == 0, flickd_add_seals(fd, F_SEAL_SHRINK) == 0 else {
            throw SoakFailure("the pool cannot be made: errno \(errno)")
        }
        let line = #"{"id": 1, "cmd": "provide", "name": "soak", "width": 2000, "height": 6000, "tileSize": \#(Self.tileSize), "slots": \#(Self.slots)}"#
        let request = try ControlRequest.decode(Array(line.utf8))
        guard case .provide(let declared) = try ControlCommand(request) else { throw SoakFailure("provide line not a provide") }
        host.link = self
        _ = try host.provide(declared, pool: fd, caller: caller)
        connected = true
        sessions += 1
    }

    /// The app dies: its connection goes, its requests with it.
    func die(in host: ContentHost) {
        host.disconnected(caller)
        due.removeAll()
        connected = false
    }

    /// Answers what is due at `t`; true when any was.
    func answer(at t: Instant, host: ContentHost) -> Bool {
        let now = due.filter { $0.at <= t }
        guard !now.isEmpty else { return false }
        due.removeAll { $0.at <= t }
        for answer in now {
            // A refusal is the host's to count; the app goes on.
            try? host.answerTile(answer.id, drawn: true, caller: caller)
            answered += 1
        }
        return true
    }
}

/// A broken bound or invariant, said as the soak reports it.
struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
