import FlickControl
import FlickCore
import FlickSystem
import Foundation
import Testing
@testable import FlickDaemon

/// The control socket on a real sd-event loop, with real client sockets, in one thread: each
/// step runs the loop until the expected bytes are there.
@Suite struct ControlServerTests {
    final class Fixture {
        let loop: EventLoop
        let path: String
        var server: ControlServer!
        var commands: [ControlCommand] = []
        /// Whether each command came with a file.
        var files: [Bool] = []
        /// How long handling each command takes (busy, as decoding and answering is).
        var cost: Duration = .zero

        init(limits: ControlServer.Limits = ControlServer.Limits()) throws {
            loop = try EventLoop()
            path = NSTemporaryDirectory() + "flickd-test-\(UInt32.random(in: 0...UInt32.max))/control.sock"
            server = try ControlServer(path: path, loop: loop, limits: limits) { [unowned self] command, id, file, _ in
                self.commands.append(command)
                self.files.append(file != nil)
                let end = EventLoop.monotonicNow() + self.cost
                while EventLoop.monotonicNow() < end {}
                if case .status = command {
                    return .reply(id: id, status: ControlStatus(offset: [0, 42], zoomScale: 1, contentSize: [1, 2],
                                                                 boundsSize: [3, 4], tracking: false, dragging: false,
                                                                 decelerating: false, zooming: false, scrolling: false))
                }
                return .reply(id: id)
            }
        }

        deinit {
            server = nil
            try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        }

        /// Runs the loop briefly, a few times, so queued I/O is handled.
        func pump(_ rounds: Int = 5) throws {
            for _ in 0..<rounds { try loop.runOnce(timeout: .milliseconds(5)) }
        }

        /// Sends a request and pumps until the reply arrives.
        func call(_ client: ControlClient, _ request: ControlRequest) throws -> ControlMessage? {
            try client.send(request)
            try pump()
            return try client.receive()
        }
    }

    @Test func requestGetsItsReply() throws {
        let f = try Fixture()
        let client = try ControlClient(path: f.path)
        try f.pump()
        let reply = try f.call(client, ControlRequest(id: 7, cmd: "status"))
        #expect(reply?.id == 7 && reply?.ok == true && reply?.status?.offset == [0, 42])
        let scroll = try f.call(client, ControlRequest(id: 8, cmd: "set-offset", x: 0, y: 300, animated: false))
        #expect(scroll?.ok == true)
        #expect(f.commands == [.status, .setOffset(x: 0, y: 300, animated: false)])
    }

