import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import FlickDaemon

/// A parse of the config keeps no memory, whether the file is taken or refused: a kiosk is
/// reloaded for months, and the fuzzer parses millions of files in one process. TOMLKit, used
/// before, freed nothing: every parse of config/flickd.toml kept about 18 KB, every refused
/// file about 100 B (RELIABILITY.md #18).
struct ConfigMemoryTests {
    @Test func parsingKeepsNoMemory() async {
        // In a process of its own, where no other test allocates beside it.
        await #expect(processExitsWith: .success) {
            let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("config/flickd.toml").path
            guard let text = try? String(contentsOfFile: shipped, encoding: .utf8) else { exit(2) }
            let texts = [
                text,                                 // taken
                "x = [\n",                            // refused by toml++
                "[scroll]\nbounces = 3\n",            // refused by the schema
                "[scroll]\n\"k\\u0000x\" = 1\n",      // refused: unknown key
                "[zoom]\nminimum_scale = 3\nmaximum_scale = 2\n",  // refused across keys
            ]
            func parseAll(_ times: Int) {
                for t in texts {
                    for _ in 0..<times { _ = try? ConfigLoader.parse(t, path: "memory.toml") }
                }
            }
            /// Resident bytes: a heap that frees what it took stays the same size.
            func resident() -> Int {
                let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
                return (statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * Int(getpagesize())
            }
            parseAll(50)   // the runtime's caches fill on first use
            let before = resident()
            parseAll(1_000)
            let grown = resident() - before
            // 5 000 parses: 18 KB kept by each taken one would be 18 MB, 100 B by each refused one 0.4 MB.
            exit(before > 0 && grown <= 256 * 1024 ? 0 : 1)
        }
    }
}
