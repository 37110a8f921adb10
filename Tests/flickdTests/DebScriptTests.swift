import Foundation
import Testing

/// `scripts/deb.sh` builds its release binaries where the e2e run built them
/// (`FLICKD_E2E_BUILD`), so CI, which runs the e2e test and then packages, builds them once.
/// A `swift` of the test's own, first on PATH, records how it is called and stops the script.
@Suite struct DebScriptTests {
    @Test func debBuildsInTheScratchPathTheE2ERunUsed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("deb-script-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("swift.log").path
        let swift = dir.appendingPathComponent("swift")
        try "#!/bin/sh\necho \"$@\" >>'\(log)'\nexit 3\n".write(to: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        let scratch = dir.appendingPathComponent("e2e-build").path
        let path = dir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let (status, output) = try UnitFileTests.run("/bin/bash", [UnitFileTests.root.appendingPathComponent("scripts/deb.sh").path,
                                                                    dir.appendingPathComponent("out").path],
                                                     environment: ["PATH": path, "FLICKD_E2E_BUILD": scratch])
        #expect(status == 3, "deb.sh should stop at the fake swift's failure: \(output)")
        let calls = try String(contentsOfFile: log, encoding: .utf8)
        #expect(calls.hasPrefix("build -c release --static-swift-stdlib --scratch-path \(scratch) --product flickd"),
                "swift was called as: \(calls)")
    }
}
