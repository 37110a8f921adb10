// flickd-soak: the real daemon on the headless display under a synthetic 250 Hz touch stream
// for a long time, sampled every 10 s (`--sample-every`): resident memory (anonymous, file-backed, shared memory),
// open fds, frames. `scripts/soak.sh`. With --writes, the bytes it writes to disk instead
// (Writes.swift, `scripts/writes.sh`).
//
//     flickd-soak [--minutes M] [--warm-up S] [--flickd PATH]
//                 [--content PATH] [--flick-every S] [--flicks up,down,left,right] [--size WxH]
//                 [--sample-every S]
//
// `--flick-every S`: only flicks, one every S seconds, instead of the loop of every gesture; in
// turn the directions `--flicks` names (all four by default: at rest at an edge half the time,
// so each flick back bounces; `--flicks up` reaches the far edge only after many); `--content`:
// what the daemon shows (the test pattern otherwise); `--size`: the headless panel (800x480).
import FlickControl
import FlickInput
import Foundation
import Glibc

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Double) -> Double {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let v = Double(arguments[i + 1]) else { return fallback }
    return v
}
/// Starts `executable` (flickd, or strace running it) with flickd's log on standard error,
/// which is thrown away: the soak reads the daemon through /proc and its control socket.
func startQuietly(_ executable: String, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["FLICKD_LOG"] = "stderr"
    process.environment = environment
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    return process
}
let minutes = option("--minutes", 10)
let warmUp = option("--warm-up", 60)
let sampleEvery = option("--sample-every", 10)
let binary = arguments.firstIndex(of: "--flickd").map { arguments[$0 + 1] } ?? ".build/release/flickd"
if arguments.contains("--writes") { exit(try writesRun()) }
let content = arguments.firstIndex(of: "--content").map { arguments[$0 + 1] }
let flickEvery = option("--flick-every", 0)
let size = arguments.firstIndex(of: "--size").map { arguments[$0 + 1] } ?? "800x480"
let directions = (arguments.firstIndex(of: "--flicks").map { arguments[$0 + 1] } ?? "up,down,left,right").split(separator: ",")

/// A loop of gestures at 250 Hz for the whole run: flicks both ways, a slow drag, pinches out
/// and in, taps, a double tap and a long press, every 7 s, so something always moves.
func recording(seconds: Double) -> String {
    var s = TouchScript(description: .slotTouchscreen(name: "flickd soak panel", width: 800, height: 480, slots: 10,
                                                      resolution: 10), rate: 0.004)
    s.idle(0)
    var t = 1.0
    while t + 7 < seconds {
        s.drag(from: (400, 420), to: (400, 120), seconds: 0.12, t: t)          // flick up
        s.drag(from: (400, 120), to: (400, 420), seconds: 0.12, t: t + 1.2)    // flick down
        s.drag(from: (200, 300), to: (500, 200), seconds: 1.0, t: t + 2.4)     // slow diagonal drag
        s.pinch(centre: (400, 240), from: 60, to: 160, seconds: 0.5, t: t + 3.6)
        s.pinch(centre: (400, 240), from: 160, to: 50, seconds: 0.5, t: t + 4.3)
        s.tap(at: 300, 200, t: t + 5.0)
        s.tap(at: 302, 201, t: t + 5.2)
        s.hold(at: 500, 300, seconds: 0.7, t: t + 5.8)
        t += 7
    }
    return s.text
}

/// Flicks alone, one every `every` seconds, in turn in the directions `--flicks` names (the
/// finger's: up scrolls the content towards its bottom).
func flicks(seconds: Double, every: Double) -> String {
    var s = TouchScript(description: .slotTouchscreen(name: "flickd soak panel", width: 800, height: 480, slots: 10,
                                                      resolution: 10), rate: 0.004)
    s.idle(0)
    let named: [Substring: ((Double, Double), (Double, Double))] = [
        "up": ((400, 420), (400, 120)), "down": ((400, 120), (400, 420)),
        "left": ((650, 240), (150, 240)), "right": ((150, 240), (650, 240)),
    ]
    let strokes = directions.compactMap { named[$0] }
    guard !strokes.isEmpty else { fatalError("--flicks: up, down, left or right, separated by commas") }
    var t = 1.0, n = 0
    while t + 1 < seconds {
        let (from, to) = strokes[n % strokes.count]
        s.drag(from: from, to: to, seconds: 0.12, t: t)
        t += every
        n += 1
    }
    return s.text
}

