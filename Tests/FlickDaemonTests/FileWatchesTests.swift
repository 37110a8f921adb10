@testable import FlickDaemon
import FlickSystem
import Glibc
import Testing

/// `FileWatches` keys its watches by descriptor, not number, and holds what it watches.
@Suite struct FileWatchesTests {
    /// A non-blocking pipe: its read end and its write end.
    static func makePipe() throws -> (read: Descriptor, write: Descriptor) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        return (Descriptor(owning: ends[0]), Descriptor(owning: ends[1]))
    }

    /// An owner replaces the file it had watched: until the watches are brought up to date the
    /// old file stays open (a newcomer cannot take its number), and once they are, the number
    /// goes to the next file opened, and the stale watch, gone, never fires for it.
    @Test func aWatchOnAReplacedDescriptorNeverFiresForTheNewFileWithItsNumber() throws {
        let loop = try EventLoop()
        var fired = 0
        let watches = FileWatches(loop: loop, context: "test") { fired += 1 }
        func run() throws { for _ in 0..<5 { try loop.runOnce(timeout: .milliseconds(1)) } }

        var old: (read: Descriptor, write: Descriptor)? = try Self.makePipe()
        let number = try #require(old?.read.rawValue)
        try watches.update([try #require(old?.read)])
        // The owner lets its file go; the watch still holds it, so its number stays taken.
        old = nil
        #expect(fcntl(number, F_GETFD) >= 0)
        let meanwhile = try Self.makePipe()
        #expect(meanwhile.read.rawValue != number && meanwhile.write.rawValue != number)

        // Brought up to date: the old file is closed and its number free for a newcomer.
        try watches.update([])
        #expect(fcntl(number, F_GETFD) == -1)
        var newcomer = try Self.makePipe()
        if newcomer.read.rawValue != number, fcntl(number, F_GETFD) == -1 {
            // Not the lowest free number (tests run in parallel): put the newcomer's read end on it.
            try #require(dup2(newcomer.read.rawValue, number) == number)
            newcomer.read = Descriptor(owning: number)
        }
        var woke = 0
        let own = try loop.addIO(newcomer.read, events: .readable, context: "newcomer") { _ in
            var byte: UInt8 = 0
            while read(number, &byte, 1) == 1 { woke += 1 }
        }
        var x = UInt8(ascii: "x")
        #expect(write(newcomer.write.rawValue, &x, 1) == 1)
        try run()
        #expect(woke == 1, "the newcomer's own watch heard its byte")
        #expect(fired == 0, "the replaced descriptor's watch fired for the newcomer on its number")
        withExtendedLifetime((own, meanwhile, watches)) {}
    }
}
