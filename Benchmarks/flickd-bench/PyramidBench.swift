import FlickDisplay
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 9: building the Deep Zoom pyramid of one big PNG, `flickd pyramid` against
/// `vips dzsave` on the same file, each a child process timed and its peak RSS read from
/// its `VmHWM` sampled while it runs, interleaved A B A B so a noisy neighbour slows both.
enum PyramidBench {
    static let title = "9. pyramid build of one big PNG: flickd pyramid vs vips dzsave (wall s, peak RSS MiB)"

    static func report(quick: Bool) {
        let side = arguments.firstIndex(of: "--side").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
            ?? (quick ? 4000 : 30000)
        let pairs = quick ? 1 : 3
        guard let flickd = DaemonBench.locateFlickd(arguments: arguments) else {
            Verdicts.skip("pyramid build peak RSS ≤ 64 MiB", "no flickd binary")
            return
        }
        let directory = DaemonBench.directory + "/pyramid"
        mkdir(directory, 0o755)
        defer { removeTree(directory) }
        let png = "\(directory)/map-\(side).png"
        let generated = monotonicNanoseconds()
        do {
            try MapGenerator.writePNG(width: side, height: side, to: png)
        } catch {
            print("flickd-bench: map generator: \(error)")
            Verdicts.skip("pyramid build peak RSS ≤ 64 MiB", "the map could not be written")
            return
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0
        print("map: \(side)×\(side) PNG, \(fmt(Double(bytes) / mib)) MiB, generated (streaming) in "
              + "\(fmt(Double(monotonicNanoseconds() - generated) / 1e9)) s; \(pairs) interleaved pair(s)")

        let vips = findVips()
        if vips == nil { print("peer: vips unavailable (install libvips-tools); flickd measured alone") }
        var ours: [ChildRun] = [], theirs: [ChildRun] = []
        for i in 0..<pairs {
            let a = "\(directory)/flickd-\(i)"
            mkdir(a, 0o755)
            let run = ChildRun([flickd, "pyramid", png, "--cache-directory", a], log: "\(directory)/flickd-\(i).log")
            print("  flickd pyramid  #\(i + 1): \(run.summary)")
            let ourLevels = run.status == 0 ? levelCounts(under: a) : []
            ours.append(run)
            guard let vips else {
                removeTree(a)
                continue
            }
            let b = "\(directory)/vips-\(i)"
            mkdir(b, 0o755)
            let peer = ChildRun([vips, "dzsave", png, "\(b)/map", "--suffix", ".png[compression=1]"],
                                log: "\(directory)/vips-\(i).log")
            print("  vips dzsave     #\(i + 1): \(peer.summary)")
            if i == 0 && run.status == 0 && peer.status == 0 {
                let same = ourLevels == levelCounts(under: b)
                print("  layout (levels and tiles per level) \(same ? "identical to" : "DIFFERS from") vips's: "
                      + "\(ourLevels.count) levels, \(ourLevels.reduce(0, +)) tiles")
                if let ours = filesFolder(under: a), let theirs = filesFolder(under: b) {
                    let (compared, differing) = compareCorners(ours, theirs, levels: ourLevels.count)
                    print("  pixels: \(compared - differing) of \(compared) sampled tiles (first and last of each level) "
                          + "identical to vips's")
                }
            }
            removeTree(a)
            removeTree(b)
            theirs.append(peer)
        }
        let ok = ours.filter { $0.status == 0 }
        guard ok.count == ours.count, !ok.isEmpty else {
            Verdicts.check("pyramid build peak RSS ≤ 64 MiB", false, "flickd pyramid failed (see its log)")
            return
        }
        let time = Stats(samples: ok.map(\.seconds)), rss = Stats(samples: ok.map(\.peakMiB))
        print("flickd pyramid: \(time.summary("s", digits: 2)); peak RSS \(rss.summary("MiB"))")
        if !theirs.isEmpty, theirs.allSatisfy({ $0.status == 0 }) {
            let peerTime = Stats(samples: theirs.map(\.seconds)), peerRSS = Stats(samples: theirs.map(\.peakMiB))
            print("vips dzsave:    \(peerTime.summary("s", digits: 2)); peak RSS \(peerRSS.summary("MiB"))")
            print("  ratios flickd/vips (median of paired runs): time ×\(fmt(time.pairedRatio(to: peerTime), 2)), "
                  + "peak RSS ×\(fmt(rss.pairedRatio(to: peerRSS), 2))")
        }
        Verdicts.check("pyramid build peak RSS ≤ 64 MiB (\(side)²)", rss.max <= 64, "\(fmt(rss.max)) MiB at most")
    }

    /// `vips`, installed for the benchmark when missing and running as root.
    private static func findVips() -> String? { Peers.installed("/usr/bin/vips", package: "libvips-tools") }

    /// The one `*_files` folder under `directory`.
    private static func filesFolder(under directory: String) -> String? {
        FileManager.default.enumerator(atPath: directory)?.compactMap({ $0 as? String })
            .first(where: { $0.hasSuffix("_files") }).map { "\(directory)/\($0)" }
    }

    /// Decodes the first and the last tile of each level from both folders and compares their
    /// pixels. - Returns: tiles compared, and how many of them differ (or are missing).
    private static func compareCorners(_ ours: String, _ theirs: String, levels: Int) -> (Int, Int) {
        var compared = 0, differing = 0
        for level in 0..<levels {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: "\(ours)/\(level)")) ?? [])
                .filter { $0.hasSuffix(".png") }.sorted { tileOrder($0) < tileOrder($1) }
            for name in Set([names.first, names.last].compactMap { $0 }) {
                compared += 1
                guard let a = decode("\(ours)/\(level)/\(name)"), let b = decode("\(theirs)/\(level)/\(name)"),
                      a.width == b.width, a.height == b.height,
                      (0..<a.height).allSatisfy({ y in (0..<a.width).allSatisfy { x in a[x, y] == b[x, y] } })
                else { differing += 1; continue }
            }
        }
        return (compared, differing)
    }

    /// "COLUMN_ROW.png" in row-major order, to find the first and last tile.
    private static func tileOrder(_ name: String) -> Int {
        let numbers = name.dropLast(4).split(separator: "_").compactMap { Int($0) }
        return numbers.count == 2 ? numbers[1] << 32 | numbers[0] : 0
    }

    private static func decode(_ path: String) -> PixelBuffer? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? PNGCodec.decode(Array(data), path: path, pixelBudget: 1 << 20)
    }

    /// Tiles per level of the one `*_files` folder under `directory`.
    private static func levelCounts(under directory: String) -> [Int] {
        let fm = FileManager.default
        guard let files = filesFolder(under: directory) else { return [] }
        let levels = ((try? fm.contentsOfDirectory(atPath: files)) ?? []).compactMap(Int.init).sorted()
        return levels.map { ((try? fm.contentsOfDirectory(atPath: "\(files)/\($0)")) ?? []).count }
    }

    private static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A child process run to completion: its wall time and its peak RSS (VmHWM, sampled).
