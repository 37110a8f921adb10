import CMemfd
import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Glibc
import Testing

/// `ContentHost` without a loop: its provider session's waits are deadlines the caller meets.
@Suite struct ContentHostTests {
    /// A screen that keeps what it is shown, and a link that keeps what is sent.
    final class Stage: ContentScreen, ProviderLink {
        var shown: [Content] = []
        var sent: [TileProvider.Message] = []
        var viewPixels: PixelSize { PixelSize(width: 64, height: 48) }
        func present(_ content: Content, at t: Instant) throws { shown.append(content) }
        func restore(offset: Point, zoomScale: Double, at t: Instant) {}
        func contentChanged(at t: Instant) {}
        func send(_ message: TileProvider.Message, to caller: ControlServer.Caller) { sent.append(message) }
        func subscribe(_ caller: ControlServer.Caller, to types: Set<String>) {}
    }

    @Test func aProvidersRequestsWaitForTheNextDispatchAndItsEndBringsTheConfiguredContentBack() throws {
        let tileSize = 64, slots = 4
        let fd = flickd_memfd_create("content-host-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        try #require(fd >= 0 && ftruncate(fd, off_t(slots * tileSize * tileSize * 4)) == 0)
        defer { close(fd) }
        try #require(flickd_add_seals(fd, F_SEAL_SHRINK) == 0)
        var configuration = Configuration()
        configuration.contentPath = "provider"
        var now = Instant.seconds(10)
        let host = ContentHost(configuration: configuration, tileWorkers: 0, clock: { now })
        let stage = Stage()
        host.link = stage
        _ = try host.start(view: stage.viewPixels)
        #expect(host.name == "test pattern (waiting for a content provider)")
        host.attach(stage)
        #expect(host.nextDeadline == nil && host.fileDescriptors.isEmpty)

        let app = ControlServer.Caller(id: 7)
        let declared = try ControlCommand(ControlRequest(cmd: "provide", width: 640, height: 480, tileSize: tileSize, slots: slots,
                                                         name: "board"))
        guard case .provide(let provide) = declared else { Issue.record("not a provide"); return }
        _ = try host.provide(provide, pool: fd, caller: app)
        let tiles = try #require(host.providerTiles)
        #expect(stage.shown.last?.tiles === tiles.store && host.name == "provider board")
        // The frame shown at once wants tiles; none is asked before the reply is out.
        tiles.provider.want(tiles.store.source.grid.tiles(at: tiles.store.source.grid.maxLevel,
                                                          covering: PixelRect(x0: 0, y0: 0, x1: 64, y1: 48)))
        #expect(stage.sent.isEmpty && host.nextDeadline == now)
        now = now + .milliseconds(1)
        host.dispatch(now: now)
        #expect(stage.sent.count == 1 && host.nextDeadline == nil)
        #expect(throws: ControlError.self) { try host.answerTile(1, drawn: true, caller: ControlServer.Caller(id: 8)) }

        // The connection goes: the session ends at the next dispatch, not inside the notice.
        host.disconnected(app)
        #expect(host.providerTiles != nil && host.nextDeadline == now)
        host.dispatch(now: now)
        #expect(host.providerTiles == nil && host.providerStatus == nil && host.nextDeadline == nil)
        #expect(host.name == "test pattern (waiting for a content provider)" && stage.shown.count == 2)
    }
}
