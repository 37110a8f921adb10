import FlickControl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 19 (BENCHMARKS.md item 19): a big JPEG seen whole at once. A generated
/// map written as a baseline JPEG (20000² at quality 98, about 100 MB; 8000² with `--quick`) is the content
/// of a real `flickd run --display headless:1920x1080` (`zoom.start_scale = "fit"`, an empty
/// cache folder each start, so its pyramid must be built). Paired with the floor, the same
/// file's `djpeg -scale 1/8` (libjpeg-turbo's scaled IDCT: the entropy decoding and little
/// else), sample by sample (djpeg, flickd, djpeg, flickd …):
/// - **flickd**: `posix_spawn` → the first frame showing the picture: `status` asked back to
///   back (1 ms apart) until `building.preview` is set (the preview is the content) and
///   `tiles.frames > tiles.framesWithHoles` (a frame drawn from its tiles, none missing);
/// - **djpeg**: `posix_spawn` → exit, its output thrown away.
/// Verdict: the median of the paired ratios flickd / djpeg ≤ 1.3.
enum PreviewBench {
    /// flickd's highest VmHWM when its preview showed, over the starts; its VmRSS then and once
    /// the pyramid showed in its place (the last start), MiB.
    nonisolated(unsafe) static var previewPeakMiB = 0.0
    nonisolated(unsafe) static var residentMiB: (preview: Double, pyramid: Double) = (.nan, .nan)
    static let title = "19. a big JPEG seen whole: spawn → the preview's first frame, against djpeg -scale 1/8 (headless 1920×1080)"

    static func report(quick: Bool, flickd: String?) {
        guard let flickd else {
            Verdicts.skip("a big JPEG seen whole", "no flickd binary")
            return
        }
        guard let djpeg = findDjpeg() else {
            Verdicts.skip("a big JPEG seen whole", "no djpeg (libjpeg-turbo-progs) and it cannot be installed")
            return
        }
        let directory = DaemonBench.directory + "/preview"
        mkdir(directory, 0o755)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let side = quick ? 8000 : 20000
        let jpeg = "\(directory)/map-\(side).jpg"
        let made = monotonicNanoseconds()
        do {
            try MapGenerator.writeJPEG(width: side, height: side, quality: 98, to: jpeg)
        } catch {
            print("flickd-bench: \(error)")
            return
        }
        var info = stat()
        stat(jpeg, &info)
        print("the map: \(side)×\(side) baseline JPEG, quality 98, \(fmt(Double(info.st_size) / mib)) MiB "
              + "(written in \(fmt(Double(monotonicNanoseconds() - made) / 1e9)) s)")
        let rounds = quick ? 2 : 7
        var floor: [Double] = [], ours: [Double] = []
        for round in 0..<rounds {
            let peer = ChildRun([djpeg, "-scale", "1/8", "-outfile", "/dev/null", jpeg], log: "\(directory)/djpeg.log")
            guard peer.status == 0 else {
                print("flickd-bench: djpeg failed (see \(directory)/djpeg.log)")
                return
            }
            do {
                // The last start also waits for the pyramid: what the first whole frame took before.
                let last = round == rounds - 1
                let (seconds, pyramid) = try sample(flickd: flickd, directory: directory, jpeg: jpeg, tag: "preview-\(round)",
                                                    untilPyramid: last)
                floor.append(peer.seconds)
                ours.append(seconds)
                print("  #\(round + 1): djpeg -scale 1/8 \(fmt(peer.seconds * 1000)) ms, flickd's preview on screen \(fmt(seconds * 1000)) ms"
                      + (pyramid.map { "; its pyramid shown \(fmt($0)) s after spawn" } ?? ""))
            } catch {
                print("flickd-bench: round \(round + 1): \(error)")
            }
        }
        guard !ours.isEmpty else { return }
        let a = Stats(samples: floor.map { $0 * 1000 }), b = Stats(samples: ours.map { $0 * 1000 })
        let ratio = b.pairedRatio(to: a)
        print("djpeg -scale 1/8: \(a.summary("ms")); flickd spawn → preview's first frame: \(b.summary("ms")); "
              + "ratio flickd/djpeg (median of paired) ×\(fmt(ratio, 2)); flickd's peak RSS by its preview \(fmt(previewPeakMiB)) MiB "
              + "(last start: RSS \(fmt(residentMiB.preview)) MiB showing the preview, \(fmt(residentMiB.pyramid)) MiB showing the pyramid "
              + "in its place, the same view)")
        if !quick {
            Verdicts.check("a \(side)² JPEG seen whole ≤ 1.3 × djpeg -scale 1/8 (median of paired ratios)", ratio <= 1.3, "×\(fmt(ratio, 2))")
        }
    }

    /// One start on an empty cache: seconds from spawn to the preview's first whole frame, and
    /// when asked, to the pyramid shown in its place.
    private static func sample(flickd: String, directory: String, jpeg: String, tag: String,
                               untilPyramid: Bool) throws -> (preview: Double, pyramid: Double?) {
        let cache = "\(directory)/\(tag)-cache"
        mkdir(cache, 0o755)
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let config = "[content]\npath = \"\(jpeg)\"\ncache_directory = \"\(cache)\"\n[zoom]\nstart_scale = \"fit\"\n"
        let run = try DaemonProcess(binary: flickd, directory: directory, tag: tag, content: nil, config: config,
                                    display: "headless:1920x1080", placeholder: "black")
        defer {
            // The pyramid's child goes with the daemon, so it takes no CPU from the next sample.
            for child in children(of: run.pid) { kill(child, SIGKILL) }
            run.stop()
        }
        var client: ControlClient?
        let deadline = run.spawnedAt + 60_000_000_000
        var preview: Double?
        while true {
            guard monotonicNanoseconds() < deadline else { throw RigError("no preview within 60 s (see \(run.logPath))") }
            if client == nil { client = try? ControlClient(path: run.socketPath) }
            if let s = client.flatMap({ try? $0.call(ControlRequest(cmd: "status")).status }), s.building?.preview != nil,
               let tiles = s.tiles, let holes = tiles.framesWithHoles, tiles.frames > holes {
                preview = Double(monotonicNanoseconds() - run.spawnedAt) / 1e9
                // The daemon's peak so far: the preview's decode, before any tile of the pyramid.
                if let peak = ChildRun.highWaterKiB(run.pid) { previewPeakMiB = max(previewPeakMiB, Double(peak) / 1024) }
                residentMiB.preview = Double(run.counters.rss) / 1024
                break
            }
            usleep(1000)
        }
        guard untilPyramid, let client, let preview else { return (preview ?? .nan, nil) }
        let end = monotonicNanoseconds() + 600_000_000_000
        while (try? client.call(ControlRequest(cmd: "status")).status?.building) != nil {
            guard monotonicNanoseconds() < end else { throw RigError("no pyramid within 10 minutes (see \(run.logPath))") }
            usleep(50_000)
        }
        let shown = Double(monotonicNanoseconds() - run.spawnedAt) / 1e9
        // The pyramid's tiles for the same view, once its workers have made them.
        usleep(1_000_000)
        residentMiB.pyramid = Double(run.counters.rss) / 1024
        return (preview, shown)
    }

    /// The processes whose parent is `pid` (`/proc/*/stat`'s fourth field).
    private static func children(of pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let child = pid_t(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// `djpeg`, installed for the benchmark (libjpeg-turbo-progs) when missing and running as root.
    private static func findDjpeg() -> String? { Peers.installed("/usr/bin/djpeg", package: "libjpeg-turbo-progs") }
}