struct Sample {
    var second: Int
    var rssKB: Int
    var anonKB: Int, fileKB: Int, shmemKB: Int
    var fds: Int
    var frames: Int
}

/// A field of /proc/PID/status in kB (VmRSS, RssAnon, RssFile, RssShmem), -1 if unread.
func rss(_ pid: Int32, _ field: String = "VmRSS") -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

func fdCount(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

var template = Array("/tmp/flickd-soak-XXXXXX".utf8CString)
guard let made = mkdtemp(&template) else { fatalError("mkdtemp") }
let dir = String(cString: made)
let seconds = minutes * 60
try (flickEvery > 0 ? flicks(seconds: seconds + 10, every: flickEvery) : recording(seconds: seconds + 10)).write(toFile: dir + "/soak.event", atomically: true, encoding: .utf8)
try """
[display]
headless_size = "\(size)"
[control]
socket = "\(dir)/control.sock"
[state]
path = "\(dir)/state.json"
[log]
gestures = false
""".write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)

let process = try startQuietly(binary, ["run", "--display", "headless", "--input", "evemu:\(dir)/soak.event", "--config", dir + "/flickd.toml"]
                                       + (content.map { ["--content", $0] } ?? []))
let pid = process.processIdentifier
usleep(1_000_000)

let what = flickEvery > 0 ? "a flick every \(flickEvery) s" : "250 Hz gestures"
print("flickd-soak: \(binary), \(Int(minutes)) min of \(what) over \(content ?? "the test pattern") on \(size), pid \(pid), "
      + "warm-up \(Int(warmUp)) s")
print("   t/s   RSS/kB  anon/kB  file/kB shmem/kB   fds   frames   frames/s")
var samples: [Sample] = []
let start = Date()
while Date().timeIntervalSince(start) < seconds, process.isRunning {
    // fds first: the status connection itself is an fd of the daemon's until it sees the close.
    let fds = fdCount(pid), memory = rss(pid)
    let frames = (try? ControlClient(path: dir + "/control.sock").call(ControlRequest(cmd: "status")).status?.frames) ?? nil
    let sample = Sample(second: Int(Date().timeIntervalSince(start).rounded()), rssKB: memory,
                        anonKB: rss(pid, "RssAnon"), fileKB: rss(pid, "RssFile"), shmemKB: rss(pid, "RssShmem"),
                        fds: fds, frames: frames ?? -1)
    let rate = samples.last.map { Double(sample.frames - $0.frames) / Double(max(1, sample.second - $0.second)) } ?? 0
    print(String(format: "%6d %8d %8d %8d %8d %5d %8d %10.1f", sample.second, sample.rssKB, sample.anonKB, sample.fileKB,
                 sample.shmemKB, sample.fds, sample.frames, rate))
    samples.append(sample)
    usleep(UInt32(sampleEvery * 1e6))
}
let alive = process.isRunning
kill(pid, SIGTERM)
process.waitUntilExit()

let settled = samples.filter { Double($0.second) >= warmUp }
var failures: [String] = []
if !alive { failures.append("flickd exited during the run (status \(process.terminationStatus))") }
if let first = settled.first {
    let drift = settled.map { $0.rssKB - first.rssKB }
    let worst = drift.map(abs).max() ?? 0
    print("RSS after warm-up: \(first.rssKB) kB, drift \(drift.min() ?? 0)…\(drift.max() ?? 0) kB (limit ±1024 kB)")
    if worst > 1024 { failures.append("RSS drifted \(worst) kB after warm-up") }
    let fds = Set(settled.map(\.fds))
    print("open fds after warm-up: \(fds.sorted())")
    if fds.count != 1 { failures.append("the fd count changed: \(fds.sorted())") }
    let stalled = zip(settled, settled.dropFirst()).filter { $1.frames <= $0.frames }
    if !stalled.isEmpty { failures.append("no new frames between \(stalled.map { "\($0.0.second)–\($0.1.second) s" })") }
} else {
    failures.append("no samples after the warm-up")
}
print("exit status \(process.terminationStatus)")
try? FileManager.default.removeItem(atPath: dir)
print(failures.isEmpty ? "soak: PASS" : "soak: FAIL: " + failures.joined(separator: "; "))
exit(failures.isEmpty ? 0 : 1)