struct ChildRun {
    var seconds = 0.0
    /// The most resident memory the child had (its VmHWM, read every 10 ms), KiB.
    var peakKiB = 0
    /// The exit status, or 128 + the signal.
    var status: Int32 = -1

    var peakMiB: Double { Double(peakKiB) / 1024 }

    /// `VmHWM` of a live process, KiB.
    static func highWaterKiB(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
    var summary: String {
        status == 0 ? "\(fmt(seconds, 2)) s, peak RSS \(fmt(peakMiB)) MiB" : "FAILED (status \(status))"
    }

    /// Runs `argv` with stdout and stderr to `log`, and waits for it.
    init(_ argv: [String], log: String, environment: [String]? = nil) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let args = argv.map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }).map { strdup($0) } + [nil]
        defer { for p in args + env { free(p) } }
        var pid: pid_t = 0
        let start = monotonicNanoseconds()
        guard posix_spawn(&pid, argv[0], &actions, nil, args, env) == 0 else { return }
        // Not wait4's ru_maxrss: Linux carries a process's high-water RSS across exec, and a
        // child spawned (vfork) from this benchmark starts with the benchmark's own (249 MiB
        // after section 8), so every child read the same. The child's own high-water mark
        // (VmHWM, per address space, monotonic) is read while it runs instead.
        var wstatus: Int32 = 0
        var peak = 0
        while true {
            if let hwm = Self.highWaterKiB(pid) { peak = max(peak, hwm) }
            let done = waitpid(pid, &wstatus, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            usleep(10_000)
        }
        seconds = Double(monotonicNanoseconds() - start) / 1e9
        peakKiB = peak
        let signal = wstatus & 0x7F
        status = signal == 0 ? (wstatus >> 8) & 0xFF : 128 + signal
    }
}
