import FlickCore
import FlickDisplay
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 13: what each kind of frame costs — instructions and bytes — and what that would
/// take on a Raspberry Pi 4 and 5 (`PiBoard`).
///
/// Each kind runs in a child of its own (`flickd-bench --cost-frame KIND WxH`, `CostFrame`)
/// under callgrind, which counts only `CostFrame.drawMeasured()` (`--collect-atstart=no
/// --toggle-collect`): one frame exactly, its instructions repeatable on a shared machine
/// (this VM's `perf` has no hardware counters). The bytes are the frame's own accounting (the
/// rows it copies or samples, the band it fills, the bars it draws), cross-checked with
/// callgrind's cache simulation set to the Pi 4's caches (32 KiB L1D, 1 MiB L2): lines the
/// last level fetched for reads or wrote back, × 64 B. valgrind 3.19 cannot read the Swift
/// toolchain's DWARF, so the child is a copy of this binary without its debug sections (its
/// symbols kept: `--toggle-collect` finds the frame's function by name).
enum CostBench {
    static let title = "13. what a frame costs: instructions and bytes per kind of frame (callgrind), a Pi 4 / Pi 5 frame budget"

    /// 1080p and 2160p; `--quick` runs each kind once, at 1080p.
    static func sizes(quick: Bool) -> [PixelSize] {
        quick ? [PixelSize(width: 1920, height: 1080)]
            : [PixelSize(width: 1920, height: 1080), PixelSize(width: 3840, height: 2160)]
    }

    /// What callgrind counted over the measured frame.
    struct Counts {
        var instructions: Double
        /// Lines the last level fetched for reads, and dirty lines it wrote back, × 64 B.
        var memoryBytes: Double
    }

    /// One kind at one size.
    struct Row {
        var kind: CostFrameKind
        var size: PixelSize
        var report: CostFrame.Report
        var counts: Counts?
    }

    static func report(quick: Bool) {
        let valgrind = findValgrind()
        guard let me = selfPath() else {
            Verdicts.skip("frame cost", "cannot find this benchmark's own binary")
            return
        }
        if valgrind == nil { print("valgrind not found: bytes by accounting only, no instruction counts") }
        let child = valgrind == nil ? me : strippedCopy(of: me)
        print("each frame in a child under callgrind (one frame counted); bytes: the frame's accounting, and callgrind's "
              + "simulated Pi 4 caches (last-level lines fetched for reads + written back, × 64 B)")
        print("model: one core, time = max(instructions / (IPC × f), bytes / bandwidth); bandwidth less the display's own scan-out "
              + "(W×H×4 B at 60 Hz)")
        for board in [PiBoard.pi4, PiBoard.pi5] {
            print("  \(board.name): \(fmt(board.hertz / 1e9, 1)) GHz, IPC \(fmt(board.ipc, 1)), \(fmt(board.bandwidth / 1e9, 1)) GB/s read + written")
        }
        for size in sizes(quick: quick) {
            var rows: [Row] = []
            for kind in CostFrameKind.allCases {
                do {
                    rows.append(try measure(kind, size: size, binary: child, valgrind: valgrind))
                } catch {
                    print("flickd-bench: cost of \(kind.rawValue) at \(size.width)×\(size.height): \(error)")
                }
            }
            print(table(rows, size: size))
            let wrong = rows.filter { !isItsKind($0) }
            for row in wrong {
                Verdicts.check("frame cost: \(row.kind.rawValue) at \(row.size.width)×\(row.size.height) is that kind of frame", false,
                               row.report.line)
            }
            if wrong.isEmpty && rows.count == CostFrameKind.allCases.count {
                Verdicts.check("frame cost at \(size.width)×\(size.height): each kind's frame is that kind", true,
                               "\(rows.count) kinds (the Pi verdicts above are information, not targets)")
            }
        }
    }

    /// Whether the frame did what its kind says, so the figures are of that frame.
    private static func isItsKind(_ row: Row) -> Bool {
        let r = row.report
        guard r.committed == 1, r.failure == nil else { return false }
        switch row.kind {
        case .pan, .indicators: return r.primary == "content" && r.scannedOut == 1 && r.composedBuffers == 0
        case .panComposed: return r.primary == "composed" && r.scannedOut == 0
        case .band: return r.bandFills == 1 && r.primary == "content"
        case .zoomOut, .zoomIn: return r.primary == "composed" && r.overlays == 2
        case .pinch: return r.bandComposed == 1 && r.primary == "content"
        }
    }

