import FlickCore
@testable import FlickDisplay
import FlickSystem
import Glibc
import Testing

/// Replaced content keeps its pipe open until the loop has stopped watching it: epoll knows fd
/// numbers, not files, so closing first let the next accepted client take the number, and
/// removing the old watch then removed the client's (it never heard a reply). The watch holds
/// the pipe's `Descriptor`; here a variable stands in for it.
@Suite struct RetiredContentTests {
    @Test func replacedTiledContentClosesItsPipeOnlyWhenNoWatchHoldsIt() throws {
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 200)))
        let composer = FrameComposer(output: output, compositor: Compositor(), content: nil)
        var watched: Descriptor?
        var pipe: Int32 = -1
        var weakOld = WeakBox<Content>(nil)
        do {
            // Only the composer holds it (and the watch its pipe).
            let old = try Content.testPattern(PixelSize(width: 2000, height: 2000), tiles: .init(cacheBytes: 16 << 20, workers: 1))
            watched = try #require(old.tiles?.fileDescriptor)
            pipe = try #require(watched?.rawValue)
            weakOld = WeakBox(old)
            composer.content = old
        }
        composer.content = try Content.testPattern(PixelSize(width: 1000, height: 1000))
        // Gone from the composer and gone, its workers stopped, but its pipe is still open.
        #expect(weakOld.value == nil)
        #expect(fcntl(pipe, F_GETFD) >= 0)
        // The watch goes (the loop has watched anew), and the pipe is closed.
        watched = nil
        #expect(fcntl(pipe, F_GETFD) == -1 && errno == EBADF)
    }
}

private final class WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T?) { self.value = value }
}
