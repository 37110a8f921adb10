import CMemfd
import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
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
        #expect(host.name == "placeholder (black)")
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

        // The connection goes: the session ends at the next dispatch, not inside the notice;
        // its last frame stays for content.provider_grace_s (10 s), then the placeholder.
        host.disconnected(app)
        #expect(host.providerTiles != nil && host.nextDeadline == now)
        host.dispatch(now: now)
        #expect(host.providerTiles == nil && host.providerStatus == nil && host.nextDeadline == now + .seconds(10))
        #expect(host.name == "provider board" && stage.shown.count == 1)
        now = now + .seconds(10)
        host.dispatch(now: now)
        #expect(host.name == "placeholder (black)" && stage.shown.count == 2 && host.nextDeadline == nil)
    }

    /// A pool for a provider, as an app makes it.
    static func pool(slots: Int = 4, tileSize: Int = 64) throws -> Int32 {
        let fd = flickd_memfd_create("content-host-pool", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
        try #require(fd >= 0 && ftruncate(fd, off_t(slots * tileSize * tileSize * 4)) == 0)
        try #require(flickd_add_seals(fd, F_SEAL_SHRINK) == 0)
        return fd
    }

    @Test func aProviderThatComesBackWithinTheGraceIsShownWithoutThePlaceholderBetween() throws {
        let first = try Self.pool(), second = try Self.pool()
        defer { close(first); close(second) }
        var configuration = Configuration()
        configuration.contentPath = "provider"
        configuration.providerGraceSeconds = 5
        var now = Instant.seconds(10)
        let host = ContentHost(configuration: configuration, tileWorkers: 0, clock: { now })
        let stage = Stage()
        host.link = stage
        _ = try host.start(view: stage.viewPixels)
        host.attach(stage)
        let declared = try ControlCommand(ControlRequest(cmd: "provide", width: 640, height: 480, tileSize: 64, slots: 4,
                                                         name: "board"))
        guard case .provide(let provide) = declared else { Issue.record("not a provide"); return }
        _ = try host.provide(provide, pool: first, caller: ControlServer.Caller(id: 7))
        host.disconnected(ControlServer.Caller(id: 7))
        host.dispatch(now: now)
        #expect(host.nextDeadline == now + .seconds(5) && stage.shown.count == 1)
        // Back after 3 s (a restarted app): shown at once, and the grace is over.
        now = now + .seconds(3)
        _ = try host.provide(provide, pool: second, caller: ControlServer.Caller(id: 9))
        #expect(host.name == "provider board" && stage.shown.count == 2)
        now = now + .seconds(1)
        host.dispatch(now: now)
        #expect(host.nextDeadline == nil)
        now = now + .seconds(10)
        host.dispatch(now: now)
        #expect(host.name == "provider board" && stage.shown.count == 2, "no placeholder after the grace it no longer has")
    }

    /// The colours of `content`'s pixels, when it is one image.
    static func colours(_ content: Content) throws -> Set<UInt32> {
        let image = try #require(content.image)
        var seen = Set<UInt32>()
        for y in 0..<image.height { for x in 0..<image.width { seen.insert(image[x, y]) } }
        return seen
    }

    @Test func whileAPyramidIsBuiltThePlaceholderShowsNeverTheTestPattern() throws {
        let folder = NSTemporaryDirectory() + "flickd-placeholder-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = folder + "/big.png"
        let image = try #require(PixelBuffer(width: 400, height: 300))
        image.fill(Color.white.pixel)
        try PNGCodec.write(image, to: big)
        var configuration = Configuration()
        configuration.contentPath = big
        configuration.pixelBudget = 1 << 16
        configuration.cacheDirectory = folder + "/cache"
        let stage = Stage()
        let host = ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
        configuration.showProgress = false
        let plain = ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
        let black = try plain.start(view: stage.viewPixels).content
        #expect(plain.name == "placeholder (black)" && black.size == Size(width: 64, height: 48))
        #expect(try Self.colours(black) == [Color.black.pixel])
        // With the progress bar (the default): its empty track, two fifths wide at two thirds down.
        configuration.showProgress = true
        let withBar = try host.start(view: stage.viewPixels).content
        let page = try #require(withBar.image)
        let track = Color(rgb: 0x404040).pixel
        #expect((0..<64).filter { page[$0, 32] == track } == Array(19..<44) && page[32, 31] == Color.black.pixel)
        #expect(host.nextDeadline == nil, "nothing to follow before the build starts")
        configuration.showProgress = false

        configuration.placeholder = .background
        configuration.background = Color(rgb: 0x203040)
        let coloured = try ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
            .start(view: stage.viewPixels).content
        #expect(try Self.colours(coloured) == [Color(rgb: 0x203040).pixel])

        // A splash: its image scaled down into the view, centred, on the background.
        let splash = folder + "/splash.png"
        let red = try #require(PixelBuffer(width: 128, height: 48))
        red.fill(Color(rgb: 0xFF0000).pixel)
        try PNGCodec.write(red, to: splash)
        configuration.placeholder = .image(splash)
        let splashHost = ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
        let shown = try splashHost.start(view: stage.viewPixels).content
        #expect(splashHost.name == "placeholder (\(splash))" && shown.size == Size(width: 64, height: 48))
        let tiles = try #require(shown.tiles)
        let tile = try tiles.source.tile(TileKey(level: tiles.source.grid.maxLevel, column: 0, row: 0))
        // 128 × 48 into 64 × 48: 64 × 24 of red in rows 12…35, the background above and below.
        #expect(tile[32, 24] == Color(rgb: 0xFF0000).pixel && tile[32, 4] == Color(rgb: 0x203040).pixel)
    }

    @Test func theProgressBarFillsFromTheLeftAndIsRedrawnOnlyWhenThePercentChanges() throws {
        let page = try #require(PixelBuffer(width: 200, height: 100))
        page.fill(Color.black.pixel)
        var bar = ProgressBar(page: page)
        // 80 px wide from x 60, rows 66…66 + 4.
        #expect(bar.frame == PixelRect(x0: 60, y0: 66, x1: 140, y1: 70))
        #expect(bar.draw(25) && !bar.draw(25))
        let done = Color(rgb: 0xC8C8C8).pixel, track = Color(rgb: 0x404040).pixel
        #expect((0..<200).filter { page[$0, 67] == done } == Array(60..<80))
        #expect((0..<200).filter { page[$0, 67] == track } == Array(80..<140))
        #expect(bar.draw(100) && (0..<200).filter { page[$0, 69] == done } == Array(60..<140))
        #expect(page[100, 65] == Color.black.pixel && page[100, 70] == Color.black.pixel)
    }

    @Test func aMissingContentFileShowsThePlaceholderAndABadSplashBlack() throws {
        var configuration = Configuration()
        configuration.contentPath = "/nonexistent/map.jpg"
        configuration.placeholder = .image("/nonexistent/splash.png")
        let host = ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
        let content = try host.start(view: PixelSize(width: 32, height: 16)).content
        #expect(host.name == "placeholder (black)")
        #expect(try Self.colours(content) == [Color.black.pixel])
        // Asked for outright, the test pattern is still there for bring-up.
        configuration.placeholder = .testPattern
        let bringUp = ContentHost(configuration: configuration, tileWorkers: 0, clock: { .seconds(1) })
        _ = try bringUp.start(view: PixelSize(width: 32, height: 16))
        #expect(bringUp.name == "placeholder (test-pattern)")
    }
}
