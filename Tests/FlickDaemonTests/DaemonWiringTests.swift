import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import Foundation
import Testing

/// The daemon's parts between the session and the world: endpoint options, the display
/// opener, the display target on a real (headless) backend, and the control commands.
@Suite struct DaemonWiringTests {
    @Test func inputEndpointsParseOrSayWhatIsExpected() throws {
        #expect(try InputEndpoint(parsing: "auto") == .auto)
        #expect(try InputEndpoint(parsing: "/dev/input/event4") == .device("/dev/input/event4"))
        #expect(try InputEndpoint(parsing: "evemu:/tmp/a.events") == .recording("/tmp/a.events"))
        for bad in ["", "event4", "evemu:", "usb"] {
            #expect(throws: EndpointError.self) { try InputEndpoint(parsing: bad) }
        }
        do {
            _ = try InputEndpoint(parsing: "event4")
        } catch {
            #expect(error.description == "--input: expected auto, a device path such as /dev/input/event3, or evemu:FILE, got 'event4'")
        }
    }

    @Test func displayEndpointsParseOrSayWhatIsExpected() throws {
        #expect(try DisplayEndpoint(parsing: "auto") == .auto)
        #expect(try DisplayEndpoint(parsing: "drm") == .drm(card: nil))
        #expect(try DisplayEndpoint(parsing: "drm:/dev/dri/card1") == .drm(card: "/dev/dri/card1"))
        #expect(try DisplayEndpoint(parsing: "fbdev:/dev/fb1") == .fbdev(device: "/dev/fb1"))
        #expect(try DisplayEndpoint(parsing: "headless") == .headless(size: nil))
        #expect(try DisplayEndpoint(parsing: "headless:800x480") == .headless(size: PixelSize(width: 800, height: 480)))
        for bad in ["", "kms", "headless:800", "headless:0x480", "headless:99999x10", "drm:", "auto:x"] {
            #expect(throws: EndpointError.self) { try DisplayEndpoint(parsing: bad) }
        }
    }

    @Test func autoFallsBackToHeadlessOnlyWhenAllowedAndSaysWhy() throws {
        var opener = DisplayOpener()
        opener.drm.cardPath = "/nonexistent/card0"
        opener.fbdevDevice = "/nonexistent/fb0"
        opener.headlessSize = PixelSize(width: 320, height: 200)
        // No compositor to fall back on, whatever the environment running the tests has.
        opener.waylandDisplay = nil
        // By default a panel with no display is a failure naming each backend tried.
        do {
            _ = try opener.open(.auto)
            Issue.record("auto opened a display without DRM or fbdev")
        } catch {
            #expect(error.reasons.count == 3 && error.kind == .unavailable)
            #expect(error.description.hasPrefix("no display: drm: ") && error.description.contains("display.fallback"))
        }
        opener.fallback = .headless
        let opened = try opener.open(.auto)
        #expect(opened.output is HeadlessOutput && opened.isFallback)
        #expect(opened.description == "headless 320x200@60")
        #expect(opened.passedOver.count == 2)
        #expect(opened.passedOver[0].hasPrefix("drm: ") && opened.passedOver[0].contains("/nonexistent/card0"))
        #expect(opened.passedOver[1].hasPrefix("fbdev: ") && opened.passedOver[1].contains("/nonexistent/fb0"))
        #expect(throws: DisplayOpener.Failure.self) { try opener.open(.drm(card: "/nonexistent/card9")) }
    }

    /// A frame queued between vblanks shows at the next vblank, as on DRM: the first frame at
    /// start and the first frame of a touch are not held back one refresh.
    @Test func aFrameQueuedBetweenVblanksShowsAtTheNextOne() throws {
        let start = Instant(nanoseconds: 1_005_000_000)  // 5 ms after the vblank at 1 s (60 Hz)
        let rig = try PipelineRig(at: start)
        let next = Instant(nanoseconds: (start.nanoseconds / 16_666_667 + 1) * 16_666_667)
        #expect(rig.output.nextDeadline == next)
        #expect(next.nanoseconds - start.nanoseconds < 16_666_667)
    }