    /// Files passed with requests (`SCM_RIGHTS`) go with the request they came with and are
    /// closed after it; a client sending more than one, or sending them again and again, does
    /// not pile up the daemon's fds.
    @Test func passedFilesGoWithTheirRequestAndAreClosed() throws {
        let f = try Fixture()
        // A file of this test's own: the fds open on it are the test's one plus any the server
        // kept (other tests run beside this one, so the process's whole fd count is no measure).
        let name = NSTemporaryDirectory() + "flickd-passed-\(UInt32.random(in: 0...UInt32.max))"
        let file = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(file); unlink(name) }
        func openOnFile() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == name }.count
        }
        let client = try ControlClient(path: f.path)
        try f.pump()
        for i in 0..<50 {
            try client.send(ControlRequest(id: i, cmd: "snapshot"), passing: file)
            try f.pump(2)
            #expect(try client.receive()?.id == i)
        }
        let reply = try f.call(client, ControlRequest(id: 99, cmd: "status"))
        #expect(reply?.ok == true && f.files == Array(repeating: true, count: 50) + [false])
        #expect(openOnFile() == 1, "the daemon keeps no passed fd")
    }

    /// A client may send requests without waiting for each reply (a provider sends `subscribe`,
    /// then `provide` with its pool): the server then reads the earlier lines and the file in one
    /// go, and the file must still go with the line it was sent with, not the first line read
    /// (found by flickd-bench's section 11: the pipelined `provide` was refused for want of a pool,
    /// the `subscribe` before it having taken and closed it).
    @Test func aPassedFileGoesWithItsOwnLineWhenRequestsArePipelined() throws {
        let f = try Fixture()
        let name = NSTemporaryDirectory() + "flickd-pipelined-\(UInt32.random(in: 0...UInt32.max))"
        let file = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(file); unlink(name) }
        let client = try ControlClient(path: f.path)
        try f.pump()
        // As ControlClient passes a file: with the line's first byte, the rest after it.
        try client.send(ControlRequest(id: 1, cmd: "status"))
        try client.send(ControlRequest(id: 2, cmd: "snapshot"), passing: file)
        try client.send(ControlRequest(id: 3, cmd: "status"))
        // As Python's socket.send_fds passes one: with the whole line, in one sendmsg.
        try client.send(ControlRequest(id: 4, cmd: "status"))
        #expect(Self.sendWholeLine(client.fileDescriptor, ControlRequest(id: 5, cmd: "snapshot"), passing: file))
        try client.send(ControlRequest(id: 6, cmd: "status"))
        try f.pump()
        for id in 1...6 { #expect(try client.receive()?.id == id) }
        #expect(f.files == [false, true, false, false, true, false])
    }

    /// `sendmsg` of a whole request line with `file` (`SCM_RIGHTS`).
    private static func sendWholeLine(_ socket: Int32, _ request: ControlRequest, passing file: Int32) -> Bool {
        let line = Array(request.line())
        return ControlClient.send(line[...], passing: file, on: socket) == line.count
    }

    /// A client sending well-formed requests as fast as the socket takes them gets a wake-up's
    /// worth of work answered at a time (`maxWorkPerWakeup`), so the loop goes on to frames in
    /// between; the rest is answered in the next iterations, in order, though nothing more comes
    /// (found by flickd-bench's section 11: a provider flooding `invalidate`s cut the frame rate
    /// to 26 frames/s, each wake-up answering 256 KiB of them, ~3600 lines).
    @Test func aFloodOfRequestsIsAnsweredAWakeUpsWorthAtATime() throws {
        let f = try Fixture()   // maxWorkPerWakeup: 2 ms
        f.cost = .microseconds(500)
        let client = try ControlClient(path: f.path)
        try f.pump()
        try client.write((1...200).flatMap { Array(ControlRequest(id: $0, cmd: "stop").line()) })
        _ = try f.loop.runOnce(timeout: .milliseconds(100))
        #expect((1...8).contains(f.commands.count), "one wake-up answers about 2 ms of requests, not all 200")
        for _ in 0..<1000 where f.commands.count < 200 { _ = try f.loop.runOnce(timeout: .milliseconds(5)) }
        #expect(f.commands.count == 200)
        for id in 1...200 { #expect(try client.receive()?.id == id) }
    }

    @Test func badRequestsAreAnsweredWithTheReason() throws {
        let f = try Fixture()
        let client = try ControlClient(path: f.path)
        try f.pump()
        try client.write(Array("{not json\n".utf8))
        try f.pump()
        #expect(try client.receive()?.error?.hasPrefix("malformed request") == true)
        let unknown = try f.call(client, ControlRequest(id: 2, cmd: "fly"))
        #expect(unknown?.ok == false && unknown?.id == 2 && unknown?.error?.contains("unknown command 'fly'") == true)
        let missing = try f.call(client, ControlRequest(id: 3, cmd: "set-zoom"))
        #expect(missing?.error == "'set-zoom': scale: missing")
        // The connection survives all of that.
        #expect(try f.call(client, ControlRequest(id: 4, cmd: "stop"))?.ok == true)
    }

    @Test func overlongLineDropsTheClientOnly() throws {
        var limits = ControlServer.Limits()
        limits.maxLineBytes = 1024
        let f = try Fixture(limits: limits)
        let hostile = try ControlClient(path: f.path)
        let good = try ControlClient(path: f.path)
        try f.pump()
        try hostile.write([UInt8](repeating: 0x41, count: 4096))
        try f.pump()
        #expect(try hostile.receive()?.error?.contains("longer than 1024") == true)
        #expect(try hostile.receive() == nil) // closed
        #expect(try f.call(good, ControlRequest(id: 1, cmd: "status"))?.ok == true)
        #expect(f.server.clientCount == 1 && f.server.droppedClients == 1)
    }

    @Test func subscribersGetEventsAndANonReaderIsDropped() throws {
        var limits = ControlServer.Limits()
        limits.maxPendingBytes = 64 * 1024
        let f = try Fixture(limits: limits)
        let reader = try ControlClient(path: f.path)
        let sleeper = try ControlClient(path: f.path)
        try f.pump()
        #expect(try f.call(reader, ControlRequest(id: 1, cmd: "subscribe", events: ["tap"]))?.ok == true)
        #expect(try f.call(sleeper, ControlRequest(id: 1, cmd: "subscribe"))?.ok == true)
        var tap = ControlMessage()
        tap.type = "tap"
        tap.x = 10
        var scroll = ControlMessage()
        scroll.type = "didScroll"
        f.server.broadcast(scroll)
        f.server.broadcast(tap)
        try f.pump()
        #expect(try reader.receive()?.type == "tap") // the filter skipped didScroll
        // The sleeper never reads: once its backlog passes the bound, it is dropped.
        for _ in 0..<20_000 { f.server.broadcast(scroll) }
        try f.pump()
        #expect(f.server.clientCount == 1)
        f.server.broadcast(tap)
        try f.pump()
        #expect(try reader.receive()?.type == "tap")
    }

    /// Issue 21, part 6: content moves come once per touch report. A subscriber that reads a
    /// little at a time behind a backlog gets every one, in order, and the server never waits
    /// for it (the sends are non-blocking; what it has not read waits in its queue).
    @Test func aSlowSubscriberGetsEveryMoveInOrder() throws {
        let f = try Fixture()
        let reader = try ControlClient(path: f.path)
        try f.pump()
        #expect(try f.call(reader, ControlRequest(id: 1, cmd: "subscribe", events: ["contentTouchMove"]))?.ok == true)
        let count = 5000  // about 600 kB: far more than a socket buffer, within the 1 MB bound
        for i in 0..<count {
            var move = ControlMessage()
            move.type = "contentTouchMove"
            move.t = Double(i) / 125
            move.x = Double(i)
            move.y = 240
            move.contact = 7
            f.server.broadcast(move)
        }
        var xs: [Double] = []
        while xs.count < count {
            for _ in 0..<min(100, count - xs.count) {
                let m = try #require(try reader.receive())
                #expect(m.type == "contentTouchMove" && m.contact == 7)
                xs.append(m.x ?? -1)
            }
            try f.pump(1)
        }
        #expect(xs == (0..<count).map(Double.init))
        #expect(f.server.clientCount == 1 && f.server.droppedClients == 0)
    }

    @Test func aFloodOfSilentConnectionsEvictsTheOldestSilentOneNeverAWorkingClient() throws {
        var limits = ControlServer.Limits()
        limits.maxClients = 3
        let f = try Fixture(limits: limits)
        let working = try ControlClient(path: f.path)
        try f.pump()
        #expect(try f.call(working, ControlRequest(cmd: "status"))?.ok == true)
        // Five silent connections for two free places: each newcomer closes the oldest silent one.
        let silent = try (0..<5).map { _ in try ControlClient(path: f.path) }
        try f.pump()
        #expect(f.server.clientCount == 3)
        #expect(try f.call(working, ControlRequest(cmd: "status"))?.ok == true)
        for evicted in silent[0..<3] {
            #expect(throws: ControlClientError.self) { _ = try evicted.call(ControlRequest(cmd: "status")) }
        }
        // A request already sent when room is needed is answered, and its client stays.
        try silent[3].send(ControlRequest(id: 9, cmd: "status"))
        let late = try ControlClient(path: f.path)
        try f.pump()
        #expect(try silent[3].receive()?.id == 9)
        #expect(throws: ControlClientError.self) { _ = try silent[4].call(ControlRequest(cmd: "status")) }
        #expect(try f.call(late, ControlRequest(cmd: "status"))?.ok == true)
        // Every place held by a working client: a newcomer is closed at once.
        let refused = try ControlClient(path: f.path)
        try f.pump()
        #expect(throws: ControlClientError.self) { _ = try refused.call(ControlRequest(cmd: "status")) }
        #expect(try f.call(working, ControlRequest(cmd: "status"))?.ok == true)
    }

    @Test func aSecondDaemonOnTheSameSocketIsRefused() throws {
        let f = try Fixture()
        let other = try EventLoop()
        #expect(throws: SystemError.self) { _ = try ControlServer(path: f.path, loop: other) { _, id, _, _ in .reply(id: id) } }
    }

    /// The socket's folder is made before binding; a bare name needs none.
    @Test func parentDirectoriesOfSocketPaths() {
        #expect(parentDirectory(of: "/run/flickd/control.sock") == "/run/flickd")
        #expect(parentDirectory(of: "/control.sock") == "/")
        #expect(parentDirectory(of: "control.sock") == "")
        #expect(parentDirectory(of: "a//b") == "a")
    }
}
