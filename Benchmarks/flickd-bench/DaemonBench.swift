import FlickControl
import FlickDisplay
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Items 4 and 5: the real `flickd` binary as a child process on the headless display.
enum DaemonBench {
    static let bufferBytes = 2 * 1920 * 1080 * 4

    /// `--flickd PATH`, else the `flickd` built beside this benchmark; nil (with a note) if none.
    static func locateFlickd(arguments: [String]) -> String? {
        if let i = arguments.firstIndex(of: "--flickd"), i + 1 < arguments.count { return arguments[i + 1] }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
        let sibling = (me as NSString).deletingLastPathComponent + "/flickd"
        guard FileManager.default.isExecutableFile(atPath: sibling) else {
            print("note: no flickd beside \(me): build both with `make bench`")
            return nil
        }
        let built = (try? FileManager.default.attributesOfItem(atPath: sibling)[.modificationDate] as? Date) ?? nil
        print("daemon: \(sibling)\(built.map { " (built \($0))" } ?? "")")
        return sibling
    }

    /// A temporary folder for configs, sockets, logs and the generated content.
    static let directory: String = {
        var template = Array("/tmp/flickd-bench.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("flickd-bench: mkdtemp failed")
        }
        return String(cString: made)
    }()

    /// A 4096×4096 PNG of the test pattern (written once).
    static let contentPNG: String = {
        let path = directory + "/content-4096.png"
        guard let image = TestPattern.make(PixelSize(width: 4096, height: 4096)) else { fatalError("cannot allocate the content") }
        do { try PNGCodec.write(image, to: path) } catch { fatalError("flickd-bench: \(error)") }
        return path
    }()

    /// Both daemons (test pattern, 4096×4096 PNG) and the in-process loop left alone over the
    /// same window: wake-ups, context switches, then RSS at rest.
    static func idle(flickd: String?, rig: LatencyRig, seconds: Double) throws {
        try rig.settle()
        guard let flickd else {
            let quiet = try rig.idle(seconds: seconds)
            report(inProcess: quiet, seconds: seconds)
            Verdicts.skip("daemon idle and RSS", "no flickd binary")
            return
        }
        let plain = try DaemonProcess(binary: flickd, directory: directory, tag: "idle-pattern", content: nil)
        let big = try DaemonProcess(binary: flickd, directory: directory, tag: "idle-4096", content: contentPNG)
        _ = try plain.waitReady(timeout: 30)
        _ = try big.waitReady(timeout: 30)
        usleep(1_000_000)   // let the first frame's presentation and the start-up settle
        let before = [plain.counters, big.counters]
        let quiet = try rig.idle(seconds: seconds)
        let after = [plain.counters, big.counters]
        report(inProcess: quiet, seconds: seconds)
        var daemonWakeups = 0
        for (i, (name, process)) in [("flickd, test pattern", plain), ("flickd, 4096×4096 PNG", big)].enumerated() {
            let runs = after[i].runs - before[i].runs
            daemonWakeups += runs
            print("\(name): \(runs) wake-ups (schedstat), \(after[i].voluntary - before[i].voluntary) voluntary and "
                  + "\(after[i].involuntary - before[i].involuntary) involuntary context switches, \(after[i].threads) thread(s)")
            _ = process
        }
        Verdicts.check("0 wake-ups in \(fmt(seconds, 0)) s idle", daemonWakeups == 0 && quiet.dispatched == 0 && quiet.extraIterations == 0,
                       "daemons \(daemonWakeups), in-process loop \(quiet.dispatched)")

        for (name, process) in [("test pattern", plain), ("4096×4096 PNG", big)] {
            func beyond(_ c: ProcCounters, _ when: String) -> Double {
                // Whole content: its pixels. Tiled content (the test pattern): the tiles in memory
                // and the scan-out band, as `status` reports them.
                let tiles = status(process)?.tiles
                let contentBytes = tiles.map { $0.cacheBytes + ($0.bandBytes ?? 0) } ?? contentPixels(log: process.logPath) * 4
                let rest = Double(c.rss * 1024 - contentBytes)
                print("RSS with \(name), \(when): \(fmt(Double(c.rss) / 1024)) MiB = content \(fmt(Double(contentBytes) / mib)) MiB"
                      + " + \(fmt(rest / mib)) MiB (anon \(fmt(Double(c.rssAnon) / 1024)), file \(fmt(Double(c.rssFile) / 1024)),"
                      + " shmem \(fmt(Double(c.rssShmem) / 1024)) MiB)")
                return rest
            }
            _ = beyond(after[name == "test pattern" ? 0 : 1], "at rest after start")
            // A kiosk at rest has been used: one move shows another frame (at zoom 1 the content
            // itself, scanned out: no frame buffer is made).
            let moved = scroll(process, "set-offset")
            usleep(300_000)
            let rest = beyond(process.counters, moved ? "at rest after one scroll" : "after a scroll that failed")
            Verdicts.check("RSS ≤ 24 MiB + content in memory (\(name), at rest after a scroll)", moved && rest <= 24 * mib,
                           "\(fmt(rest / mib)) MiB beyond the content")
            // Zoomed frames are composed into two panel-sized buffers: the display's memory (on
            // DRM the card's dumb buffers), which only the headless backend keeps in the process.
            let zoomed = scroll(process, "set-zoom")
            usleep(300_000)
            _ = beyond(process.counters, zoomed ? "at rest zoomed to 2 (information)" : "after a zoom that failed")
            print("  the headless output's composed 1920×1080 buffers are made when first drawn into, "
                  + "\(fmt(Double(bufferBytes) / 2 / mib)) MiB each (on DRM: the card's dumb buffers, outside the process on a Pi)")
        }
        plain.stop()
        big.stop()
    }

