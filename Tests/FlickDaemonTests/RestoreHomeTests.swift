import FlickCore
@testable import FlickDaemon
import Foundation
import Testing

/// `state.restore`: a start shows the home view unless `"view"` asks for the view saved for the
/// same content, saved under the same home view (a host restarted over the same state file, on
/// a pipeline over the headless output).
@Suite struct RestoreHomeTests {
    typealias Bench = ContentRefreshTests.Bench

    /// A bench showing a 256 × 192 image on its 64 × 48 panel, a view saved away from home.
    func saved(_ configure: (inout Configuration) -> Void = { _ in }) throws -> Bench {
        let bench = try Bench()
        bench.configuration.contentPath = bench.folder + "/map.png"
        configure(&bench.configuration)
        try bench.png(bench.configuration.contentPath, ContentRefreshTests.red, width: 256, height: 192)
        try bench.start()
        try StateStore(path: bench.configuration.statePath).save(bench.host.persistedState(offset: Point(x: 100, y: 60), zoomScale: 2))
        return bench
    }

    @Test func homeIgnoresTheSavedView() throws {
        let bench = try saved()
        #expect(bench.configuration.stateRestore == .home)
        try bench.start()
        #expect(bench.pipeline.scrollView.zoomScale == 1 && bench.pipeline.scrollView.contentOffset == Point(x: 0, y: 0))
    }

    @Test func viewRestoresTheSavedView() throws {
        let bench = try saved { $0.stateRestore = .view }
        try bench.start()
        #expect(bench.pipeline.scrollView.zoomScale == 2 && bench.pipeline.scrollView.contentOffset == Point(x: 100, y: 60))
    }

    @Test func aViewSavedUnderAnotherHomeIsNotRestored() throws {
        let bench = try saved { $0.stateRestore = .view }
        bench.configuration.startZoomScale = .fit
        try bench.start()
        // Fit: 48 / 192, the 64 × 48 image centred across and at the top.
        #expect(bench.pipeline.scrollView.zoomScale == 0.25 && bench.pipeline.scrollView.contentOffset == Point(x: 0, y: 0))
        // Saved again under this home, it comes back.
        try StateStore(path: bench.configuration.statePath).save(bench.host.persistedState(offset: Point(x: 30, y: 20), zoomScale: 0.5))
        try bench.start()
        #expect(bench.pipeline.scrollView.zoomScale == 0.5 && bench.pipeline.scrollView.contentOffset == Point(x: 30, y: 20))
        // A home offset edited since: home again.
        bench.configuration.homeOffset = .center
        try bench.start()
        #expect(bench.pipeline.scrollView.zoomScale == 0.25)
    }

    @Test func aViewSavedWithoutItsHomeIsNotRestored() throws {
        let bench = try saved { $0.stateRestore = .view }
        let store = StateStore(path: bench.configuration.statePath)
        var state = try #require(store.load().state)
        state.home = nil
        try store.save(state)
        try bench.start()
        #expect(bench.pipeline.scrollView.zoomScale == 1 && bench.pipeline.scrollView.contentOffset == Point(x: 0, y: 0))
    }
}
