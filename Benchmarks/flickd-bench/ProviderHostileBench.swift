import CMemfd
import FlickControl
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Section 11's second half (issue 23, for RELIABILITY.md): hostile and broken content
/// providers against one real daemon scrolling on the headless display, as item 7 plays hostile
/// control clients. Per attack, calm and attack windows of 1 s alternate; each attack window is
/// compared with the calm one just before it. A well-formed client asks `status` every 50 ms; the
/// rate is the rise of `frames` over the intervals where the view scrolled the same content at
/// both ends (a provider that comes or goes shows its content from its home position, which
/// stops the scroll: the client starts it again, and those intervals are left out; the switch
/// itself is timed apart). RSS, open files and memfd mappings are read before and after each attack.
enum ProviderHostileBench {
    static let window = 1.0, leadIn = 0.3, settle = 0.2

    /// What one window saw.
    struct Window {
        var framesPerSecond = Double.nan
        var seconds = 0.0
        var asked = 0, answered = 0
        /// The daemon's event-loop thread: on a CPU, and runnable but waiting for one, % of the window.
        var loopCPU = Double.nan, loopWaiting = Double.nan
        /// Tiles the provider answered drawn a second (`status.provider.drawn`), when one is connected.
        var tilesPerSecond = Double.nan
        /// The loop thread's CPU time per tile answered, µs: the cost of the work, where the
        /// share of a CPU also follows how many tiles the app draws (how fast it answers).
        var loopMicrosecondsPerTile: Double { tilesPerSecond > 0 ? loopCPU * 1e4 / tilesPerSecond : .nan }
    }

    /// The daemon, its client, and what the attacks share.
    final class Rig {
        let daemon: DaemonProcess
        let poller: StatusPoller
        /// What the daemon shows with no provider (`status.content`).
        let configured: String
        private var logOffset = 0

        init(daemon: DaemonProcess, poller: StatusPoller, configured: String) {
            self.daemon = daemon
            self.poller = poller
            self.configured = configured
        }

        /// Starts the 40 s scroll again when the view rests (it ended, or new content came).
        func rescroll(_ status: ControlStatus? = nil) {
            guard let s = status ?? poller.status(), !s.scrolling else { return }
            _ = poller.call(ControlRequest(cmd: "set-offset", x: 0, y: s.offset[1] < 1500 ? 3000 : 0, animated: true))
        }

        /// Waits until the configured content shows again (a provider went); ms waited, or nil.
        func waitForConfigured(seconds: Double = 5) -> Double? {
            let t0 = monotonicNanoseconds()
            guard poller.waitFor(seconds: seconds, { $0.content == self.configured }) != nil else { return nil }
            return Double(monotonicNanoseconds() - t0) / 1e6
        }

        /// Waits until provider `name`'s content shows.
        func waitForProvider(_ name: String, seconds: Double = 5) -> Bool {
            poller.waitFor(seconds: seconds) { $0.content == "provider \(name)" } != nil
        }

        /// The daemon's log lines written since the last call.
        func newLogLines() -> [String] {
            guard let data = FileManager.default.contents(atPath: daemon.logPath) else { return [] }
            let fresh = data.count > logOffset ? data[logOffset...] : Data()
            logOffset = data.count
            return String(decoding: fresh, as: UTF8.self).split(separator: "\n").map(String.init)
        }

        /// Open files of the daemon, and its mappings of memfds (a provider's pool).
        var openFiles: Int { ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd")) ?? []).count }
        var memfdMappings: Int {
            let maps = (try? String(contentsOfFile: "/proc/\(daemon.pid)/maps", encoding: .utf8)) ?? ""
            return maps.split(separator: "\n").filter { $0.contains("/memfd:") }.count
        }
        var rssKiB: Int { daemon.counters.rss }

        /// One window: `status` every 50 ms, `tick` (the attack's) before each.
        func measure(_ tick: ((Double) -> Void)? = nil) -> Window {
            var result = Window()
            var samples: [StatusPoller.Sample] = []
            let t0 = monotonicNanoseconds(), end = t0 + Int64(window * 1e9)
            let asked = poller.asked, answered = poller.answered
            let times = SchedTimes(pid: daemon.pid)
            repeat {
                tick?(Double(monotonicNanoseconds() - t0) / 1e9)
                if let s = poller.sample() {
                    samples.append(s)
                    if !s.status.scrolling { rescroll(s.status) }
                }
                usleep(50_000)
            } while monotonicNanoseconds() < end
            (result.framesPerSecond, result.seconds, _) = StatusPoller.movingRate(samples)
            let shares = SchedTimes(pid: daemon.pid).shares(since: times)
            (result.loopCPU, result.loopWaiting) = (shares.loopCPU, shares.loopWaiting)
            result.asked = poller.asked - asked
            result.answered = poller.answered - answered
            let drawn = samples.compactMap { s in s.status.provider?.drawn.map { (at: s.at, drawn: $0) } }
            if let first = drawn.first, let last = drawn.last, last.at > first.at {
                result.tilesPerSecond = Double(last.drawn - first.drawn) / (Double(last.at - first.at) / 1e9)
            }
            return result
        }
    }

