import CMemfd
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickSystem
import Foundation
import Testing

/// `LiveRunner` on a real sd-event loop.
@Suite struct LiveRunnerTests {
    /// A "device" behind a pipe. A byte `s` makes it swap, within that dispatch, to a new pipe,
    /// the old one let go first: as a touchscreen unplugged and another plugged in within one
    /// rescan can. Were the old file closed at once, the new one would get its number.
    final class SwappingSource: TouchSource {
        var fd: Descriptor
        var writer: Descriptor
        var bytesRead = 0
        private(set) var swaps = 0
        var tracing = false

        init() {
            (fd, writer) = Self.makePipe()
        }

        static func makePipe() -> (Descriptor, Descriptor) {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            return (Descriptor(owning: ends[0]), Descriptor(owning: ends[1]))
        }

        var name: String { "swapping pipe" }
        var fileDescriptors: [Descriptor] { [fd] }
        var nextDeadline: Instant? { nil }
        func takeTransitions() -> [Transition] { [] }

        func dispatch(now: Instant) -> [TouchFrame] {
            var byte: UInt8 = 0
            while read(fd.rawValue, &byte, 1) == 1 {
                bytesRead += 1
                if byte == UInt8(ascii: "s") { swap() }
            }
            return []
        }

        private func swap() {
            (fd, writer) = Self.makePipe()
            swaps += 1
        }
    }

    @Test func aDeviceWithTheNumberOfOneThatLeftIsWatched() throws {
        let loop = try EventLoop()
        let source = SwappingSource()
        let output = try #require(HeadlessOutput(size: PixelSize(width: 64, height: 48)))
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: output, content: try Content.testPattern(PixelSize(width: 64, height: 480)),
                   input: .source(source, pixelsPerMillimetre: nil), at: loop.now)
        let runner = try LiveRunner(loop: loop, pipeline: pipeline)
        func run() throws { for _ in 0..<20 { try loop.runOnce(timeout: .milliseconds(2)) } }
        try run()
        let before = source.fd
        var s = UInt8(ascii: "s")
        #expect(write(source.writer.rawValue, &s, 1) == 1)
        try run()
        #expect(source.bytesRead == 1 && source.fd !== before && source.swaps == 1)
        // The new file wakes the loop.
        var x = UInt8(ascii: "x")
        #expect(write(source.writer.rawValue, &x, 1) == 1)
        try run()
        #expect(source.bytesRead == 2, "the new device's byte was never read")
        withExtendedLifetime(runner) {}
    }

    /// Content shown from outside the loop's dispatch (a control command: `load`, a content
    /// provider that comes or goes) closes the old content's fds (its tile pipe, at once or when
    /// its workers end), and the runner must stop watching them before their numbers can be
    /// reused: a control client accepted on such a number was never read again, the stale
    /// watch's removal at the next frame taking the client's registration with it (found by
    /// flickd-bench's section 11: a status client connecting just after a provider came got no
    /// answer; its requests sat unread).
    @Test func aNumberFreedByContentReplacedOutsideTheLoopIsWatchedByItsNewOwner() throws {
        let loop = try EventLoop()
        let output = try #require(HeadlessOutput(size: PixelSize(width: 64, height: 48)))
        let tileSize = 64, slots = 4
        let fd = flickd_memfd_create("live-runner-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        try #require(fd >= 0 && ftruncate(fd, off_t(slots * tileSize * tileSize * 4)) == 0)
        try #require(flickd_add_seals(fd, F_SEAL_SHRINK) == 0)
        var provided: Content? = try {
            let pool = try SharedTilePool(fd: fd, slots: slots, tileSize: tileSize)
            let source = try #require(ProviderSource(name: "app", size: PixelSize(width: 64, height: 480), tileSize: tileSize,
                                                     opaque: true, background: nil))
            let provider = try #require(TileProvider(grid: source.grid, pool: pool, format: .xrgb8888, timeout: .seconds(1),
                                                     clock: { .zero }))
            return Content(tiles: try TileStore(source: source, cacheBytes: 8 << 20, fetcher: provider))
        }()
        close(fd)
        let pipeFD = try #require(provided?.tiles?.fileDescriptor).rawValue
        let pipeline = try PipelineBuilder(configuration: Configuration())
            .build(output: output, content: provided!, input: .source(ScriptedTouches(), pixelsPerMillimetre: nil), at: loop.now)
        let runner = try LiveRunner(loop: loop, pipeline: pipeline)
        func run() throws { for _ in 0..<20 { try loop.runOnce(timeout: .milliseconds(2)) } }
        try run()
        // As a command does (the daemon re-arms the runner after each): other content; the
        // app's goes, and its pipe with it.
        pipeline.show(Content(image: try #require(TestPattern.make(PixelSize(width: 64, height: 480)))), at: loop.now)
        provided = nil
        // Let go, not closed: the loop's watch still holds it.
        try #require(fcntl(pipeFD, F_GETFD) >= 0, "the old content's pipe is open until its watch goes")
        runner.rearm()
        try #require(fcntl(pipeFD, F_GETFD) == -1, "the old content's pipe is closed once the watches are up to date")
        // A newcomer gets the number (as an accepted client would) before the loop runs again.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        if ends[0] != pipeFD {
            _ = dup2(ends[0], pipeFD)
            close(ends[0])
        }
        _ = fcntl(pipeFD, F_SETFL, O_NONBLOCK)
        let newcomer = Descriptor(owning: pipeFD)
        defer { close(ends[1]) }
        var woke = 0
        let watch = try loop.addIO(newcomer, events: .readable, context: "newcomer") { _ in
            var byte: UInt8 = 0
            while read(pipeFD, &byte, 1) == 1 { woke += 1 }
        }
        try run()   // frames of the new content: the runner's watches are brought up to date
        var x = UInt8(ascii: "x")
        #expect(write(ends[1], &x, 1) == 1)
        try run()
        #expect(woke == 1, "the newcomer's byte was never read: its registration went with the old pipe's watch")
        withExtendedLifetime((runner, watch)) {}
    }
}
