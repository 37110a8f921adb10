import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickInput
import Foundation
import Glibc
import Testing

/// docs/ARCHITECTURE.md's "The path of one touch", counted from the code: a drag replayed
/// through the pipeline as `PipelineBuilder` assembles it, on the headless output with overlay
/// planes, and LLVM's coverage counters reset just before the wake-up that reads one report and
/// written just after the frame it moves is committed. Every source file whose code ran in between
/// must be in the document's table (or its list of values), and every file the table gives for a
/// replay must have run: the test fails when the document and the code disagree.
///
/// The counters exist only in an instrumented build, and they count every thread of the process,
/// so the test runs alone in one (scripts/test.sh: `scripts/touch-path.sh`); elsewhere it is
/// skipped and says why.
@Suite(.enabled(if: TouchPath.isMeasurable, "needs an instrumented build run alone: scripts/touch-path.sh"))
struct TouchPathTests {
    @Test func theDocumentedPathOfOneTouchIsTheOneTheCodeTakes() throws {
        let entered = try TouchPath.measure()
        let markdown = try String(contentsOfFile: TouchPath.repository + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let document: TouchPath.Document
        do {
            document = try TouchPath.Document(markdown: markdown)
        } catch {
            Issue.record("\(error); the touch entered \(entered.sorted())")
            return
        }
        let expected = document.replayed.union(document.values)
        let unlisted = entered.subtracting(expected).sorted()
        let notEntered = document.replayed.subtracting(entered).sorted()
        #expect(unlisted.isEmpty, "entered by the touch, missing from ARCHITECTURE.md's path of one touch: \(unlisted)")
        #expect(notEntered.isEmpty, "in ARCHITECTURE.md's path of one touch, not entered by the replayed touch: \(notEntered)")
        let values = document.values.subtracting(entered).sorted()
        #expect(values.isEmpty, "listed as values along the path, not entered: \(values)")
        for file in document.live.union(document.replayed) {
            #expect(access(TouchPath.repository + "/Sources/" + file, F_OK) == 0, "ARCHITECTURE.md names \(file): no such file")
        }
    }
}

/// What the test measures and reads.
enum TouchPath {
    /// The checkout this test file is in.
    static let repository: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// LLVM's profile runtime: linked into an instrumented build, whose symbols are hidden (not
    /// for `dlsym`), so they are named at link time, in the build scripts/touch-path.sh makes.
    private struct Runtime {
        let reset: () -> Void
        let setFilename: (UnsafePointer<CChar>) -> Void
        let write: () -> Int32

        init?() {
            #if FLICKD_TOUCH_PATH
            reset = { llvmProfileResetCounters() }
            setFilename = { llvmProfileSetFilename($0) }
            write = { llvmProfileWriteFile() }
            #else
            return nil
            #endif
        }
    }

    /// An instrumented build, run by scripts/touch-path.sh (which runs nothing else beside it).
    static var isMeasurable: Bool {
        getenv("FLICKD_TOUCH_PATH") != nil && Runtime() != nil
    }

    /// The source files (below Sources/, as `Module/Folder/File.swift`) whose code ran from the
    /// wake-up that reads one report of a drag to the commit of the frame it moves.
    static func measure() throws -> Set<String> {
        let runtime = try #require(Runtime())
        // A dry run finds the wake-ups: every dispatch's time, and which of them run from the
        // report (taken while the finger drags, no frame in flight) to the commit of its frame.
        let (dry, output) = try dragging()
        var times: [Instant] = []
        var start: Int?
        var window: ClosedRange<Int>?
        var now = dry.now
        while window == nil, let next = dry.nextDeadline {
            now = max(now, next)
            let reportDue = dry.input.nextDeadline.map { $0 <= now } ?? false
            // Another report before the frame: start again at this one.
            if reportDue { start = nil }
            if reportDue && dry.scrollView.isDragging && !output.isFlipPending && dry.scrollView.contentOffset.y > 50 {
                start = times.count
            }
            times.append(now)
            dry.dispatch(now: now)
            if let start, output.isFlipPending { window = start...(times.count - 1) }
        }
        let measured = try #require(window, "no report of the drag was followed by its frame")
        // The measured run: the same pipeline, the same wake-ups (virtual time: the same steps),
        // and the counters on for that window only, so they see the pipeline's work and none of
        // the test's own looking.
        let (pipeline, _) = try dragging()
        for (i, t) in times.enumerated() {
            if i == measured.lowerBound { runtime.reset() }
            pipeline.dispatch(now: t)
        }
        let scratch = FileManager.default.temporaryDirectory.path + "/flickd-touch-path-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let raw = scratch + "/touch.profraw", merged = scratch + "/touch.profdata"
        raw.withCString { runtime.setFilename($0) }
        let written = runtime.write()
        // What the runtime writes again at exit is not wanted.
        "/dev/null".withCString { runtime.setFilename($0) }
        try #require(written == 0, "cannot write the profile \(raw)")
        try run(tool("llvm-profdata"), ["merge", "-sparse", raw, "-o", merged])
        if let keep = getenv("FLICKD_TOUCH_PATH_KEEP") {
            // For whoever rewrites the document: `llvm-cov report -show-functions` on it says
            // which functions of a file ran.
            try run("cp", [merged, String(cString: keep)])
        }
        let json = try run(tool("llvm-cov"), ["export", "-summary-only", "-instr-profile", merged, executable()])
        return try enteredFiles(json)
    }

