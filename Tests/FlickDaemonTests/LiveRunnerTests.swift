import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// `LiveRunner` on a real sd-event loop.
@Suite struct LiveRunnerTests {
    /// A "device" behind a pipe. A byte `s` makes it swap, within that dispatch, to a new pipe
    /// whose read end has the old one's fd number: as a touchscreen unplugged and another
    /// plugged in within one rescan can.
    final class SwappingSource: TouchSource {
        var fd: Int32
        var writer: Int32
        var bytesRead = 0
        private(set) var descriptorGeneration = 0
        var tracing = false

        init() {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            fd = ends[0]
            writer = ends[1]
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        deinit { close(fd); close(writer) }

        var name: String { "swapping pipe" }
        var fileDescriptors: [Int32] { [fd] }
        var nextDeadline: Instant? { nil }
        func takeTransitions() -> [Transition] { [] }

        func dispatch(now: Instant) -> [TouchFrame] {
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1 {
                bytesRead += 1
                if byte == UInt8(ascii: "s") { swap() }
            }
            return []
        }

        private func swap() {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            // The new pipe's read end takes the old one's number (dup2 closes the old file).
            _ = dup2(ends[0], fd)
            close(ends[0])
            close(writer)
            writer = ends[1]
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            descriptorGeneration += 1
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
        #expect(write(source.writer, &s, 1) == 1)
        try run()
        #expect(source.bytesRead == 1 && source.fd == before && source.descriptorGeneration == 1)
        // The new file behind the same number wakes the loop.
        var x = UInt8(ascii: "x")
        #expect(write(source.writer, &x, 1) == 1)
        try run()
        #expect(source.bytesRead == 2, "the new device's byte was never read")
        withExtendedLifetime(runner) {}
    }
}
