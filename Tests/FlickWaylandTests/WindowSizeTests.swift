import FlickDisplay
import Testing
@testable import FlickWayland

/// What a configure's size means, and the buffer for a scale.
@Suite struct WindowSizeTests {
    @Test func theCompositorsSizeWinsOnEachAxisItGives() {
        let requested = PixelSize(width: 800, height: 600)
        #expect(WindowSize.logical(width: 1920, height: 1080, requested: requested, previous: nil) == PixelSize(width: 1920, height: 1080))
        #expect(WindowSize.logical(width: 1024, height: 0, requested: requested, previous: nil) == PixelSize(width: 1024, height: 600))
    }

    @Test func zeroByZeroMeansYouChoose() {
        // The size asked for, else the one the window has, else the fallback.
        #expect(WindowSize.logical(width: 0, height: 0, requested: PixelSize(width: 800, height: 600), previous: nil) == PixelSize(width: 800, height: 600))
        #expect(WindowSize.logical(width: 0, height: 0, requested: nil, previous: PixelSize(width: 640, height: 480)) == PixelSize(width: 640, height: 480))
        #expect(WindowSize.logical(width: 0, height: 0, requested: nil, previous: nil) == WindowSize.fallback)
        #expect(WindowSize.logical(width: -4, height: -1, requested: nil, previous: nil) == WindowSize.fallback)
    }

    @Test func absurdSizesAreClamped() {
        #expect(WindowSize.logical(width: 100_000, height: 100_000, requested: nil, previous: nil) == PixelSize(width: 16384, height: 16384))
        #expect(WindowSize.logical(width: .max, height: 1, requested: nil, previous: nil) == PixelSize(width: 16384, height: 1))
    }

    @Test func theBufferIsAWholeMultipleOfTheScaleWithinTheLargestSide() {
        #expect(WindowSize.buffer(PixelSize(width: 800, height: 600), scale: 2) == PixelSize(width: 1600, height: 1200))
        #expect(WindowSize.buffer(PixelSize(width: 800, height: 600), scale: 0) == PixelSize(width: 800, height: 600))
        let huge = WindowSize.buffer(PixelSize(width: 16384, height: 9000), scale: 3)
        #expect(huge == PixelSize(width: 16383, height: 16383))
        #expect(huge.width % 3 == 0 && huge.height % 3 == 0)
    }
}
