import FlickSystem
import Foundation
import Glibc
import Testing
@testable import FlickDaemon

/// `AtomicFile`: what `state.json` and `flickd calibrate --write` are replaced through.
@Suite struct AtomicFileTests {
    static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-atomic-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aReplacedFileKeepsItsModeAndASymlinkItsTarget() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = dir + "/flickd.toml", link = dir + "/link.toml"
        try "old".write(toFile: real, atomically: false, encoding: .utf8)
        chmod(real, 0o640)
        symlink(real, link)
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "new")
        #expect(Self.mode(real) == 0o640)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == real, "the link was replaced by a file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["flickd.toml", "link.toml"])
    }

    @Test func aNewFileTakesTheUmask() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Read, not set: other tests run beside this one.
        let mask = umask(0)
        umask(mask)
        try AtomicFile.write(Data("{}".utf8), to: dir + "/state.json")
        #expect(Self.mode(dir + "/state.json") == 0o644 & ~mask)
    }

    @Test func aFolderThatCannotBeWrittenLeavesNothing() throws {
        #expect(throws: SystemError.self) { try AtomicFile.write(Data("x".utf8), to: "/proc/flickd-atomic/state.json") }
    }
}
