// flickd-soak --writes: what the daemon writes to disk while a kiosk is used and while it is
// idle, from /proc/PID/io (`scripts/writes.sh`, RELIABILITY.md "The SD card").
import FlickControl
import FlickInput
import Foundation
import Glibc

/// One flick every `every` seconds, up and down in turn, from 3 s to `seconds`.
func flickRecording(seconds: Double, every: Double) -> String {
    var s = TouchScript(description: .slotTouchscreen(name: "flickd writes panel", width: 800, height: 480, slots: 10,
                                                      resolution: 10), rate: 0.004)
    s.idle(0)
    var t = 3.0, up = true
    while t < seconds {
        _ = up ? s.drag(from: (400, 400), to: (400, 100), seconds: 0.12, t: t) : s.drag(from: (400, 100), to: (400, 400), seconds: 0.12, t: t)
        up.toggle()
        t += every
    }
    s.idle(seconds + 1)
    return s.text
}

/// The counters of /proc/PID/io that matter here: bytes sent to the block layer, and for
/// context the bytes and calls of write(2) and its kin (sockets and the journal included).
struct IOCounters {
    var writeBytes = 0, wchar = 0, syscw = 0

    init(pid: Int32) {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "write_bytes": writeBytes = value
            case "wchar": wchar = value
            case "syscw": syscw = value
            default: break
            }
        }
    }

    init() {}

    static func - (a: IOCounters, b: IOCounters) -> IOCounters {
        var d = IOCounters()
        (d.writeBytes, d.wchar, d.syscw) = (a.writeBytes - b.writeBytes, a.wchar - b.wchar, a.syscw - b.syscw)
        return d
    }

    var line: String { "write_bytes \(writeBytes), wchar \(wchar), syscw \(syscw)" }
}

/// Runs the daemon over `--content` (a 3000² image by default) with its state file and cache
/// folder in a temporary folder on disk, flicking for `--minutes`, then idle for `--idle-minutes`;
/// `--state-extra` lines go into its `[state]` table, `--config-extra` after it. With `--strace FILE` the daemon runs under strace
/// writing FILE, and the counters are not read (they would be strace's).
@MainActor func writesRun() throws -> Int32 {
    let every = option("--every", 1.5)
    let idle = option("--idle-minutes", 2) * 60
    let content = arguments.firstIndex(of: "--content").map { arguments[$0 + 1] } ?? "demo/map.jpg"
    let extra = arguments.firstIndex(of: "--config-extra").map { arguments[$0 + 1] } ?? ""
    let stateExtra = arguments.firstIndex(of: "--state-extra").map { arguments[$0 + 1] } ?? ""
    let strace = arguments.firstIndex(of: "--strace").map { arguments[$0 + 1] }
    var template = Array("/var/tmp/flickd-writes-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp") }
    let dir = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let seconds = minutes * 60
    try flickRecording(seconds: seconds, every: every).write(toFile: dir + "/flicks.event", atomically: true, encoding: .utf8)
    try """
    [display]
    headless_size = "800x480"
    [control]
    socket = "\(dir)/control.sock"
    [content]
    path = "\(URL(fileURLWithPath: content).path)"
    cache_directory = "\(dir)/cache"
    [state]
    path = "\(dir)/state/state.json"
    \(stateExtra)
    \(extra)
    """.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)

    let daemonArguments = ["run", "--display", "headless", "--input", "evemu:\(dir)/flicks.event", "--config", dir + "/flickd.toml"]
    let process = if let strace {
        try startQuietly("/usr/bin/strace", ["-f", "-qq", "-o", strace, "-e",
                                             "trace=openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,fsync,fdatasync,sync_file_range,ftruncate",
                                             binary] + daemonArguments)
    } else {
        try startQuietly(binary, daemonArguments)
    }
    let pid = process.processIdentifier
    let started = Date()
    while (try? ControlClient(path: dir + "/control.sock").call(ControlRequest(cmd: "status"))) == nil {
        guard process.isRunning, Date().timeIntervalSince(started) < 60 else {
            print("writes: FAIL: flickd did not answer status")
            return 1
        }
        usleep(100_000)
    }
    let atReady = strace == nil ? IOCounters(pid: pid) : IOCounters()
    let readyAt = Date()
    print("flickd-writes: \(binary) on \(content), a flick every \(every) s for \(Int(minutes)) min, then \(Int(idle)) s idle")
    print("at ready (start, content loaded): \(atReady.line)")
    // Ten seconds after the last flick, so its rest and a save it may cause are counted as gestures.
    usleep(UInt32(max(0, seconds + 10 - Date().timeIntervalSince(started)) * 1e6))
    let afterFlicks = strace == nil ? IOCounters(pid: pid) : IOCounters()
    let busySeconds = Date().timeIntervalSince(readyAt)
    usleep(UInt32(idle * 1e6))
    let afterIdle = strace == nil ? IOCounters(pid: pid) : IOCounters()
    let alive = process.isRunning
    kill(pid, SIGTERM)
    process.waitUntilExit()
    guard alive, strace == nil else {
        print(alive ? "strace written to \(strace ?? "")" : "writes: FAIL: flickd exited during the run")
        return alive ? 0 : 1
    }
    let busy = afterFlicks - atReady, quiet = afterIdle - afterFlicks
    let perHour = Double(busy.writeBytes) * 3600 / busySeconds
    print("gestures (\(Int(busySeconds)) s): \(busy.line)")
    print(String(format: "gestures: %.0f bytes an hour to disk (%.1f KiB), %.1f per flick", perHour, perHour / 1024,
                 Double(busy.writeBytes) / max(1, (seconds - 3) / every)))
    print("idle (\(Int(idle)) s): \(quiet.line)")
    let size = (try? FileManager.default.attributesOfItem(atPath: dir + "/state/state.json"))?[.size] as? Int
    print("state file at stop: \(size.map { "\($0) bytes" } ?? "none")")
    let pass = quiet.writeBytes == 0 && perHour <= 65536
    print(pass ? "writes: PASS (≤ 64 KiB an hour of gestures, 0 idle)" : "writes: FAIL (bound: ≤ 64 KiB an hour of gestures, 0 idle)")
    return pass ? 0 : 1
}
