import FlickControl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Item 7: the real daemon's frame rate while hostile clients attack its control socket
/// (`HostileClients`), against its rate undisturbed. A timing, so it lives here and not in
/// `HostileClientTests` (which keeps the functional half: answers, memory, a fresh client). Calm
/// and attack windows alternate and each attack window is compared with the calm one just before
/// it, so a neighbour's load on the shared machine falls on both sides of most ratios.
enum HostileBench {
    /// One window's length, s. A 40 s scroll holds 10 pairs with their lead-ins.
    static let window = 1.0
    /// The attack runs this long before its window opens (the long line and the first wave's
    /// connects), and the daemon is left this long after it before the next calm window, s.
    static let leadIn = 0.3, settle = 0.2

    /// What one window saw.
    struct Window {
        var framesPerSecond = Double.nan
        var asked = 0, answered = 0
        /// Whether the scroll was still animating at the window's end (else its rate is void).
        var scrolling = false
    }

    static func run(flickd: String?, pairs: Int) throws {
        guard let flickd else {
            Verdicts.skip("frame rate under hostile clients", "no flickd binary")
            return
        }
        // A wave is 1000 sockets at once: lift this process's soft fd limit to its hard one.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 1200 { print("note: fd limit \(limit.rlim_cur): the waves are smaller than 1000") }

        // A 40 s programmatic scroll at a constant speed: a frame every vblank, the same motion
        // in every window.
        let daemon = try DaemonProcess(binary: flickd, directory: DaemonBench.directory, tag: "hostile", content: nil,
                                       config: "[scroll]\nanimation_duration = 40\nanimation_curve = \"linear\"\n")
        defer { daemon.stop() }
        _ = try daemon.waitReady(timeout: 30)
        var client = connect(daemon.socketPath)
        let scroll = ControlRequest(id: 0, cmd: "set-offset", x: 0, y: 3000, animated: true)
        guard (try? client?.call(scroll))?.ok == true else { throw RigError("the scroll was refused (see \(daemon.logPath))") }
        usleep(500_000)
        let rssBefore = daemon.counters.rss

        let attack = HostileClients(path: daemon.socketPath)
        defer { attack.finish() }
        var calm: [Window] = [], stormy: [Window] = []
        var requestID = 1, rssAttacked = 0
        for _ in 0..<pairs {
            calm.append(measure(&client, path: daemon.socketPath, id: &requestID))
            attack.begin()
            usleep(UInt32(leadIn * 1e6))
            stormy.append(measure(&client, path: daemon.socketPath, id: &requestID))
            rssAttacked = max(rssAttacked, daemon.counters.rss)
            attack.end()
            usleep(UInt32(settle * 1e6))
        }

        // Only pairs whose two windows both saw the scroll move and got two answers or more.
        let paired = zip(calm, stormy).filter { $0.scrolling && $1.scrolling && $0.framesPerSecond > 0 && $1.framesPerSecond.isFinite }
        let calmRate = Stats(samples: paired.map(\.0.framesPerSecond))
        let stormyRate = Stats(samples: paired.map(\.1.framesPerSecond))
        let ratios = Stats(samples: paired.map { $1.framesPerSecond / $0.framesPerSecond })
        print("\(pairs) pairs of \(fmt(window, 0)) s windows, calm then attack (\(paired.count) with the scroll moving in both)")
        print("  calm    \(calmRate.summary("frames/s"))")
        print("  attack  \(stormyRate.summary("frames/s"))")
        print("  paired ratios attack/calm: median ×\(fmt(ratios.median, 3)) (p99 ×\(fmt(ratios.p99, 3)), "
              + "×\(fmt(ratios.min, 3))–\(fmt(ratios.max, 3)), n \(ratios.samples.count))")
        let cut = attack.lineCut.map { $0 / 1024 }
        print("  attack: \(attack.opened) connections in \(attack.waves) waves; the 10 MB line hung up on after "
              + "\(cut.min() ?? 0)–\(cut.max() ?? 0) KiB written; daemon RSS \(rssBefore) KiB before, at most \(rssAttacked) KiB at the end of an attack window (information)")
        let asked = stormy.map(\.asked).reduce(0, +), answered = stormy.map(\.answered).reduce(0, +)
        // The ratio says nothing if the daemon was not drawing every vblank in the first place.
        Verdicts.check("frame rate under hostile clients within 5 % of undisturbed (median of paired windows)",
                       !paired.isEmpty && abs(ratios.median - 1) <= 0.05 && calmRate.median > 50,
                       "×\(fmt(ratios.median, 3)), calm \(fmt(calmRate.median)) frames/s (n \(paired.count))")
        Verdicts.check("every well-formed status asked during the attack answered", asked > 0 && answered == asked,
                       "\(answered) of \(asked)")
    }

    /// Asks `status` every 50 ms for one window and takes the frame rate from the first and last
    /// answers' `frames`. A failed call counts as unanswered and the client connects again.
    private static func measure(_ client: inout ControlClient?, path: String, id: inout Int) -> Window {
        var result = Window()
        var first: (at: Int64, frames: Int)?, last: (at: Int64, frames: Int)?
        let end = monotonicNanoseconds() + Int64(window * 1e9)
        repeat {
            result.asked += 1
            id += 1
            if let reply = try? client?.call(ControlRequest(id: id, cmd: "status")), reply.id == id, let status = reply.status,
               let frames = status.frames {
                let now = monotonicNanoseconds()
                result.answered += 1
                if first == nil { first = (now, frames) }
                last = (now, frames)
                result.scrolling = status.scrolling
            } else {
                client = connect(path)
            }
            usleep(50_000)
        } while monotonicNanoseconds() < end
        if let first, let last, last.at > first.at {
            result.framesPerSecond = Double(last.frames - first.frames) / (Double(last.at - first.at) / 1e9)
        }
        return result
    }

    /// A well-formed client that gives up on an answer after 2 s (a daemon that stopped answering
    /// is a figure, not a hang).
    private static func connect(_ path: String) -> ControlClient? {
        guard let client = try? ControlClient(path: path) else { return nil }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return client
    }
}
