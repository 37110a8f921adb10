import FlickTestSupport
import Foundation
import Glibc
import Testing

/// The seccomp filter for real: a small program installs it through the same library function as
/// flickd-render (`Sandbox.confine`) and then makes one forbidden call, which must kill it with
/// SIGSYS; the helper itself works under it (the provider tests run the built helper).
@Suite(.serialized) struct SandboxTests {
    /// Runs the check program with `call`; its exit status, or minus the signal that ended it.
    func run(_ call: String) throws -> Int32 {
        let program = HelperProcess.binary("flickd-render-sandbox-check")
        guard FileManager.default.isExecutableFile(atPath: program) else { throw TestFailure("\(program) is missing: swift build --build-tests") }
        var child: pid_t = 0
        var arguments = [strdup(program), strdup(call), nil]
        var environment = [strdup("LANG=C.UTF-8"), nil]
        defer { for p in arguments + environment { free(p) } }
        guard posix_spawn(&child, program, nil, nil, &arguments, &environment) == 0 else { throw TestFailure("posix_spawn") }
        var raw: Int32 = 0
        try waitUntil("the sandbox check to end") { waitpid(child, &raw, WNOHANG) == child }
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : -signal
    }

    @Test func confiningAloneLeavesTheProcessWorking() throws {
        #expect(try run("none") == 0)
        #expect(try run("open-read") == 0)  // fontconfig's files and fonts stay readable
    }

    @Test(arguments: ["socket", "socketpair", "connect", "execve", "fork", "setrlimit"])
    func aForbiddenCallKillsTheProcess(call: String) throws {
        #expect(try run(call) == -SIGSYS, "\(call) was not killed by the filter")
    }

    @Test func openingAFileForWritingFailsWithoutKilling() throws {
        #expect(try run("open-write") == 3)
        #expect(access("/tmp/flickd-render-sandbox-check", F_OK) != 0)
    }
}
