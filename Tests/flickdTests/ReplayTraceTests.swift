import Foundation
import Testing

/// `flickd replay --trace` on a real panel's recording (`$FLICKD_RECORDINGS`): the real binary
/// prints every machine's steps among the gestures, and nothing of them without the flag.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["FLICKD_RECORDINGS"].map { !$0.isEmpty } ?? false,
                "FLICKD_RECORDINGS is unset: the real-panel replay is skipped"))
struct ReplayTraceTests {
    /// `flickd replay ARGS`: its standard output.
    static func replay(_ arguments: [String]) throws -> (status: Int32, out: String) {
        // An empty config: the built-in defaults, whatever /etc holds.
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-trace-\(UUID()).toml").path
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let run = try runBuilt("flickd", ["replay"] + arguments + ["--config", config])
        return (run.status, run.out)
    }

    @Test func theFastTapsOfAnAtmelPanelTraceTheirMachines() throws {
        let file = ProcessInfo.processInfo.environment["FLICKD_RECORDINGS"]! + "/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
        let traced = try Self.replay([file, "--trace"])
        #expect(traced.status == 0)
        let lines = traced.out.split(separator: "\n").map(String.init)
        // The first touch, in order: the recogniser follows it, the scroll view tracks it, the
        // classifier holds it back, and the quick lift (heard by the scroll view first, so a
        // tap's zoom animates) makes it a tap.
        let first = ["0.000 s  gesture: idle → down → following", "0.000 s  scroll: idle → touchDown → tracking",
                     "0.000 s  tap: idle → down → pending", "0.096 s  scroll: tracking → release → idle",
                     "0.096 s  tap: pending → lift → idle", "0.096 s  tap at (340, 242)", "0.096 s  gesture: following → lift → idle"]
        // The presenter's lines interleave with them by vblank; the touch's own machines' do not.
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.contains("frame: ") }
        guard let start = trimmed.firstIndex(of: first[0]) else {
            Issue.record("no trace of the first touch in:\n\(traced.out)")
            return
        }
        #expect(Array(trimmed[start..<min(trimmed.count, start + first.count)]) == first)
        #expect(trimmed.contains("0.317 s  double tap at (354, 228) → zoom 2"))
        // Without the flag, only the gestures.
        let plain = try Self.replay([file])
        #expect(plain.status == 0 && !plain.out.contains("→ down →") && plain.out.contains("tap at (340, 242)"))
    }
}
