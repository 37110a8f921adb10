import Foundation
import Testing

/// The systemd unit as `scripts/install.sh` installs it: `systemd-analyze verify` is clean and
/// `systemd-analyze security` scores an exposure of 2.0 or lower.
@Suite struct UnitFileTests {
    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs a command; returns its exit status and its stdout and stderr together.
    static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Installs into a temporary PREFIX and SYSCONFDIR; returns the installed unit's path.
    static func install(into dir: String) throws -> String {
        let build = URL(fileURLWithPath: FlickdProcess.binary).deletingLastPathComponent().path
        let (status, output) = try run(root.appendingPathComponent("scripts/install.sh").path, [build],
                                       environment: ["PREFIX": dir + "/usr", "SYSCONFDIR": dir + "/etc", "DESTDIR": ""])
        #expect(status == 0, "install.sh: \(output)")
        return dir + "/usr/lib/systemd/system/flickd.service"
    }

    @Test func installPutsEverythingUnderThePrefixAndKeepsAnEditedConfig() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let unit = try Self.install(into: dir)
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(text.contains("ExecStart=\(dir)/usr/bin/flickd run --config \(dir)/etc/flickd/flickd.toml"))
        for file in ["usr/bin/flickd", "usr/bin/flickctl", "usr/lib/sysusers.d/flickd.conf", "etc/flickd/flickd.toml"] {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + file), "\(file) not installed")
        }
        try "# edited\n".write(toFile: dir + "/etc/flickd/flickd.toml", atomically: true, encoding: .utf8)
        _ = try Self.install(into: dir)
        #expect(try String(contentsOfFile: dir + "/etc/flickd/flickd.toml", encoding: .utf8) == "# edited\n")
        #expect(FileManager.default.fileExists(atPath: dir + "/etc/flickd/flickd.toml.default"))
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed"))
    func theInstalledUnitVerifiesCleanly() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let unit = try Self.install(into: dir)
        let (status, output) = try Self.run(try #require(Self.analyze), ["verify", unit])
        #expect(status == 0 && output.isEmpty, "systemd-analyze verify: \(output)")
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed"))
    func theUnitsExposureIsAtMostTwo() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let unit = try Self.install(into: dir)
        let (_, output) = try Self.run(try #require(Self.analyze), ["security", "--offline=true", unit])
        let line = try #require(output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(output)")
        let score = try #require(line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(score <= 2.0, "\(line)")
    }
}