    /// valgrind, installed for the benchmark when missing and running as root (a tool the
    /// benchmark measures with, never linked), as section 9 installs its peer.
    private static func findValgrind() -> String? {
        let candidates = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"]
        if let found = candidates.first(where: { access($0, X_OK) == 0 }) { return found }
        guard getuid() == 0 else { return nil }
        print("installing valgrind (apt-get)…")
        _ = ChildRun(["/usr/bin/apt-get", "install", "-y", "-qq", "--no-install-recommends", "valgrind"], log: "/dev/null",
                     environment: ["DEBIAN_FRONTEND=noninteractive", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        return access(candidates[0], X_OK) == 0 ? candidates[0] : nil
    }

    /// Runs one kind in a child (under callgrind when there is valgrind) and reads its report
    /// and counts back.
    static func measure(_ kind: CostFrameKind, size: PixelSize, binary: String, valgrind: String?) throws -> Row {
        let tag = "cost-\(kind.rawValue)-\(size.width)x\(size.height)"
        let profile = "\(DaemonBench.directory)/\(tag).callgrind"
        var args = [binary, "--cost-frame", kind.rawValue, "\(size.width)x\(size.height)"]
        if let valgrind {
            args = [valgrind, "--tool=callgrind", "--callgrind-out-file=\(profile)", "--collect-atstart=no",
                    "--toggle-collect=*9CostFrameC12drawMeasuredyyF", "--cache-sim=yes", "--simulate-wb=yes",
                    "--I1=49152,3,64", "--D1=32768,2,64", "--LL=1048576,16,64"] + args
        }
        var env = ProcessInfo.processInfo.environment
        // glibc's memcpy would use `rep movsb` from 2 KiB up; valgrind counts each byte of it as
        // an instruction. Above the threshold it copies with vector loops, 32 B an instruction
        // (AVX), as AArch64's with LDP/STP of q registers.
        env["GLIBC_TUNABLES"] = "glibc.cpu.x86_rep_movsb_threshold=1073741824"
        let (status, out, err) = try run(args, environment: env, tag: tag)
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("cost-frame ") }),
              let report = CostFrame.Report(line: line) else {
            throw RigError("exit \(status), no report: \(out.suffix(300)) \(err.suffix(600))")
        }
        var counts: Counts?
        if valgrind != nil {
            guard let text = try? String(contentsOfFile: profile, encoding: .utf8), let parsed = parseCallgrind(text) else {
                throw RigError("no callgrind totals in \(profile): \(err.suffix(600))")
            }
            counts = parsed
            unlink(profile)
        }
        return Row(kind: kind, size: size, report: report, counts: counts)
    }

    /// The `events:` and `totals:` (or `summary:`) lines of a callgrind profile.
    static func parseCallgrind(_ text: String) -> Counts? {
        var events: [Substring] = [], totals: [Double] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("events:") { events = line.dropFirst(7).split(separator: " ") }
            if line.hasPrefix("totals:") || (totals.isEmpty && line.hasPrefix("summary:")) {
                totals = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            }
        }
        guard !events.isEmpty else { return nil }
        func value(_ name: String) -> Double {
            guard let i = events.firstIndex(of: Substring(name)) else { return 0 }
            return i < totals.count ? totals[i] : 0   // trailing zeros are left out
        }
        let ir = value("Ir")
        guard ir > 0 || !totals.isEmpty else { return nil }
        // A write miss's line fill is left out: the Cortex-A72 and A76 write full lines of a
        // streaming copy without reading them first (write streaming mode).
        let lines = value("ILmr") + value("DLmr") + value("ILdmr") + value("DLdmr") + value("DLdmw")
        return Counts(instructions: ir, memoryBytes: 64 * lines)
    }

    /// The table of one resolution: kinds × instructions, bytes, Pi 4 and Pi 5 ms, verdicts.
    static func table(_ rows: [Row], size: PixelSize) -> String {
        var lines = ["\(size.width)×\(size.height)   instructions   bytes (accounting / cache sim)   Pi 4 ms (sum)   Pi 5 ms (sum)   verdict Pi 4 / Pi 5"]
        for row in rows {
            let accounted = Double(row.report.readBytes + row.report.writtenBytes)
            // The model takes the larger of the two byte counts: the simulation also counts what
            // the caches fetch to write a line (write-allocate), the accounting no cache effect.
            let bytes = max(accounted, row.counts?.memoryBytes ?? 0)
            let instructions = row.counts?.instructions
            func cell(_ board: PiBoard) -> (String, Bool?) {
                guard let instructions else { return ("n/a", nil) }
                let t = board.milliseconds(instructions: instructions, bytes: bytes, panel: size)
                return ("\(fmt(t.model, 2)) (\(fmt(t.sum, 2)))", t.model <= PiBoard.budget)
            }
            let (p4, f4) = cell(.pi4), (p5, f5) = cell(.pi5)
            func verdict(_ fits: Bool?) -> String { fits.map { $0 ? "fits 16.7 ms" : "misses" } ?? "n/a" }
            lines.append("  " + pad(row.kind.title, 34) + pad(instructions.map { mega($0) } ?? "n/a", 12)
                         + pad("\(megabytes(accounted)) / \(row.counts.map { megabytes($0.memoryBytes) } ?? "n/a")", 22)
                         + pad(p4, 16) + pad(p5, 16) + verdict(f4) + " / " + verdict(f5))
        }
        return lines.joined(separator: "\n")
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }

    private static func mega(_ x: Double) -> String { "\(fmt(x / 1e6, 2)) M" }
    private static func megabytes(_ x: Double) -> String { "\(fmt(x / 1e6, 2)) MB" }

    /// A copy of `binary` without its debug sections, for valgrind; `binary` itself when
    /// `objcopy` is missing or fails.
    private static func strippedCopy(of binary: String) -> String {
        let copy = "\(DaemonBench.directory)/flickd-bench-cost"
        guard access("/usr/bin/objcopy", X_OK) == 0,
              let (status, _, err) = try? run(["/usr/bin/objcopy", "--strip-debug", binary, copy], environment: [:], tag: "objcopy"),
              status == 0 else {
            print("objcopy --strip-debug failed: valgrind reads the binary's own debug sections")
            return binary
        }
        if !err.isEmpty { print("objcopy: \(err)") }
        return copy
    }

    /// This binary, to run it again as the child.
    private static func selfPath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `args` to its end, its output and errors into files of the bench's folder.
    private static func run(_ args: [String], environment: [String: String], tag: String) throws -> (Int32, String, String) {
        let outPath = "\(DaemonBench.directory)/\(tag).out", errPath = "\(DaemonBench.directory)/\(tag).err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = args.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, args[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw RigError("posix_spawn \(args[0]): errno \(rc)") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // Killed by a signal: 128 + its number, as a shell says it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        unlink(outPath)
        unlink(errPath)
        return (code, out, err)
    }
}
