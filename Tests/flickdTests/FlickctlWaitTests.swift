import FlickTestSupport
import Foundation
import Glibc
import Testing

/// Issue 34, part 5: `flickctl page -1` says pages count from 0; `flickctl --wait SECONDS` waits
/// for the socket of a daemon still starting, and says so when none came.
@Suite struct FlickctlWaitTests {
    @Test func aNegativePageSaysPagesAreCountedFromZero() throws {
        let (status, out, err) = try runBuilt("flickctl", ["page", "-1", "--socket", "/nonexistent/control.sock"])
        #expect(status == 64 && out.isEmpty, "\(err)")
        #expect(err.hasPrefix("Error: <number>: pages are counted from 0 (the first page is 0), so -1 is none\n"), "\(err)")
        let word = try runBuilt("flickctl", ["page", "two", "--socket", "/nonexistent/control.sock"])
        #expect(word.status == 64 && word.err.hasPrefix("Error: <number>: 'two' is not a whole number\n"), "\(word.err)")
        // A page that can be is asked for: here of no daemon (69), past validation.
        let fine = try runBuilt("flickctl", ["page", "0", "--socket", "/nonexistent/control.sock"])
        #expect(fine.status == 69, "\(fine.err)")
    }

    @Test func waitGivesUpWithAClearErrorWhenNoSocketAppears() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, _, err) = try runBuilt("flickctl", ["status", "--wait", "0.2", "--socket", dir + "/control.sock"])
        #expect(status == 69)
        #expect(err == "flickctl: \(dir)/control.sock: no daemon accepted a connection within 0.2 s (--wait); the last try: "
                + "cannot connect: No such file or directory (is flickd running?)\n", "\(err)")
        let bad = try runBuilt("flickctl", ["status", "--wait", "-1", "--socket", dir + "/control.sock"])
        #expect(bad.status == 64)
    }

    /// flickctl is started first and is seen backing off (asleep in nanosleep, its only sleep)
    /// before the socket exists; then a listener answers its request.
    @Test func waitConnectsOnceTheSocketAppears() throws {
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/control.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FlickdProcess.binary).deletingLastPathComponent().appendingPathComponent("flickctl")
        process.arguments = ["flash-indicators", "--wait", "60", "--socket", path]
        let err = Pipe()
        process.standardError = err
        try process.run()
        try waitUntil("flickctl backing off") {
            (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/wchan", encoding: .utf8)) == "hrtimer_nanosleep"
        }
        let listener = try Self.listen(path)
        defer { close(listener) }
        try waitUntilReadable(listener, "flickctl connecting")
        let client = accept(listener, nil, nil)
        #expect(client >= 0)
        defer { close(client) }
        try waitUntilReadable(client, "flickctl's request")
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(client, &bytes, bytes.count)
        let request = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
        #expect(request.contains("\"cmd\":\"flash-indicators\""), "\(request)")
        let reply = Array("{\"ok\":true}\n".utf8)
        #expect(write(client, reply, reply.count) == reply.count)
        process.waitUntilExit()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(said)")
    }

    /// A Unix stream socket listening at `path`.
    static func listen(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else {
            close(fd)
            throw TestFailure("bind/listen \(path): errno \(errno)")
        }
        return fd
    }
}
