import FlickControl
import Foundation
import Glibc
import Testing

/// The config files the fuzzer found aborting flickd (Fuzz/Regressions/config; RELIABILITY.md,
/// "Fuzzing"), given to the real binary: at start it exits non-zero with the file and line,
/// never by a signal; at reload it refuses them and keeps running on the config in force.
@Suite struct FuzzConfigTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/config").path

    static func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: regressions).sorted().map { regressions + "/" + $0 }
    }

    @Test func eachFoundFileStopsTheStartWithItsLine() throws {
        let files = try Self.files()
        #expect(files.count >= 4)
        for file in files {
            let dir = try FlickdProcess.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try FileManager.default.copyItem(atPath: file, toPath: dir + "/flickd.toml")
            let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
            try daemon.waitUntil("flickd to exit", timeout: 15) { !daemon.process.isRunning }
            daemon.process.waitUntilExit()
            #expect(daemon.process.terminationReason == .exit, "\(file): killed by signal \(daemon.process.terminationStatus)")
            #expect(daemon.process.terminationStatus != 0, "\(file)")
            let log = daemon.finalLog()
            let located = log.range(of: #"flickd\.toml:[1-9][0-9]*: "#, options: .regularExpression) != nil
            #expect(located, "\(file): no file:line in \(log)")
        }
    }

    @Test func reloadRefusesEachFoundFileAndKeepsRunning() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/flickd.toml"
        let good = FlickdProcess.config(directory: dir)
        try good.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        for (n, file) in try Self.files().enumerated() {
            try FileManager.default.removeItem(atPath: config)
            try FileManager.default.copyItem(atPath: file, toPath: config)
            daemon.signal(SIGHUP)
            try daemon.waitUntil("reload \(n + 1) refused (\(file))", timeout: 15) {
                daemon.stderr.components(separatedBy: "reload refused").count - 1 == n + 1
            }
            #expect(daemon.process.isRunning, "\(file)")
        }
        try FileManager.default.removeItem(atPath: config)
        try good.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try daemon.client().call(ControlRequest(cmd: "status")).ok == true)
        #expect(try daemon.terminate() == 0)
    }
}