    /// Runs the attacks (those whose key is in `only`, when given) against one daemon.
    static func run(flickd: String, pairs: Int, only: Set<String>? = nil) throws {
        let daemon = try DaemonProcess(binary: flickd, directory: DaemonBench.directory, tag: "provider-hostile", content: nil,
                                       config: "[scroll]\nanimation_duration = 40\nanimation_curve = \"linear\"\n")
        defer { daemon.stop() }
        _ = try daemon.waitReady(timeout: 30)
        let poller = StatusPoller(path: daemon.socketPath)
        guard let first = poller.status(), let configured = first.content else { throw RigError("no status (see \(daemon.logPath))") }
        let rig = Rig(daemon: daemon, poller: poller, configured: configured)
        rig.rescroll(first)
        usleep(500_000)
        _ = rig.newLogLines()
        let start = (rss: rig.rssKiB, files: rig.openFiles, memfds: rig.memfdMappings, status: poller.status())
        print("one daemon (configured content: \(configured)), a 40 s linear scroll started again whenever it rests; "
              + "\(pairs) pairs of \(fmt(window, 0)) s windows per attack, calm then attack")

        let attacks: [ProviderAttack] = [
            BadPoolAttack(.notMemfd, path: daemon.socketPath), BadPoolAttack(.unsealed, path: daemon.socketPath),
            BadPoolAttack(.wrongSize, path: daemon.socketPath), InvalidationFlood(), KilledProvider(), DeafProvider(),
        ]
        for attack in attacks where only?.contains(attack.key) ?? true {
            print("(\(attack.key)) \(attack.title)")
            let before = (rss: rig.rssKiB, files: rig.openFiles)
            var calm: [Window] = [], stormy: [Window] = []
            var rssAttacked = 0
            do {
                for _ in 0..<pairs {
                    try attack.prepare(rig)
                    calm.append(rig.measure())
                    try attack.begin(rig)
                    usleep(UInt32(leadIn * 1e6))
                    stormy.append(rig.measure { attack.tick(rig, elapsed: $0) })
                    rssAttacked = max(rssAttacked, rig.rssKiB)
                    attack.end(rig)
                    usleep(UInt32(settle * 1e6))
                }
            } catch {
                print("  stopped: \(error)")
                attack.end(rig)
            }
            attack.finish(rig)
            _ = rig.waitForConfigured()
            usleep(300_000)
            let log = rig.newLogLines()
            let after = (rss: rig.rssKiB, files: rig.openFiles)

            let paired = zip(calm, stormy).filter { $0.framesPerSecond > 0 && $1.framesPerSecond.isFinite }
            let calmRate = Stats(samples: paired.map(\.0.framesPerSecond)), stormyRate = Stats(samples: paired.map(\.1.framesPerSecond))
            let ratios = Stats(samples: paired.map { $1.framesPerSecond / $0.framesPerSecond })
            print("  calm    \(calmRate.summary("frames/s"))")
            print("  attack  \(stormyRate.summary("frames/s")) (moving \(fmt(Stats(samples: stormy.map(\.seconds)).median, 2)) s "
                  + "of each 1 s window, median)")
            print("  paired ratios attack/calm: median ×\(fmt(ratios.median, 3)) (×\(fmt(ratios.min, 3))–\(fmt(ratios.max, 3)), "
                  + "n \(ratios.samples.count))")
            func median(_ w: [Window], _ k: KeyPath<Window, Double>) -> String {
                fmt(Stats(samples: w.map { $0[keyPath: k] }.filter(\.isFinite)).median)
            }
            print("  the daemon's event-loop thread, calm → attack (medians): on a CPU \(median(calm, \.loopCPU)) → "
                  + "\(median(stormy, \.loopCPU)) %, waiting for a CPU \(median(calm, \.loopWaiting)) → \(median(stormy, \.loopWaiting)) %")
            if stormy.contains(where: { $0.tilesPerSecond > 0 }) {
                print("  tiles the provider drew, calm → attack (medians): \(median(calm, \.tilesPerSecond)) → "
                      + "\(median(stormy, \.tilesPerSecond)) a second; the loop thread's CPU per tile in the attack: "
                      + "\(median(stormy, \.loopMicrosecondsPerTile)) µs")
            }
            for line in attack.figures { print("  \(line)") }
            print("  daemon RSS \(before.rss) KiB before, at most \(rssAttacked) KiB at the end of an attack window, \(after.rss) KiB after; "
                  + "open files \(before.files) → \(after.files)")
            print("  daemon log during it: \(log.count) lines" + (log.isEmpty ? "" : ":"))
            for (line, count) in summarize(log) { print("    \(count) × \(line)") }
            let asked = stormy.map(\.asked).reduce(0, +), answered = stormy.map(\.answered).reduce(0, +)
            Verdicts.check("hostile provider (\(attack.key)): frame rate within 5 % of undisturbed (median of paired windows)",
                           !paired.isEmpty && abs(ratios.median - 1) <= 0.05 && calmRate.median > 50,
                           "×\(fmt(ratios.median, 3)), calm \(fmt(calmRate.median)) frames/s (n \(paired.count)); "
                           + "\(answered) of \(asked) status answered during the attack")
            for (name, passed, detail) in attack.checks(log: log) {
                Verdicts.check("hostile provider (\(attack.key)): \(name)", passed, detail)
            }
        }

        // Memory and files after every attack, the configured content showing again.
        usleep(500_000)
        let end = (rss: rig.rssKiB, files: rig.openFiles, memfds: rig.memfdMappings, status: poller.status())
        func content(_ s: ControlStatus?) -> Double { Double((s?.tiles?.cacheBytes ?? 0) + (s?.tiles?.bandBytes ?? 0)) / mib }
        let beyondStart = Double(start.rss) / 1024 - content(start.status), beyondEnd = Double(end.rss) / 1024 - content(end.status)
        print("after all attacks: RSS \(fmt(Double(start.rss) / 1024)) → \(fmt(Double(end.rss) / 1024)) MiB (beyond the content's tiles "
              + "and band: \(fmt(beyondStart)) → \(fmt(beyondEnd)) MiB); open files \(start.files) → \(end.files); memfd mappings "
              + "\(start.memfds) → \(end.memfds); content \(end.status?.content ?? "?")")
        Verdicts.check("hostile providers: RSS ≤ 24 MiB beyond the content after every attack", beyondEnd <= 24,
                       "\(fmt(beyondEnd)) MiB (\(fmt(beyondStart)) before)")
        Verdicts.check("hostile providers: no file or pool mapping left behind", end.files == start.files && end.memfds == 0,
                       "open files \(start.files) → \(end.files), memfd mappings \(end.memfds)")
    }