    /// The daemon's `status`, if it answers.
    static func status(_ process: DaemonProcess) -> ControlStatus? {
        (try? ControlClient(path: process.socketPath)).flatMap { try? $0.call(ControlRequest(id: 3, cmd: "status")).status }
    }

    /// Moves the view by half a screen (`set-offset`) or zooms it to 2 (`set-zoom`) without
    /// animation (one frame), through the control socket.
    private static func scroll(_ process: DaemonProcess, _ command: String) -> Bool {
        let request = command == "set-zoom" ? ControlRequest(id: 2, cmd: command, scale: 2, animated: false)
                                            : ControlRequest(id: 1, cmd: command, x: 0, y: 540, animated: false)
        guard let client = try? ControlClient(path: process.socketPath), let reply = try? client.call(request) else {
            return false
        }
        return reply.ok == true
    }

    private static func report(inProcess quiet: (dispatched: Int, extraIterations: UInt64), seconds: Double) {
        print("in-process loop (Pipeline + LiveRunner on sd-event): \(quiet.dispatched) dispatches, "
              + "\(quiet.extraIterations) extra sd-event iterations in \(fmt(seconds, 0)) s")
    }

    /// Spawn to `READY=1` (sent once the first frame is presented), `repeats` times each without
    /// content (the test pattern) and with the 4096×4096 PNG.
    static func startup(flickd: String?, repeats: Int) throws {
        guard let flickd else {
            Verdicts.skip("first frame ≤ 150 ms after start", "no flickd binary")
            return
        }
        // The content's share of it, measured in this process.
        var pattern: [Double] = [], decode: [Double] = []
        for _ in 0..<repeats {
            // The test pattern is tiled: opening it makes its pinned coarse levels.
            var t = monotonicNanoseconds()
            _ = try Content.testPattern(PixelSize(width: 7680, height: 4320))
            pattern.append(Double(monotonicNanoseconds() - t) / 1e6)
            t = monotonicNanoseconds()
            _ = try Content.load(file: contentPNG, pixelBudget: 1 << 25)
            decode.append(Double(monotonicNanoseconds() - t) / 1e6)
        }
        print("of which, in process: test pattern 7680×4320 opened (its pinned levels drawn) \(Stats(samples: pattern).summary("ms")); "
              + "PNG 4096×4096 load \(Stats(samples: decode).summary("ms"))")
        for (name, content) in [("test pattern", nil), ("4096×4096 PNG", contentPNG)] as [(String, String?)] {
            var times: [Double] = []
            for i in 0..<repeats {
                let process = try DaemonProcess(binary: flickd, directory: directory, tag: "start-\(i)", content: content)
                times.append(try process.waitReady(timeout: 30))
                process.stop()
            }
            let stats = Stats(samples: times)
            print("\(name): \(stats.summary("ms"))")
            Verdicts.check("first frame ≤ 150 ms after start, \(name) (median)", stats.median <= 150, "\(fmt(stats.median)) ms")
        }
    }

    /// The content's pixel count from the daemon's `content: NAME, WxH` log line.
    static func contentPixels(log path: String) -> Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.contains("content: ") {
            for token in line.split(whereSeparator: { $0 == " " || $0 == "," }).reversed() {
                let sides = token.split(separator: "x")
                if sides.count == 2, let w = Int(sides[0]), let h = Int(sides[1]) { return w * h }
            }
        }
        return 0
    }
}

/// The machine, for the report: cores and CPU model.
enum Machine {
    static var description: String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") || $0.hasPrefix("Model") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" } ?? "?"
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
        return "\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, \(model), load average \(load.joined(separator: " ")) at start"
    }
}