    @Test func aFlickOnHeadlessRestsWhereTheFrameShowsIt() throws {
        let rig = try PipelineRig()
        rig.settle(dragFrames(from: .seconds(1), at: 160, 180, by: 0, -12, steps: 8))
        let offset = rig.view.contentOffset
        #expect(offset.y > 200 && offset.x == 0)
        #expect(rig.pipeline.presenter.state == .idle && rig.pipeline.nextDeadline == nil)
        // At rest the screen is the content's crop at the (whole-pixel) offset, indicators gone.
        let y0 = Int(offset.y.rounded())
        let front = rig.output.headless.frontBuffer
        for (x, y) in [(0, 0), (17, 33), (319, 199), (160, 100)] {
            #expect(front[x, y] == rig.content.image![x, y + y0], "pixel (\(x), \(y))")
        }
    }

    @Test func commandsMoveTheViewAndStatusTellsIt() throws {
        let rig = try PipelineRig()
        let handler = rig.commands()
        #expect(handler.handle(.setOffset(x: 0, y: 500, animated: false), id: 1).ok == true)
        let status = try #require(handler.handle(.status, id: 2).status)
        #expect(status.offset == [0, 500] && status.zoomScale == 1 && status.page == 0) // one image, one page
        #expect(status.pageCount == 1)
        #expect(status.boundsSize == [320, 200] && status.contentSize == [1000, 3000])
        let bad = handler.handle(.showPage(1, animated: false), id: 3)
        #expect(bad.ok == false && bad.error?.contains("from 0 to 0") == true)
        // An animated move ends where asked once settled.
        #expect(handler.handle(.setOffset(x: 100, y: 40, animated: true), id: 4).ok == true)
        rig.settle()
        #expect(rig.view.contentOffset == Point(x: 100, y: 40))
    }

    @Test func pagesAreShownByNumberAndReportedInStatus() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-pages-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for i in 0..<3 {
            let image = try #require(PixelBuffer(width: 32, height: 32))
            image.fill(0xFF00_0000 | UInt32(40 * (i + 1)) << 16)
            try PNGCodec.write(image, to: "\(dir)/p\(i).png")
        }
        let pages = try Content.load(directory: dir, pageSize: PixelSize(width: 320, height: 200), background: .black,
                                     pixelBudget: 1 << 20)
        let rig = try PipelineRig(content: pages)
        let handler = rig.commands()
        #expect(handler.handle(.showPage(2, animated: false), id: 1).ok == true)
        #expect(handler.status().page == 2 && handler.status().offset == [640, 0])
        #expect(handler.status().pageCount == 3)
        // The page shown follows the view (as `page-change` gestures count it), not the command.
        #expect(handler.handle(.setOffset(x: 330, y: 0, animated: false), id: 3).ok == true)
        #expect(handler.status().page == 1)
        let out = handler.handle(.showPage(3, animated: false), id: 2)
        #expect(out.ok == false && out.error?.contains("from 0 to 2") == true)
    }

    @Test func snapshotsStayInsideTheirFolder() throws {
        let rig = try PipelineRig()
        let handler = rig.commands()
        #expect(handler.handle(.snapshot(path: "a.png"), id: 1).error?.contains("no snapshot folder") == true)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flickd-snap-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        handler.snapshotDirectory = dir
        for bad in ["../etc/x.png", "/tmp/x.png", "x.txt", ".."] {
            #expect(handler.handle(.snapshot(path: bad), id: 2).ok == false, "\(bad)")
        }
        rig.settle()
        #expect(handler.handle(.snapshot(path: "now.png"), id: 3).ok == true)
        #expect(handler.handle(.snapshot(path: nil), id: 4).error?.contains("a file passed with the request") == true)
        // A file passed along: written into, whatever the folder; a pipe is refused.
        let passed = open(dir + "/passed.png", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(passed) }
        #expect(handler.handle(.snapshot(path: nil), id: 5, file: passed).ok == true)
        #expect(try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/passed.png"))), path: "passed",
                                    pixelBudget: 1 << 20).size == PixelSize(width: 320, height: 200))
        var ends: [Int32] = [0, 0]
        _ = pipe(&ends)
        defer { close(ends[0]); close(ends[1]) }
        #expect(handler.handle(.snapshot(path: nil), id: 6, file: ends[1]).error?.contains("not a regular file") == true)
        #expect(FileManager.default.fileExists(atPath: dir + "/now.png"))
    }
}