    /// Log lines grouped with their numbers blanked, most frequent first (at most 6).
    static func summarize(_ lines: [String]) -> [(String, Int)] {
        var counts: [String: Int] = [:], order: [String] = []
        for line in lines {
            // The log handler's time stamp and level go; the message stays.
            var text = line
            if let r = text.range(of: "flickd") ?? text.range(of: "content provider") { text = String(text[r.lowerBound...]) }
            let key = String(text.map { $0.isNumber ? "#" : $0 }).replacingOccurrences(of: "##", with: "#", options: [])
            let squeezed = key.replacingOccurrences(of: "#+", with: "N", options: .regularExpression)
            if counts[squeezed] == nil { order.append(squeezed) }
            counts[squeezed, default: 0] += 1
        }
        return order.map { ($0, counts[$0]!) }.sorted { $0.1 > $1.1 }.prefix(6).map { $0 }
    }
}

/// One hostile or broken provider.
protocol ProviderAttack: AnyObject {
    var key: String { get }
    var title: String { get }
    /// Before each calm window: what it needs.
    func prepare(_ rig: ProviderHostileBench.Rig) throws
    /// The attack's start, `leadIn` before its window opens.
    func begin(_ rig: ProviderHostileBench.Rig) throws
    /// During the attack window, before each `status`: seconds since it opened.
    func tick(_ rig: ProviderHostileBench.Rig, elapsed: Double)
    /// Stops the attack: nothing of it is left but what the daemon still has to do.
    func end(_ rig: ProviderHostileBench.Rig)
    /// After the last pair.
    func finish(_ rig: ProviderHostileBench.Rig)
    /// What it did and what the daemon answered, for the report.
    var figures: [String] { get }
    /// Its verdicts, given the daemon's log lines during it.
    func checks(log: [String]) -> [(String, Bool, String)]
}

extension ProviderAttack {
    func prepare(_ rig: ProviderHostileBench.Rig) throws {}
    func tick(_ rig: ProviderHostileBench.Rig, elapsed: Double) {}
    func finish(_ rig: ProviderHostileBench.Rig) {}
}

/// The pool of a provider declared as the attacks declare it.
private enum Declared {
    static let slots = 16, tileSize = 256
    static let bytes = slots * tileSize * tileSize * 4

