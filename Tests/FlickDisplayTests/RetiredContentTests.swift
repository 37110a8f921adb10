import FlickCore
@testable import FlickDisplay
import Glibc
import Testing

/// Replaced content keeps its pipe open until the loop has stopped watching it: epoll knows fd
/// numbers, not files, so closing first let the next accepted client take the number, and
/// removing the old watch then removed the client's (it never heard a reply).
@Suite struct RetiredContentTests {
    @Test func replacedTiledContentClosesItsPipeOnlyWhenReleased() throws {
        let output = try #require(HeadlessOutput(size: PixelSize(width: 320, height: 200)))
        let composer = FrameComposer(output: output, compositor: Compositor(), content: nil)
        var pipe: Int32 = -1
        var weakOld = WeakBox<Content>(nil)
        do {
            // Only the composer holds it.
            let old = try Content.testPattern(PixelSize(width: 2000, height: 2000), tiles: .init(cacheBytes: 16 << 20, workers: 1))
            pipe = try #require(old.tiles?.fileDescriptor)
            weakOld = WeakBox(old)
            composer.content = old
        }
        composer.content = try Content.testPattern(PixelSize(width: 1000, height: 1000))
        // Gone from the composer, its workers stopped, but it and its pipe are still there.
        #expect(weakOld.value != nil && weakOld.value?.tiles?.pendingCount == 0)
        #expect(fcntl(pipe, F_GETFD) >= 0)
        // Released (the loop has watched anew), it goes, and its pipe is closed.
        composer.releaseRetired()
        #expect(weakOld.value == nil)
        #expect(fcntl(pipe, F_GETFD) == -1 && errno == EBADF)
    }
}

private final class WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T?) { self.value = value }
}
