import FlickControl
import FlickDocumentSamples
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 18 (BENCHMARKS.md item 18): a document as the daemon's content (issue 38). A real
/// `flickd run --display headless:1280x800` whose config names a generated A4 PDF
/// (`content.path`; 10 pages, a menu, and 200), started and stopped once per sample, the two
/// alternating (10, 200, 10, 200 …):
/// - **first frame**: spawn → the first frame composed with no hole, every pixel of the screen
///   drawn from the document's tiles (status: `document.state` is `showing` and
///   `tiles.frames > tiles.framesWithHoles`; until then the placeholder, black, or frames with
///   the background where tiles were missing). Found by asking `status` back to back (a 1 ms
///   pause between answers), so it is late by at most one round trip and a pause;
/// - **resident memory while paging through every page**: `page N` (not animated) from 1 to
///   the last, each time waiting for the view's tiles (`provider.pending` 0), sampling VmRSS of
///   flickd and of the helper (`document.pid`) at every poll.
enum DocumentStartBench {
    static let title = "18. documents in the daemon: first frame of a 10- and a 200-page PDF, resident memory paging through them (headless 1280×800)"

    /// flickd's resident memory beyond `content.cache_mb` allowed: what items 4 and 10 allow the
    /// daemon itself (its binary's pages, heap, the provider pool's mapping).
    static let allowanceMiB = 24.0
    /// What the buffers of tiles that went may keep beyond `content.cache_mb` for an app's (here
    /// the helper's) redrawn tiles: its pool's size, 16 slots of 256 px (docs/tiles.md, "Memory").
    static let keptBuffersMiB = 4.0
    static let cacheMiB = 64

    /// One sample of one document.
    struct Sample {
        var firstFrameMs: Double
        var flickd: [Double] = [], helper: [Double] = []
        /// The cache and band as `status` said at the last page, and flickd's shared (pool) memory.
        var cacheMiB = 0.0, budgetMiB = 0.0, bandMiB = 0.0, shmemMiB = 0.0
        /// The most the tiles in memory were over the cache's budget at any poll (≤ 0: never).
        var overBudgetMiB = -Double.infinity
        /// flickd's VmRSS at the last page, split: anonymous and file-backed.
        var anonMiB = 0.0, fileMiB = 0.0
    }

    static func report(quick: Bool, flickd: String?) {
        guard let flickd else {
            Verdicts.skip("documents: first frame and memory", "no flickd binary")
            return
        }
        let directory = DaemonBench.directory + "/documents"
        mkdir(directory, 0o755)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a4 = (width: 595.28, height: 841.89)
        let documents = [10, 200]
        for pages in documents {
            guard SamplePDF.write(to: "\(directory)/menu-\(pages).pdf", pages: Array(repeating: a4, count: pages)) else {
                print("flickd-bench: cairo could not write the \(pages)-page PDF")
                return
            }
        }
        print("load before: \(loadAverage())")
        let rounds = quick ? 2 : 7
        var samples: [Int: [Sample]] = [:]
        for round in 0..<rounds {
            for pages in documents {
                do {
                    samples[pages, default: []].append(try sample(flickd: flickd, directory: directory, pages: pages, tag: "doc-\(pages)-\(round)"))
                } catch {
                    print("flickd-bench: \(pages) pages, round \(round + 1): \(error)")
                }
            }
        }
        print("load after: \(loadAverage())")
        for pages in documents {
            guard let runs = samples[pages], !runs.isEmpty else { continue }
            let first = Stats(samples: runs.map(\.firstFrameMs))
            let flickdPeak = Stats(samples: runs.map { $0.flickd.max() ?? .nan }), flickdMedian = Stats(samples: runs.map { Stats(samples: $0.flickd).median })
            let helperPeak = Stats(samples: runs.map { $0.helper.max() ?? .nan }), helperMedian = Stats(samples: runs.map { Stats(samples: $0.helper).median })
            let last = runs[runs.count - 1]
            print("\(pages) pages:")
            print("  first frame after spawn: \(first.summary("ms"))")
            print("  flickd VmRSS paging through, each start's peak: \(flickdPeak.summary("MiB")); its median: \(flickdMedian.summary("MiB"))")
            print("  flickd-render VmRSS, each start's peak: \(helperPeak.summary("MiB")); its median: \(helperMedian.summary("MiB"))")
            print("  at the last page (last run): tiles \(fmt(last.cacheMiB)) MiB of their \(fmt(last.budgetMiB)) + band \(fmt(last.bandMiB)) MiB of content.cache_mb = "
                  + "\(cacheMiB); flickd's VmRSS then: anon \(fmt(last.anonMiB)), file \(fmt(last.fileMiB)), shmem (the pool) "
                  + "\(fmt(last.shmemMiB)) MiB; "
                  + "\(runs.map { $0.flickd.count }.reduce(0, +)) flickd samples over \(runs.count) runs")
            if pages == 10 {
                Verdicts.check("first frame of a 10-page PDF ≤ 300 ms after spawn (median)", first.median <= 300, "\(fmt(first.median)) ms")
            } else {
                let over = runs.map(\.overBudgetMiB).max() ?? .nan
                Verdicts.check("flickd's tiles within the cache's budget at every poll paging through \(pages) pages", over <= 0,
                               over <= 0 ? "never over" : "\(fmt(over, 2)) MiB over")
                let worst = flickdPeak.max
                Verdicts.check("flickd's RSS paging through \(pages) pages ≤ content.cache_mb \(cacheMiB) + kept buffers "
                               + "\(fmt(keptBuffersMiB, 0)) + \(fmt(allowanceMiB, 0)) MiB (worst peak)",
                               worst <= Double(cacheMiB) + keptBuffersMiB + allowanceMiB, "\(fmt(worst)) MiB")
            }
        }
    }

