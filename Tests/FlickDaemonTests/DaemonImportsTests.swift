import Foundation
import Testing

/// The daemon's modules import FoundationEssentials, never the whole of Foundation: one
/// `import Foundation` anywhere in what `flickd` links pulls in FoundationInternationalization
/// and ICU's data, 34 MB of the static binary, 3.5–4.5 MiB more of it resident in every flickd
/// process (the daemon and each pyramid build), which BENCHMARKS.md's memory targets cannot
/// afford (BENCHMARKS.md, "Memory back within its targets").
@Suite struct DaemonImportsTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The Swift modules of Package.swift's `flickd` product and everything it depends on.
    static let daemonModules = ["FlickCore", "FlickSystem", "FlickInput", "FlickDisplay", "FlickWayland", "FlickControl",
                                "FlickDaemon", "flickd"]

    /// `file:line` of every import of the whole of Foundation (or of its internationalization)
    /// in the Swift files under `root`, named from `module`.
    static func wholeFoundationImports(under root: URL, module: String) throws -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root.path) else { return ["\(module): not found"] }
        var found: [String] = []
        for case let file as String in walk where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root.appendingPathComponent(file).path, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                guard words.count >= 2, words[0] == "import" || words.count >= 3 && words[1] == "import" else { continue }
                let name = words[words[0] == "import" ? 1 : 2]
                if name == "Foundation" || name.hasPrefix("Foundation.") || name == "FoundationInternationalization" {
                    found.append("\(module)/\(file):\(number + 1)")
                }
            }
        }
        return found
    }

    @Test func everyModuleOfTheDaemonImportsFoundationEssentialsOnly() throws {
        var found: [String] = []
        for module in Self.daemonModules {
            found += try Self.wholeFoundationImports(under: Self.sources.appendingPathComponent(module), module: module)
        }
        #expect(found == [])
    }

    /// The scan sees an import where there is one: the benchmark, not linked into the daemon,
    /// imports the whole of Foundation in its main file.
    @Test func theScanFindsAWholeImport() throws {
        let benchmark = Self.sources.deletingLastPathComponent().appendingPathComponent("Benchmarks/flickd-bench")
        let found = try Self.wholeFoundationImports(under: benchmark, module: "flickd-bench")
        #expect(found.contains { $0.hasPrefix("flickd-bench/main.swift:") })
    }
}
