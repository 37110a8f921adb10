import FlickControl
import FlickDisplay
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 10: the generated map in the real daemon, on the headless 1920×1080 display — as a
/// Deep Zoom pyramid at 1×, 10× and 100× the area (the largest 30000×30000, 900 M pixels) and
/// as one PNG whose pyramid the daemon builds itself: first frame, and RSS beyond the tiles in
/// memory after the view has been around the map; then a flick at 8000 px/s over the largest
/// pyramid in process (`TiledBench.flick`), tiles decoded from disk by the workers.
enum MapBench {
    static let title = "10. a generated map as tiles in the daemon: first frame, RSS at 1×, 10×, 100× the area; a flick over it"

    /// Lets `around` zoom out of and into the map.
    private static let zoomable = "[zoom]\nminimum_scale = 0.1\n"

    static func report(quick: Bool, flickd: String?) {
        let sides = quick ? [600, 1897, 6000] : [3000, 9487, 30000]
        guard let flickd else {
            Verdicts.skip("map: RSS beyond the cache budget ≤ 24 MiB", "no flickd binary")
            return
        }
        let directory = DaemonBench.directory + "/map"
        mkdir(directory, 0o755)
        defer { removeTree(directory) }
        var largest: String?
        var beyond: [Double] = []
        for side in sides {
            let made = monotonicNanoseconds()
            let dzi: String
            do {
                dzi = try MapGenerator.writeDZI(width: side, height: side, directory: directory)
            } catch {
                print("flickd-bench: map \(side)²: \(error)")
                continue
            }
            print("\(side)×\(side) (\(fmt(Double(side * side) / 1e6, 0)) M pixels) as a DZI, generated and built in "
                  + "\(fmt(Double(monotonicNanoseconds() - made) / 1e9)) s")
            largest = dzi
            let starts = side == sides.last && !quick ? 5 : 1
            var first: [Double] = []
            for i in 0..<starts {
                guard let run = try? DaemonProcess(binary: flickd, directory: directory, tag: "map-\(side)-\(i)", content: dzi,
                                                         config: zoomable),
                      let ms = try? run.waitReady(timeout: 30) else {
                    print("  the daemon did not start (see \(directory))")
                    break
                }
                first.append(ms)
                if i == starts - 1, let rss = around(run, side: side, label: "DZI") { beyond.append(rss) }
                run.stop()
            }
            if !first.isEmpty {
                let stats = Stats(samples: first)
                print("  first frame after start: \(stats.summary("ms"))")
                if side == sides.last {
                    Verdicts.check("first frame of the \(side)² DZI ≤ 150 ms after start (median)", stats.median <= 150,
                                   "\(fmt(stats.median)) ms")
                }
            }
        }
        // The same largest map as one PNG: the daemon builds its pyramid (test pattern meanwhile).
        let side = sides.last!
        let png = "\(directory)/map.png"
        do {
            try MapGenerator.writePNG(width: side, height: side, to: png)
            let cache = "\(directory)/cache"
            mkdir(cache, 0o755)
            let run = try DaemonProcess(binary: flickd, directory: directory, tag: "map-png", content: png,
                                        config: "[content]\ncache_directory = \"\(cache)\"\n" + zoomable)
            let ms = try run.waitReady(timeout: 30)
            let built = monotonicNanoseconds()
            var shown = false
            while monotonicNanoseconds() - built < 600_000_000_000 {
                if let status = DaemonBench.status(run), status.building == nil, status.tiles?.levels ?? 0 > 12 { shown = true; break }
                usleep(200_000)
            }
            print("\(side)² PNG: first frame (the test pattern, the pyramid building) \(fmt(ms)) ms; map shown from its "
                  + "pyramid after \(fmt(Double(monotonicNanoseconds() - built) / 1e9)) s" + (shown ? "" : " (not shown: timed out)"))
            if shown, let rss = around(run, side: side, label: "PNG") { beyond.append(rss) }
            run.stop()
        } catch {
            print("flickd-bench: map PNG: \(error)")
        }
        if !beyond.isEmpty {
            Verdicts.check("map: RSS beyond the cache budget ≤ 24 MiB at 1×, 10×, 100× the area, DZI and PNG (worst)",
                           beyond.count == sides.count + 1 && beyond.max()! <= 24, "\(fmt(beyond.max()!)) MiB")
        }
        if let largest {
            TiledBench.reportFlick(name: "the \(side)² map's pyramid (PNG tiles from disk)", pairs: quick ? 2 : 3) {
                try Content.load(deepZoom: largest, tiles: .init(cacheBytes: 64 << 20, workers: TileLoader.defaultWorkers))
            }
        }
    }

    /// Jumps the view to five places across the map (each shown from its own tiles before the
    /// next; on the smallest map some are past its edges), zooms to 0.4, 2 and back to 1, then
    /// reads RSS; returns RSS beyond the cache budget (`content.cache_mb`: tiles and band), in MiB.
    private static func around(_ run: DaemonProcess, side: Int, label: String) -> Double? {
        guard let client = try? ControlClient(path: run.socketPath) else { return nil }
        func settle() {
            let end = monotonicNanoseconds() + 10_000_000_000
            while monotonicNanoseconds() < end, (try? client.call(ControlRequest(id: 2, cmd: "status")))?.status?.tiles?.pending ?? 1 > 0 {
                usleep(20_000)
            }
        }
        for (fx, fy) in [(0.1, 0.1), (0.9, 0.2), (0.5, 0.5), (0.2, 0.9), (0.8, 0.8)] {
            let x = max(0, Double(side) * fx - 960), y = max(0, Double(side) * fy - 540)
            _ = try? client.call(ControlRequest(id: 1, cmd: "set-offset", x: x.rounded(), y: y.rounded(), animated: false))
            settle()
        }
        for scale in [0.4, 2, 1] {
            _ = try? client.call(ControlRequest(id: 1, cmd: "set-zoom", scale: scale, animated: false))
            settle()
        }
        usleep(300_000)
        guard let tiles = (try? client.call(ControlRequest(id: 3, cmd: "status")))?.status?.tiles else { return nil }
        let counters = run.counters
        let rss = Double(counters.rss) / 1024, cache = Double(tiles.cacheBytes) / mib, band = Double(tiles.bandBytes ?? 0) / mib
        let budget = Double(tiles.cacheBudgetBytes + (tiles.bandBytes ?? 0)) / mib
        let rest = rss - budget
        print("  \(label) \(side)²: RSS \(fmt(rss)) MiB = content.cache_mb \(fmt(budget)) MiB (tiles \(fmt(cache)) MiB in use, "
              + "\(tiles.cached) tiles of \(tiles.levels) levels; band \(fmt(band)) MiB) + \(fmt(rest)) MiB beyond it "
              + "(anon \(fmt(Double(counters.rssAnon) / 1024)), file \(fmt(Double(counters.rssFile) / 1024)) MiB; frames of tiled "
              + "content are drawn into the band's buffers at any zoom: the display makes no frame buffer)")
        return rest
    }


    private static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