    /// One start of the daemon on the `pages`-page PDF: its first frame, then every page in turn.
    private static func sample(flickd: String, directory: String, pages: Int, tag: String) throws -> Sample {
        let config = "[content]\npath = \"\(directory)/menu-\(pages).pdf\"\ncache_mb = \(cacheMiB)\n"
        let run = try DaemonProcess(binary: flickd, directory: directory, tag: tag, content: nil, config: config,
                                    display: "headless:1280x800", placeholder: "black")
        defer { run.stop() }
        var client: ControlClient?
        let deadline = run.spawnedAt + 30_000_000_000
        var shownAt: Int64?
        while shownAt == nil {
            guard monotonicNanoseconds() < deadline else { throw RigError("no first frame within 30 s (see \(run.logPath))") }
            if client == nil { client = try? ControlClient(path: run.socketPath) }
            let s = client.flatMap { try? $0.call(ControlRequest(cmd: "status")).status }
            if let s, s.document?.state == "showing", s.provider != nil, let tiles = s.tiles, let holes = tiles.framesWithHoles,
               tiles.frames > holes {
                shownAt = monotonicNanoseconds()
            } else {
                guard s?.document?.state != "failed" else { throw RigError("the document failed (see \(run.logPath))") }
                usleep(1000)
            }
        }
        guard let client, let shownAt else { throw RigError("no control connection") }
        var sample = Sample(firstFrameMs: Double(shownAt - run.spawnedAt) / 1e6)
        var framesBefore = -1
        for page in 0..<pages {
            if page > 0 {
                // The frames drawn just before the jump (a frame between this answer and the jump
                // would be taken for the jump's: under a millisecond, against a vblank's 16.7).
                framesBefore = try client.call(ControlRequest(cmd: "status")).status?.tiles?.frames ?? framesBefore
                guard try client.call(ControlRequest(cmd: "page", page: page, animated: false)).ok == true else {
                    throw RigError("page \(page) refused")
                }
            }
            // Drawn: a frame composed after the jump (it asked for the tiles it lacked), and
            // nothing left asked for.
            let end = monotonicNanoseconds() + 10_000_000_000
            while true {
                guard let s = try client.call(ControlRequest(cmd: "status")).status, let pid = s.document?.pid, let tiles = s.tiles else {
                    throw RigError("no status, helper or tiles at page \(page)")
                }
                sample.flickd.append(Double(residentKiB(run.pid)) / 1024)
                sample.helper.append(Double(residentKiB(pid_t(pid))) / 1024)
                sample.cacheMiB = Double(tiles.cacheBytes) / mib
                sample.budgetMiB = Double(tiles.cacheBudgetBytes) / mib
                sample.bandMiB = Double(tiles.bandBytes ?? 0) / mib
                sample.overBudgetMiB = max(sample.overBudgetMiB, Double(tiles.cacheBytes - tiles.cacheBudgetBytes) / mib)
                if s.page == page, tiles.frames > framesBefore, s.provider?.pending == 0 { break }
                guard monotonicNanoseconds() < end else { throw RigError("page \(page) not drawn within 10 s") }
                usleep(2000)
            }
        }
        let counters = run.counters
        sample.shmemMiB = Double(counters.rssShmem) / 1024
        sample.anonMiB = Double(counters.rssAnon) / 1024
        sample.fileMiB = Double(counters.rssFile) / 1024
        print("  \(pages) pages: first frame \(fmt(sample.firstFrameMs)) ms; flickd peak \(fmt(sample.flickd.max() ?? .nan)) MiB, "
              + "flickd-render peak \(fmt(sample.helper.max() ?? .nan)) MiB")
        return sample
    }

    /// VmRSS of `pid`, KiB (0 when it is gone).
    private static func residentKiB(_ pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } ?? 0
    }

    private static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }
}
