import FlickCore
@testable import FlickDaemon
@testable import FlickDisplay
import CMemfd
import Glibc
import Testing

/// An app drawing the content on request never holds a frame back: a flick over provider
/// content presents at every vblank whether the app answers at once or 500 ms late (virtual
/// time, the daemon's pipeline as built).
@Suite struct SlowProviderTests {
    /// What a flick presented, with the app answering each request `delay` after it came.
    private func flick(answeringAfter delay: Duration) throws -> (presented: [Instant], rest: Instant, drawn: Int) {
        let tileSize = 128, slots = 16
        let size = PixelSize(width: 800, height: 20_000)
        let bytes = slots * tileSize * tileSize * 4
        let fd = flickd_memfd_create("slow-provider", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        try #require(fd >= 0 && ftruncate(fd, off_t(bytes)) == 0)
        defer { close(fd) }
        try #require(flickd_add_seals(fd, F_SEAL_SHRINK) == 0)
        let pool = try SharedTilePool(fd: fd, slots: slots, tileSize: tileSize)
        let source = try #require(ProviderSource(name: "slow", size: size, tileSize: tileSize, opaque: true, background: nil))
        var now: () -> Instant = { .zero }
        let provider = try #require(TileProvider(grid: source.grid, pool: pool, format: .xrgb8888, timeout: .seconds(2),
                                                 clock: { now() }))
        var due: [(at: Instant, id: Int)] = []
        provider.send = { message in
            if case .request(let r) = message { due.append((now() + delay, r.id)) }
        }
        let store = try TileStore(source: source, cacheBytes: 64 << 20, fetcher: provider)
        let rig = try PipelineRig(size: PixelSize(width: 320, height: 200), content: Content(tiles: store))
        now = { rig.pipeline.now }
        // A fast flick up the page: 12 reports of 40 px every 8 ms.
        rig.touches.frames += dragFrames(from: .milliseconds(100), at: 160, 180, by: 0, -40, steps: 12)
        // The loop, as VirtualRunner's, with the app's answers as events of their own.
        let limit = Instant.zero + .seconds(12)
        var t = rig.pipeline.now
        while let next = [rig.pipeline.nextDeadline, due.map(\.at).min()].compactMap({ $0 }).min(), next <= limit {
            t = max(t, next)
            for answer in due.filter({ $0.at <= t }) { try? provider.answer(answer.id, drawn: true) }
            due.removeAll { $0.at <= t }
            rig.pipeline.dispatch(now: t)
        }
        #expect(rig.view.isDecelerating == false && rig.view.contentOffset.y > 1000)
        let rest = try #require(rig.outputs.last { output in
            if case .scroll(.didEndDecelerating) = output.kind { true } else { false }
        }?.time)
        return (rig.presented, rest, provider.drawn)
    }

    @Test func aProviderAnswering500msLateChangesNoFramesTiming() throws {
        let prompt = try flick(answeringAfter: .zero)
        let late = try flick(answeringAfter: .milliseconds(500))
        // The motion ends at the same time, with the same vblanks, frame for frame: the frames
        // never waited for the app. (After it, each run redraws when its tiles come.)
        #expect(late.rest == prompt.rest)
        let touched = Instant.zero + .milliseconds(100)
        let motion = prompt.presented.filter { $0 >= touched && $0 <= prompt.rest }
        #expect(late.presented.filter { $0 >= touched && $0 <= late.rest } == motion)
        #expect(motion.count > 60)
        // And it is a frame at every vblank from the first move to rest (60 Hz).
        #expect(zip(motion.dropFirst(), motion).allSatisfy { $0 - $1 <= .milliseconds(17) })
        // Both apps' tiles were shown, the late one's later: only its pixels waited.
        #expect(prompt.drawn > 0 && late.drawn > 0)
    }
}