    static func provide(id: Int, name: String) -> String {
        "{\"id\":\(id),\"cmd\":\"provide\",\"width\":7680,\"height\":200000,\"tileSize\":\(tileSize),\"slots\":\(slots),\"name\":\"\(name)\"}"
    }
}

/// (a), (b), (c): `provide` with a pool the daemon must refuse, as fast as it answers, on a thread
/// of its own: an fd that is not a memfd, a memfd that can still shrink, a sealed memfd of the wrong size.
final class BadPoolAttack: ProviderAttack, @unchecked Sendable {
    enum Kind { case notMemfd, unsealed, wrongSize }

    private struct State {
        var wanted = false, attacking = false, finished = false
        var attempts = 0, accepted = 0
        /// Per pool kind: the daemon's answers, by text.
        var answers: [String: [String: Int]] = [:]
        /// The shrink after the pass (unsealed pools): ftruncate to 0 after the refusal, which the kernel allows.
        var shrunk = 0, shrinkFailed = 0
    }

    let kind: Kind
    let path: String
    private let state = Mutex(State())
    /// (b) only: what the kernel did with a sealed pool that was accepted.
    private var sealedDemo: [String] = []
    private var sealedRefused = false, sealedDrew = false
    private var demoDone = false

    init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
        Thread { [self] in self.run() }.start()
    }

    var key: String {
        switch kind {
        case .notMemfd: "a"
        case .unsealed: "b"
        case .wrongSize: "c"
        }
    }

    var title: String {
        switch kind {
        case .notMemfd: "provide with an fd that is not a memfd (a file on disk, a pipe, /dev/zero, a socket, an O_PATH fd, a tmpfs file), as fast as answered"
        case .unsealed: "provide with a memfd that can still shrink (no seals, F_SEAL_GROW only, F_SEAL_SEAL only, no MFD_ALLOW_SEALING), "
            + "then ftruncate(0) after the pass; and a sealed pool shrunk after it was accepted"
        case .wrongSize: "provide with a sealed memfd of the wrong size (0, −1 byte, −1 slot, +4 KiB, ×2, ×64), as fast as answered"
        }
    }

    func prepare(_ rig: ProviderHostileBench.Rig) throws {
        guard kind == .unsealed, !demoDone else { return }
        demoDone = true
        // The shrink-after-pass attack on a pool the daemon accepted: the seal makes the kernel
        // refuse it, and the daemon keeps drawing from the pool.
        let provider = try BenchProvider(path: path, declaration: .init(name: "sealed-b"))
        guard rig.waitForProvider("sealed-b") else { throw RigError("the sealed pool's provider was not shown") }
        _ = rig.poller.settle(seconds: 5, after: nil)
        let drawnBefore = rig.poller.status()?.provider?.drawn ?? 0
        let shrink = provider.truncatePool(to: 0), shrinkByOne = provider.truncatePool(to: Declared.bytes - 1)
        let grow = provider.truncatePool(to: Declared.bytes * 2)
        sealedRefused = shrink.rc != 0 && shrink.errno == EPERM && shrinkByOne.rc != 0
        sealedDemo.append("sealed pool (F_SEAL_SHRINK | F_SEAL_GROW) accepted, then shrunk by the app: ftruncate(0) → "
                          + "\(shrink.rc == 0 ? "0 (allowed!)" : "−1 \(String(cString: strerror(shrink.errno)))"), ftruncate(size − 1) → "
                          + "\(shrinkByOne.rc == 0 ? "0 (allowed!)" : "−1 \(String(cString: strerror(shrinkByOne.errno)))"), ftruncate(2 × size) → "
                          + "\(grow.rc == 0 ? "0" : "−1 \(String(cString: strerror(grow.errno)))")")
        _ = rig.poller.jump([ControlRequest(cmd: "set-offset", x: 1920, y: 8000, animated: false)])
        let drawnAfter = rig.poller.status()?.provider?.drawn ?? 0
        sealedDrew = drawnAfter > drawnBefore && kill(rig.daemon.pid, 0) == 0
        sealedDemo.append("the daemon drew \(drawnAfter - drawnBefore) more tiles from that pool afterwards (a jump), alive")
        provider.stop()
        _ = rig.waitForConfigured()
        rig.rescroll()
    }

