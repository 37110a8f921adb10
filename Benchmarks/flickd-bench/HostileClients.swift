import FlickTestSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Issue 9's hostile control clients, played as `HostileClientTests` plays them
/// (`HostileAttack`): a 10 MB line, then a wave of 1000 connections at once every 0.3 s. It runs
/// on a thread of its own and is switched on and off by the measuring thread, so attack windows
/// can alternate with calm ones.
final class HostileClients: Sendable {
    private struct State {
        /// Whether the measuring thread wants an attack now.
        var wanted = false
        /// Whether the attacker holds connections open (a wave, the long line).
        var attacking = false
        var finished = false
        /// Connections opened (the backlog's refusals not counted) and waves played.
        var opened = 0, waves = 0
        /// How far each attack's 10 MB line got before the daemon hung up, bytes.
        var lineCut: [Int] = []
    }

    let path: String
    private let state = Mutex(State())

    init(path: String) {
        self.path = path
        Thread { [self] in self.run() }.start()
    }

    /// Connections opened so far.
    var opened: Int { state.withLock { $0.opened } }
    var waves: Int { state.withLock { $0.waves } }
    /// Bytes of the 10 MB line written before the daemon hung up, one per attack.
    var lineCut: [Int] { state.withLock { $0.lineCut } }

    /// Starts an attack: the long line at once, then the waves.
    func begin() {
        state.withLock { $0.wanted = true }
    }

    /// Stops the attack and returns once every connection of it is closed, so the calm window
    /// after it starts with nothing of the attack left but what the daemon still has to read.
    func end() {
        state.withLock { $0.wanted = false }
        while state.withLock({ $0.attacking }) { usleep(1000) }
    }

    /// Ends the thread (after `end`).
    func finish() {
        end()
        state.withLock { $0.finished = true }
    }

    private func run() {
        while true {
            // Seeing the wish and marking the attack happen under one lock, so `end` cannot
            // return between them.
            let (go, finished) = state.withLock { s in
                if s.wanted { s.attacking = true }
                return (s.wanted, s.finished)
            }
            if finished { return }
            guard go else {
                usleep(2000)
                continue
            }
            let cut = HostileAttack.hugeLine(path)
            state.withLock { $0.lineCut.append(cut) }
            while state.withLock({ $0.wanted }) {
                let fds = HostileAttack.wave(path, count: 1000)
                state.withLock { $0.opened += fds.count; $0.waves += 1 }
                // Held 0.3 s as in the test, in slices so the attack stops when it is told to.
                var held = 0
                while held < 30, state.withLock({ $0.wanted }) { usleep(10_000); held += 1 }
                fds.forEach { close($0) }
            }
            state.withLock { $0.attacking = false }
        }
    }
}
