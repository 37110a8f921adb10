// flickd-fuzz: the targets behind libFuzzer's own main, chosen by name, plus the seed maker.
//
//     flickd-fuzz TARGET [libFuzzer flags] [CORPUS_DIR… | INPUT…]
//     flickd-fuzz seeds DIR        writes DIR/TARGET/NAME for every target's seeds
//
// One binary for all the targets keeps the sanitised build to one link. `-sanitize=fuzzer`
// links libFuzzer's main whole, so the program cannot keep a main of its own (SwiftPM also
// compiles it with `-parse-as-library`): it reads its arguments in `LLVMFuzzerInitialize`, which
// libFuzzer calls before it parses its flags, and removes the target name from them.
import FuzzTargets
import Foundation

/// The target every input goes to. Set once in `LLVMFuzzerInitialize`, before libFuzzer runs
/// any input, and only read after, on libFuzzer's one thread.
nonisolated(unsafe) private var selectedTarget = FuzzTarget.evemu

/// Where the target name travels to the processes libFuzzer starts itself (`-fork`, `-jobs`):
/// they get the flags without the name.
private let targetVariable = "FLICKD_FUZZ_TARGET"

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
    let first = argc.pointee > 1 ? argv.pointee[1].map { String(cString: $0) } : nil
    if first == "seeds" {
        guard argc.pointee == 3, let directory = argv.pointee[2].map({ String(cString: $0) }) else { usage(names) }
        do {
            try writeSeeds(to: directory)
        } catch {
            fail("cannot write the seeds: \(error)")
        }
        exit(0)
    }
    if let first, let target = FuzzTarget(rawValue: first) {
        selectedTarget = target
        setenv(targetVariable, first, 1)
        // Drop the name: argv[1] becomes the program name and argv starts one later.
        argv.pointee[1] = argv.pointee[0]
        argv.pointee += 1
        argc.pointee -= 1
    } else if let inherited = ProcessInfo.processInfo.environment[targetVariable], let target = FuzzTarget(rawValue: inherited) {
        selectedTarget = target
    } else {
        usage(names)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Writes every target's seed corpus under `directory`.
private func writeSeeds(to directory: String) throws {
    for target in FuzzTarget.allCases {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(target.rawValue)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let seeds = target.seeds()
        for seed in seeds { try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name)) }
        print("\(folder.path): \(seeds.count) seeds")
    }
}

private func usage(_ names: String) -> Never {
    fail("usage: flickd-fuzz \(names) [libFuzzer flags] [CORPUS_DIR… | INPUT…]\n       flickd-fuzz seeds DIR", status: 2)
}

private func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("flickd-fuzz: \(message)\n".utf8))
    exit(status)
}