    func begin(_ rig: ProviderHostileBench.Rig) throws { state.withLock { $0.wanted = true } }

    func end(_ rig: ProviderHostileBench.Rig) {
        state.withLock { $0.wanted = false }
        while state.withLock({ $0.attacking }) { usleep(1000) }
    }

    func finish(_ rig: ProviderHostileBench.Rig) {
        end(rig)
        state.withLock { $0.finished = true }
    }

    var figures: [String] {
        let s = state.withLock { $0 }
        var lines = sealedDemo
        lines.append("\(s.attempts) provides, \(s.accepted) accepted" + (kind == .unsealed
            ? "; shrunk to 0 after the refusal: \(s.shrunk) (the kernel allows it: unsealed), refused \(s.shrinkFailed)" : ""))
        for (label, answers) in s.answers.sorted(by: { $0.key < $1.key }) {
            let text = answers.sorted { $0.value > $1.value }.map { "\"\($0.key)\" × \($0.value)" }.joined(separator: "; ")
            lines.append("\(label): \(text)")
        }
        return lines
    }

    func checks(log: [String]) -> [(String, Bool, String)] {
        let s = state.withLock { $0 }
        var out: [(String, Bool, String)] = []
        let expected: String
        switch kind {
        case .notMemfd: expected = "every provide with an fd that is not a memfd refused"
        case .unsealed: expected = "every provide with a pool that can shrink refused"
        case .wrongSize: expected = "every provide with a pool of the wrong size refused"
        }
        out.append((expected, s.attempts > 0 && s.accepted == 0, "\(s.attempts - s.accepted) of \(s.attempts) refused"))
        if kind == .unsealed {
            out.append(("the kernel refuses to shrink a sealed pool after it was passed; the daemon draws on from it",
                        sealedRefused && sealedDrew, sealedDemo.first ?? "not run"))
        }
        return out
    }

    /// A pool for attempt `i`: the fd (closed by the caller), its label, and the size passed.
    private func pool(_ i: Int) -> (fd: Int32, label: String)? {
        let size = Declared.bytes
        switch kind {
        case .notMemfd:
            switch i % 6 {
            case 0:
                let path = DaemonBench.directory + "/not-a-memfd.bin"
                let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                if fd >= 0 { _ = ftruncate(fd, off_t(size)) }
                return fd < 0 ? nil : (fd, "a file on disk of the pool's size")
            case 1:
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else { return nil }
                close(fds[1])
                return (fds[0], "a pipe")
            case 2:
                let fd = open("/dev/zero", O_RDWR | O_CLOEXEC)
                return fd < 0 ? nil : (fd, "/dev/zero")
            case 3:
                var fds: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return nil }
                close(fds[1])
                return (fds[0], "a socket")
            case 4:
                let fd = open(DaemonBench.directory, O_PATH | O_CLOEXEC)
                return fd < 0 ? nil : (fd, "an O_PATH fd")
            default:
                // A tmpfs file is shmem like a memfd, but never sealed.
                let path = "/dev/shm/flickd-bench-\(getpid())"
                let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard fd >= 0 else { return nil }
                unlink(path)
                _ = ftruncate(fd, off_t(size))
                return (fd, "a tmpfs file (/dev/shm) of the pool's size")
            }
        case .unsealed:
            let (flags, seals, label): (UInt32, Int32, String) = switch i % 4 {
            case 0: (UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING), 0, "a memfd, no seals")
            case 1: (UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING), F_SEAL_GROW, "a memfd sealed with F_SEAL_GROW only")
            case 2: (UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING), F_SEAL_SEAL, "a memfd sealed with F_SEAL_SEAL only")
            default: (UInt32(MFD_CLOEXEC), 0, "a memfd without MFD_ALLOW_SEALING")
            }
            let fd = flickd_memfd_create("hostile-b", flags)
            guard fd >= 0, ftruncate(fd, off_t(size)) == 0 else { return nil }
            if seals != 0 { _ = flickd_add_seals(fd, seals) }
            return (fd, label)
        case .wrongSize:
            let sizes = [(0, "0 bytes"), (size - 1, "1 byte short"), (size - size / Declared.slots, "one slot short"),
                         (size + 4096, "4 KiB over"), (size * 2, "twice the size"), (size * 64, "64 × the size (sparse)")]
            let (bytes, label) = sizes[i % sizes.count]
            let fd = flickd_memfd_create("hostile-c", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
            guard fd >= 0, ftruncate(fd, off_t(bytes)) == 0 else { return nil }
            _ = flickd_add_seals(fd, F_SEAL_SHRINK | F_SEAL_GROW)
            return (fd, "a sealed memfd \(label)")
        }
    }

    private func run() {
        var connection: RawConnection?
        var i = 0
        while true {
            let (go, finished) = state.withLock { s in
                if s.wanted { s.attacking = true }
                return (s.wanted, s.finished)
            }
            if finished { return }
            guard go else {
                usleep(2000)
                continue
            }
            while state.withLock({ $0.wanted }) {
                if connection == nil { connection = try? RawConnection(path: path) }
                guard let c = connection, let (fd, label) = pool(i) else {
                    usleep(10_000)
                    continue
                }
                i += 1
                let sent = c.write(Declared.provide(id: i, name: "hostile-\(key)"), passing: fd)
                let reply = sent ? c.waitLine(timeout: 2) { $0.contains("\"id\":\(i),") } : nil
                var shrunk = false
                if kind == .unsealed { shrunk = ftruncate(fd, 0) == 0 }
                close(fd)
                guard let reply else {
                    connection = nil
                    continue
                }
                let message = try? JSONDecoder().decode(ControlMessage.self, from: Data(reply.utf8))
                state.withLock { s in
                    s.attempts += 1
                    if message?.ok == true { s.accepted += 1 }
                    s.answers[label, default: [:]][message?.error ?? (message?.ok == true ? "accepted" : reply), default: 0] += 1
                    if kind == .unsealed { if shrunk { s.shrunk += 1 } else { s.shrinkFailed += 1 } }
                }
                if message?.ok == true {
                    // Accepted by mistake: hang up so the next attempt is not refused as a second provider.
                    connection = nil
                }
            }
            connection = nil
            state.withLock { $0.attacking = false }
        }
    }
}

