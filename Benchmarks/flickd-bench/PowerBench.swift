import FlickCore
import FlickDaemon
import FlickDisplay
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Item 12: display power (issue 35). A kiosk whose panel is off must cost nothing: the real
/// daemon, turned off by its `off_after_s` timer, is left alone and its wake-ups counted as in
/// item 4; and a visitor's touch must light it at once: on the live sd-event path (the pipe
/// touchscreen of item 3), the panel turned off by `display off`, one finger down, timed from
/// its kernel stamp to the commit of the first lit frame and to that frame's vblank on a 60 Hz
/// headless panel (the vblank's phase adds up to a refresh period).
enum PowerBench {
    static let title = "12. display power: wake-ups while off, and the waking touch → first lit frame (headless 1920×1080)"

    /// Runs both parts.
    static func report(flickd: String?, content: Content, idleSeconds: Double, wakes: Int) {
        do {
            try off(flickd: flickd, seconds: idleSeconds)
            try wake(content: content, samples: wakes)
        } catch {
            print("flickd-bench: power: \(error)")
            Verdicts.check("display power measured", false, "\(error)")
        }
    }

    /// The real daemon, off by its timer, left alone for `seconds`.
    static func off(flickd: String?, seconds: Double) throws {
        guard let flickd else {
            Verdicts.skip("0 wake-ups while the panel is off", "no flickd binary")
            return
        }
        let daemon = try DaemonProcess(binary: flickd, directory: DaemonBench.directory, tag: "power-off", content: nil,
                                       config: "[power]\noff_after_s = 1\nmethod = \"dpms\"\n")
        _ = try daemon.waitReady(timeout: 30)
        let end = monotonicNanoseconds() + 10_000_000_000
        var log = ""
        while monotonicNanoseconds() < end {
            log = (try? String(contentsOfFile: daemon.logPath, encoding: .utf8)) ?? ""
            if log.contains("display off (idle)") { break }
            usleep(50_000)
        }
        guard log.contains("display off (idle)") else {
            daemon.stop()
            Verdicts.check("0 wake-ups while the panel is off", false, "the panel did not go off within 10 s")
            return
        }
        usleep(300_000)   // the last frame's presentation and the off step settle
        let before = daemon.counters
        usleep(UInt32(seconds * 1e6))
        let after = daemon.counters
        daemon.stop()
        let runs = after.runs - before.runs
        print("flickd, panel off by off_after_s = 1 (DPMS): \(runs) wake-ups (schedstat) in \(fmt(seconds, 0)) s, "
              + "\(after.voluntary - before.voluntary) voluntary context switches")
        Verdicts.check("0 wake-ups in \(fmt(seconds, 0)) s with the panel off", runs == 0, "\(runs)")
    }

    /// `samples` wakes on the live path: off, a finger down, its lift.
    static func wake(content: Content, samples: Int) throws {
        let rig = try LatencyRig(content: content) { c in
            c.power.offAfterSeconds = 3600   // power on, its timer out of the way: `display off` turns it off
            c.power.method = .dpms
        }
        try rig.settle()
        var toCommit: [Double] = [], toVblank: [Double] = []
        for _ in 0..<samples {
            guard rig.pipeline.setDisplay(.off, at: rig.loop.now) else { throw RigError("display off refused") }
            rig.runner.rearm()
            try rig.settle()
            guard rig.pipeline.power?.isOff == true else { throw RigError("the panel did not go off") }
            usleep(1000 + UInt32.random(in: 0..<2000))   // the loop asleep in epoll when the touch lands
            let committed = rig.samples.count
            let stamp = rig.touch(down: true)
            let deadline = monotonicNanoseconds() + 1_000_000_000
            // This touch's wake (the last one's is still there until the touch is read); an
            // evdev time has whole microseconds.
            func lit() -> Instant? {
                guard let wake = rig.pipeline.power?.lastWake, abs((wake.touch - stamp).nanoseconds) < 1000 else { return nil }
                return wake.firstLitFrame
            }
            while lit() == nil, monotonicNanoseconds() < deadline {
                _ = try rig.loop.runOnce(timeout: .milliseconds(50))
            }
            guard let lit = lit() else { throw RigError("no lit frame within 1 s of the waking touch") }
            toVblank.append(Double((lit - stamp).nanoseconds) / 1000)
            if rig.samples.count > committed, let last = rig.samples.last { toCommit.append(last) }
            rig.touch(down: false)
            try rig.settle()
        }
        let commit = Stats(samples: toCommit), vblank = Stats(samples: toVblank)
        print("waking touch → first lit frame committed: \(commit.summary("µs", digits: 0))")
        print("waking touch → its vblank (60 Hz, the phase included): \(vblank.summary("µs", digits: 0))")
        Verdicts.check("waking touch → first lit frame committed ≤ 1 ms (p99)", commit.samples.count == samples && commit.p99 <= 1000,
                       "\(fmt(commit.p99, 0)) µs, \(commit.samples.count) of \(samples) timed")
    }
}
