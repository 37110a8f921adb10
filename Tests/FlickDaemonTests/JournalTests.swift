@testable import FlickDaemon
import FlickTestSupport
import Foundation
import Glibc
import Logging
import Testing

/// The journal backend: how a record becomes fields, and (where a journald can be reached or
/// started) that an entry really lands in the journal.
@Suite struct JournalTests {
    @Test func aGestureRecordBecomesMessagePriorityAndFlickFields() {
        let fields = FlickdLogHandler.journalFields(
            message: "flick up 1840 px/s → rest 919 px in 3.6 s", level: .info,
            metadata: ["velocity_y": "-1840", "gesture": "flick", "rest-y": "1019"],
            file: "Daemon.swift", line: 42, function: "published")
        #expect(fields == ["MESSAGE=flick up 1840 px/s → rest 919 px in 3.6 s", "PRIORITY=6", "SYSLOG_IDENTIFIER=flickd",
                           "CODE_FILE=Daemon.swift", "CODE_LINE=42", "CODE_FUNC=published",
                           "FLICK_GESTURE=flick", "FLICK_REST_Y=1019", "FLICK_VELOCITY_Y=-1840"])
        #expect(FlickdLogHandler.priority(.warning) == 4 && FlickdLogHandler.priority(.critical) == 2
                && FlickdLogHandler.priority(.debug) == 7)
    }

    static let socketPath = "/run/systemd/journal/socket"
    static let journald = "/lib/systemd/systemd-journald"
    static var reachable: Bool {
        FileManager.default.fileExists(atPath: socketPath)
            || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: journald)
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/journalctl"))
    }

    /// A journald of our own when none runs (as root: a build machine has no systemd as PID 1); stopped when done.
    static func startJournaldIfNeeded() throws -> Process? {
        if (try? probe()) == true { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journald)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("journald listening on \(socketPath)", timeout: .seconds(30)) { (try? probe()) ?? false }
        return process
    }

    /// Whether something listens on the journal socket.
    static func probe() throws -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    @Test(.enabled(if: reachable, "no journald socket, and no journald to start as root"))
    func anEntryIsReadBackWithJournalctl() throws {
        let started = try Self.startJournaldIfNeeded()
        defer { started?.terminate(); started?.waitUntilExit() }
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let logger = LogBackend.journal.logger(level: .info)
        logger.info("flick up 1840 px/s → rest 919 px in 3.6 s", metadata: ["gesture": "flick", "velocity_y": "-1840", "test_id": "\(id)"])

        var entry: [String: Any]?
        // journald writes the entry when it gets to it: asked until journalctl finds it (the
        // #require below says what is missing). Generous: under a full parallel suite one
        // journalctl run can take seconds, and this test took 114 s there.
        do {
            try waitUntil("the entry in the journal", timeout: .seconds(120), poll: .milliseconds(50)) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
                process.arguments = ["-o", "json", "--no-pager", "FLICK_TEST_ID=\(id)"]
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = FileHandle.nullDevice
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                if let line = data.split(separator: 0x0A).first {
                    entry = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                }
                return entry != nil
            }
        } catch is WaitTimedOut {}
        let found = try #require(entry, "no journal entry with FLICK_TEST_ID=\(id)")
        #expect(found["MESSAGE"] as? String == "flick up 1840 px/s → rest 919 px in 3.6 s")
        #expect(found["FLICK_GESTURE"] as? String == "flick" && found["FLICK_VELOCITY_Y"] as? String == "-1840")
        #expect(found["SYSLOG_IDENTIFIER"] as? String == "flickd" && found["PRIORITY"] as? String == "6")
    }
}