/// (d): a provider that draws on request (calm windows) and sends 10 000 `invalidate`s a second
/// (attack windows), each a 512×64 rectangle at random where the scroll goes.
final class InvalidationFlood: ProviderAttack {
    let key = "d", rate = 10_000.0
    var title: String { "10 000 invalidations a second from a provider drawing on request (512×64 at random over the scrolled area)" }
    private var provider: BenchProvider?
    private var sentBefore = 0, attackSeconds = 0.0, began: Int64 = 0
    private var lines: [String] = []
    private var hungUp = false, counted = 0, sent = 0, errors: [String: Int] = [:]

    func prepare(_ rig: ProviderHostileBench.Rig) throws {
        guard provider == nil else { return }
        let p = try BenchProvider(path: rig.daemon.socketPath, declaration: .init(name: "flood-d"))
        guard rig.waitForProvider("flood-d") else { throw RigError("the provider's content was not shown") }
        provider = p
        rig.rescroll()
        usleep(300_000)
    }

    func begin(_ rig: ProviderHostileBench.Rig) throws {
        began = monotonicNanoseconds()
        provider?.invalidate(perSecond: rate)
    }

    func end(_ rig: ProviderHostileBench.Rig) {
        provider?.invalidate(perSecond: 0)
        if began > 0 { attackSeconds += Double(monotonicNanoseconds() - began) / 1e9 }
        began = 0
    }

    func finish(_ rig: ProviderHostileBench.Rig) {
        guard let p = provider else { return }
        usleep(200_000)
        let status = rig.poller.status()?.provider
        counted = status?.invalidations ?? 0
        sent = p.invalidationsSent
        hungUp = p.hungUp
        errors = p.errors
        lines.append("\(sent) invalidations sent in \(fmt(attackSeconds, 1)) s of attack (\(fmt(Double(sent) / max(attackSeconds, 1e-9), 0))/s), "
                     + "\(counted) counted by the daemon; tiles drawn \(status?.drawn ?? 0) (\(p.drawn) answered), cancelled "
                     + "\(status?.cancelled ?? 0), timed out \(status?.timeouts ?? 0); error answers \(errors.values.reduce(0, +)); "
                     + "request → presented p50 \(fmt(status?.presentedP50Ms ?? .nan)) ms, p99 \(fmt(status?.presentedP99Ms ?? .nan)) ms; "
                     + "answered tiles copied over their old pixels \(status?.tilesOverwritten ?? 0), into kept buffers "
                     + "\(status?.tilesIntoKeptBuffers ?? 0), into new buffers \(status?.tilesIntoNewBuffers ?? 0); "
                     + "changed tiles that waited their turn (content.provider_redraw_hz) \(status?.redrawsDeferred.map(String.init) ?? "n/a")")
        p.stop()
        provider = nil
    }