    /// A drag at 300 px/s, 125 reports a second, resampled to each frame as by default, on an
    /// 800×480 headless panel with two overlay planes (the indicators ride on them) showing an
    /// image at zoom 1 (scanned out): the pipeline started, and its output.
    static func dragging() throws -> (Pipeline, HeadlessOutput) {
        let panel = PixelSize(width: 800, height: 480)
        var script = TouchScript(description: .slotTouchscreen(width: Int32(panel.width), height: Int32(panel.height)))
        script.idle(0)
        _ = script.drag(from: (400, 400), to: (400, 100), seconds: 1, t: 0.1)
        let recording = try EvemuRecording.parse(script.text, path: "touch path")
        let output = try #require(HeadlessOutput(size: panel, overlayPlanes: 2))
        let content = try Content(image: #require(TestPattern.make(PixelSize(width: panel.width * 2, height: panel.height * 4))))
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: output, content: content, input: .recording(recording, start: .milliseconds(500)), at: .zero)
        pipeline.start()
        return (pipeline, output)
    }

    /// The files with a function that ran, from `llvm-cov export -summary-only`.
    static func enteredFiles(_ json: String) throws -> Set<String> {
        struct Export: Decodable {
            struct Data: Decodable { var files: [File] }
            struct File: Decodable {
                var filename: String
                var summary: Summary
            }
            struct Summary: Decodable { var functions: Count }
            struct Count: Decodable { var covered: Int }
            var data: [Data]
        }
        let export = try JSONDecoder().decode(Export.self, from: Data(json.utf8))
        var files: Set<String> = []
        for file in export.data.flatMap(\.files) where file.summary.functions.covered > 0 {
            if let sources = file.filename.range(of: repository + "/Sources/") {
                files.insert(String(file.filename[sources.upperBound...]))
            }
        }
        try #require(!files.isEmpty, "llvm-cov named no source file")
        return files
    }

    /// The test executable (llvm-cov reads its coverage mapping).
    static func executable() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    /// An LLVM tool of the toolchain that built the test (its profile format), from
    /// `FLICKD_LLVM_BIN` (scripts/touch-path.sh sets it), else the PATH.
    static func tool(_ name: String) -> String {
        if let bin = getenv("FLICKD_LLVM_BIN") { return String(cString: bin) + "/" + name }
        return name
    }

    /// Runs a tool, returning its standard output; fails the test with its standard error.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard error is small; standard output (the JSON) is read whole first.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0,
                     "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: stderr, as: UTF8.self))")
        return String(decoding: stdout, as: UTF8.self)
    }

    /// The path as docs/ARCHITECTURE.md writes it: the table under "## The path of one touch"
    /// (`| step | file | runs in | … |`, the file as `Module/…/File.swift` in backticks, "runs in"
    /// one of `both`, `live`, `replay`), and the paragraph starting "Values along the way".
    struct Document {
        /// Files a replayed touch enters (`both` and `replay` rows).
        var replayed: Set<String> = []
        /// Files only a live run enters (`live` rows).
        var live: Set<String> = []
        /// Value types the steps use, not steps of their own.
        var values: Set<String> = []

        init(markdown: String) throws {
            guard let start = markdown.range(of: "\n## The path of one touch\n") else {
                throw DocumentError.missing("the section \"## The path of one touch\"")
            }
            let section = markdown[start.upperBound...].prefix { _ in true }
            let body = section.range(of: "\n## ").map { section[..<$0.lowerBound] } ?? section
            for line in body.split(separator: "\n") {
                if line.hasPrefix("|") {
                    let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard cells.count >= 4, let file = Self.paths(in: cells[2]).first else { continue }
                    switch cells[3] {
                    case "both", "replay": replayed.insert(file)
                    case "live": live.insert(file)
                    default: throw DocumentError.missing("'both', 'live' or 'replay' in the row of \(file), got '\(cells[3])'")
                    }
                } else if line.hasPrefix("Values along the way") {
                    values.formUnion(Self.paths(in: line))
                }
            }
            guard !replayed.isEmpty else { throw DocumentError.missing("the table of steps") }
        }

        /// The backticked `…/….swift` paths in a piece of text.
        static func paths(in text: some StringProtocol) -> [String] {
            text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 && $0.element.hasSuffix(".swift") && $0.element.contains("/") }
                .map { String($0.element) }
        }
    }

    enum DocumentError: Error, CustomStringConvertible {
        case missing(String)
        var description: String {
            switch self {
            case .missing(let what): "docs/ARCHITECTURE.md: expected \(what)"
            }
        }
    }
}

#if FLICKD_TOUCH_PATH
@_silgen_name("__llvm_profile_reset_counters") private func llvmProfileResetCounters()
@_silgen_name("__llvm_profile_set_filename") private func llvmProfileSetFilename(_ name: UnsafePointer<CChar>)
@_silgen_name("__llvm_profile_write_file") private func llvmProfileWriteFile() -> Int32
#endif