    var figures: [String] { lines }

    func checks(log: [String]) -> [(String, Bool, String)] {
        [("the provider is served throughout (never dropped, every invalidation counted, no error answer)",
          !hungUp && sent > 0 && counted == sent && errors.isEmpty,
          "\(counted) of \(sent) counted, \(errors.values.reduce(0, +)) errors, \(hungUp ? "dropped" : "connected")")]
    }
}

/// (e): a provider in a child process that provides, takes requests and never answers, killed
/// (SIGKILL) 0.2 s into the attack window with requests outstanding.
final class KilledProvider: ProviderAttack {
    let key = "e"
    var title: String { "a provider (a child process) SIGKILLed with requests outstanding, 0.2 s into each attack window" }
    private var child: pid_t?
    private var serial = 0
    private var kills: [(pending: Int, restoreMs: Double?)] = []
    private var names: [String] = []
    private var problems: [String] = []

    func begin(_ rig: ProviderHostileBench.Rig) throws {
        serial += 1
        let name = "killed-e\(serial)"
        let pid = try Self.spawn(socket: rig.daemon.socketPath, name: name)
        child = pid
        names.append(name)
        guard rig.poller.waitFor(seconds: 5, { $0.content == "provider \(name)" && ($0.provider?.pending ?? 0) > 0 }) != nil else {
            problems.append("\(name): not shown with requests outstanding")
            return
        }
        rig.rescroll()
    }

    func tick(_ rig: ProviderHostileBench.Rig, elapsed: Double) {
        guard elapsed >= 0.2, let pid = child else { return }
        let pending = rig.poller.status()?.provider?.pending ?? 0
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        child = nil
        kills.append((pending, rig.waitForConfigured()))
        rig.rescroll()
    }

    func end(_ rig: ProviderHostileBench.Rig) {
        if let pid = child {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            child = nil
            _ = rig.waitForConfigured()
        }
    }

    var figures: [String] {
        let restored = kills.compactMap(\.restoreMs)
        return ["\(kills.count) kills with \(kills.map(\.pending).min() ?? 0)–\(kills.map(\.pending).max() ?? 0) requests outstanding; "
                + "SIGKILL → the configured content in status: \(Stats(samples: restored).summary("ms"))"
                + (restored.count < kills.count ? "; \(kills.count - restored.count) never came back" : "")] + problems
    }

    func checks(log: [String]) -> [(String, Bool, String)] {
        // Each kill logged once: one "disconnected" line per provider name.
        let perName = names.map { name in log.filter { $0.contains("content provider \(name) disconnected") }.count }
        let onceEach = !names.isEmpty && perName.allSatisfy { $0 == 1 }
        let back = kills.allSatisfy { $0.restoreMs != nil }
        let outstanding = kills.allSatisfy { $0.pending > 0 }
        return [("killed mid-request, the configured content returns, logged once per provider",
                 onceEach && back && outstanding && !kills.isEmpty && problems.isEmpty,
                 "\(kills.count) kills, \(kills.filter { $0.restoreMs != nil }.count) restored, "
                 + "\"disconnected\" lines per provider: \(Set(perName).sorted())")]
    }

    /// This binary as `--provider-child SOCKET NAME`; returns once it says it was accepted.
    static func spawn(socket: String, name: String) throws -> pid_t {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw RigError("pipe: errno \(errno)") }
        defer { close(fds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args: [String] = [me, "--provider-child", socket, name]
        let argv = args.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, me, &actions, nil, argv, environ)
        close(fds[1])
        guard rc == 0 else { throw RigError("posix_spawn \(me): errno \(rc)") }
        var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 64)
        if poll(&p, 1, 5000) > 0, buffer.withUnsafeMutableBytes({ read(fds[0], $0.baseAddress, $0.count) }) > 0,
           String(decoding: buffer, as: UTF8.self).hasPrefix("provided") {
            return pid
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        throw RigError("the provider child did not provide")
    }
}

/// (f): a provider that never reads: it subscribes to every event, provides, and 0.2 s into the
/// window writes `invalidate` lines as fast as the daemon takes them, never reading a reply, a
/// request or an event, until the daemon hangs up (1 MiB unread).
final class DeafProvider: ProviderAttack {
    let key = "f"
    var title: String { "a provider that never reads (subscribed to every event; writes invalidations as fast as the daemon takes them)" }

    /// The writer, on a thread of its own (its writes block once the daemon stops taking them).
    final class Flood: @unchecked Sendable {
        let connection: RawConnection
        let pool: ProviderPool
        private let state = Mutex((written: 0, hungUpAt: Int64(0), done: false))
        let started = monotonicNanoseconds()

        init(_ connection: RawConnection, pool: ProviderPool) {
            self.connection = connection
            self.pool = pool
            Thread { [self] in self.run() }.start()
        }

        var written: Int { state.withLock { $0.written } }
        var hungUpAt: Int64? { state.withLock { $0.done ? $0.hungUpAt : nil } }

        private func run() {
            var chunk: [UInt8] = []
            var i = 0
            while chunk.count < 64 * 1024 {
                chunk += Array("{\"cmd\":\"invalidate\",\"x\":0,\"y\":\(i % 4000),\"width\":1920,\"height\":48}\n".utf8)
                i += 7
            }
            while connection.write(chunk) { state.withLock { $0.written += chunk.count } }
            state.withLock { $0.hungUpAt = monotonicNanoseconds(); $0.done = true }
        }
    }

    private var connection: RawConnection?, pool: ProviderPool?, flood: Flood?
    private var serial = 0
    private var names: [String] = []
    private var drops: [(ms: Double, written: Int, unread: Int32, restoreMs: Double?)] = []
    private var problems: [String] = []

    func begin(_ rig: ProviderHostileBench.Rig) throws {
        serial += 1
        let name = "deaf-f\(serial)"
        let c = try RawConnection(path: rig.daemon.socketPath)
        let p = try ProviderPool(bytes: Declared.bytes)
        guard c.write("{\"cmd\":\"subscribe\"}", passing: nil), c.write(Declared.provide(id: 1, name: name), passing: p.fd) else {
            throw RigError("\(name): the daemon hung up")
        }
        connection = c
        pool = p
        names.append(name)
        if !rig.waitForProvider(name) { problems.append("\(name): not shown") }
        rig.rescroll()
    }

    func tick(_ rig: ProviderHostileBench.Rig, elapsed: Double) {
        guard let c = connection, let p = pool else { return }
        if flood == nil, elapsed >= 0.2 { flood = Flood(c, pool: p) }
        if let f = flood, let at = f.hungUpAt {
            var unread: Int32 = 0
            _ = ioctl(c.fd, UInt(FIONREAD), &unread)
            drops.append((Double(at - f.started) / 1e6, f.written, unread, rig.waitForConfigured()))
            connection = nil
            pool = nil
            flood = nil
            rig.rescroll()
        }
    }

    func end(_ rig: ProviderHostileBench.Rig) {
        guard connection != nil else { return }
        // Not dropped within the window: wait for it a little, then give up on it.
        let deadline = monotonicNanoseconds() + 5_000_000_000
        while monotonicNanoseconds() < deadline, flood != nil, connection != nil {
            tick(rig, elapsed: 1)
            usleep(10_000)
        }
        if let c = connection {
            problems.append("a deaf provider was not dropped within the window and 5 s after it")
            shutdown(c.fd, Int32(SHUT_RDWR))
            while flood != nil && flood?.hungUpAt == nil { usleep(1000) }
            connection = nil
            pool = nil
            flood = nil
            _ = rig.waitForConfigured()
        }
    }

    var figures: [String] {
        let ms = Stats(samples: drops.map(\.ms)), mb = Stats(samples: drops.map { Double($0.written) / mib })
        let unread = drops.map(\.unread)
        return ["\(drops.count) providers dropped; flood start → hung up on: \(ms.summary("ms")); written by then: \(mb.summary("MiB", digits: 2)); "
                + "left unread in its socket: \(unread.min() ?? 0)–\(unread.max() ?? 0) bytes; dropped → the configured content in status: "
                + "\(Stats(samples: drops.compactMap(\.restoreMs)).summary("ms"))"] + problems
    }

    func checks(log: [String]) -> [(String, Bool, String)] {
        let perName = names.map { name in log.filter { $0.contains("content provider \(name) disconnected") }.count }
        let ok = !drops.isEmpty && drops.count == names.count && problems.isEmpty && perName.allSatisfy { $0 == 1 }
            && drops.allSatisfy { $0.restoreMs != nil }
        return [("a provider that never reads is dropped, the configured content returns, logged once per provider", ok,
                 "\(drops.count) of \(names.count) dropped, \"disconnected\" lines per provider: \(Set(perName).sorted())")]
    }
}
