import FlickControl
import FlickDisplay
import FlickDocumentSamples
import Foundation
import Glibc
import Testing

/// The real daemon showing documents drawn by the real `flickd-render` it starts (built beside
/// it): pages and `page N`, the helper killed mid-flick and back, bad documents, a crash loop.
@Suite(.serialized) struct DocumentDaemonTests {
    static let a4 = (width: 595.28, height: 841.89)

    /// A folder with `menu.pdf` of `pages` A4 pages.
    private func folder(pages: Int) throws -> String {
        let dir = try FlickdProcess.makeDirectory()
        try #require(SamplePDF.write(to: dir + "/menu.pdf", pages: Array(repeating: Self.a4, count: pages)))
        return dir
    }

    /// The daemon on the 800×480 headless panel showing `content`, black while it is not there.
    private func daemon(_ dir: String, content: String, extra: String = "", arguments: [String] = []) throws -> FlickdProcess {
        let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\n" + extra, placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", content] + arguments)
        try daemon.waitUntilReady()
        return daemon
    }

    private func status(_ client: ControlClient) throws -> ControlStatus {
        try #require(try client.call(ControlRequest(cmd: "status")).status)
    }

    /// Waits until the document shows and what the view needs is drawn; its status then.
    @discardableResult
    private func waitShowing(_ daemon: FlickdProcess, _ client: ControlClient, _ what: String,
                             _ more: (ControlStatus) -> Bool = { _ in true }) throws -> ControlStatus {
        var last: ControlStatus?
        try daemon.waitUntil(what, timeout: 30) {
            guard let s = try? status(client), s.document?.state == "showing", let p = s.provider else { return false }
            last = s
            return (p.drawn ?? 0) > 0 && p.pending == 0 && more(s)
        }
        return try #require(last)
    }

    /// The frame on screen, decoded.
    private func snapshot(_ daemon: FlickdProcess, _ client: ControlClient, name: String) throws -> PixelBuffer {
        #expect(try client.call(ControlRequest(cmd: "snapshot", path: name)).ok == true)
        let path = daemon.directory + "/snapshots/" + name
        return try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
    }

    /// Waits until the frame on screen shows a page (over 20 shades), snapshotting it as `name`:
    /// the tiles the status counts as drawn reach the screen at the next frame, not at once.
    private func waitForPage(_ daemon: FlickdProcess, _ client: ControlClient, name: String) throws {
        try daemon.waitUntil("a page drawn on screen (\(name))", timeout: 20) {
            (try? snapshot(daemon, client, name: name)).map { shades($0) > 20 } ?? false
        }
    }

    /// How many colours a frame has (every other pixel): a page's text is antialiased, black is one.
    private func shades(_ frame: PixelBuffer) -> Int {
        var seen = Set<UInt32>()
        for y in stride(from: 0, to: frame.height, by: 2) { for x in stride(from: 0, to: frame.width, by: 2) { seen.insert(frame[x, y] & 0xFF_FFFF) } }
        return seen.count
    }

    @Test func aPDFsPagesAreTheContentsPagesAndPageNGoesToOne() throws {
        let dir = try folder(pages: 3)
        let daemon = try daemon(dir, content: dir + "/menu.pdf")
        let client = try daemon.client()
        let s = try waitShowing(daemon, client, "the menu shown")
        // 800 px wide pages, A4: round(841.89 × 800 / 595.28) = 1131 px high, 16 px apart.
        #expect(s.contentSize == [800, 3 * 1131 + 2 * 16])
        #expect(s.pageCount == 3 && s.page == 0)
        #expect(s.document?.files == ["menu.pdf"] && s.document?.pages == 3 && s.document?.restarts == 0)
        #expect(s.content == dir + "/menu.pdf")
        try waitForPage(daemon, client, name: "page0.png")
        #expect(try client.call(ControlRequest(cmd: "page", page: 2, animated: false)).ok == true)
        let on2 = try waitShowing(daemon, client, "page 2 drawn") { $0.page == 2 }
        #expect(on2.offset[1] == Double(2 * 1131 + 2 * 16))
        try daemon.waitForLog("flickd-render started for")
        #expect(try daemon.terminate() == 0)
    }

    /// The daemon blocks the signals its loop reads; its helper must not inherit that, or the
    /// SIGTERM `systemctl stop` sends every process of the unit would not end it.
    @Test func theHelperStartsWithNoSignalBlocked() throws {
        let dir = try folder(pages: 1)
        let daemon = try daemon(dir, content: dir + "/menu.pdf")
        _ = try waitShowing(daemon, try daemon.client(), "the menu shown")
        let pid = daemon.process.processIdentifier
        let children = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").flatMap { tid in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/children", encoding: .utf8)) ?? "").split(separator: " ")
        }
        let helper = try #require(children.first { child in
            (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8))?.hasPrefix("flickd-render") == true
        }, "no flickd-render among \(children)")
        let mask = SignalsDaemonTests.blocked(Int32(helper)!, String(helper))
        #expect(mask == "0000000000000000", "flickd-render blocks \(mask ?? "?")")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aReloadThatChangesThePageWidthLaysTheDocumentOutAgainInANewHelper() throws {
        let dir = try folder(pages: 3)
        let daemon = try daemon(dir, content: dir + "/menu.pdf")
        let client = try daemon.client()
        let before = try waitShowing(daemon, client, "the menu shown")
        #expect(before.contentSize == [800, 3 * 1131 + 2 * 16])
        let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\ndocument_width_px = 400\n",
                                          placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        // round(841.89 × 400 / 595.28) = 566 px high pages, drawn by a helper started for them.
        let after = try waitShowing(daemon, client, "the menu laid out 400 px wide") { $0.contentSize == [400, 3 * 566 + 2 * 16] }
        #expect(after.document?.pid != nil && after.document?.pid != before.document?.pid)
        #expect(after.pageCount == 3 && after.document?.state == "showing")
        try daemon.waitForLog("is laid out again")
        #expect(try daemon.terminate() == 0)
    }

    @Test func loadShowsADocumentInsideTheLoadDirectoriesAndRefusesOneOutside() throws {
        let dir = try folder(pages: 2)
        try FileManager.default.createDirectory(atPath: dir + "/allowed", withIntermediateDirectories: true)
        try #require(SamplePDF.write(to: dir + "/allowed/menu.pdf", pages: Array(repeating: Self.a4, count: 3)))
        let config = FlickdProcess.config(directory: dir, extra: "[content]\npage_direction = \"vertical\"\nload_directories = [\"\(dir)/allowed\"]\n",
                                          placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless"])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        let outside = try client.call(ControlRequest(cmd: "load", path: dir + "/menu.pdf"))
        #expect(outside.ok == false)
        #expect(try client.call(ControlRequest(cmd: "load", path: dir + "/allowed/menu.pdf")).ok == true)
        let s = try waitShowing(daemon, client, "the loaded menu shown")
        #expect(s.document?.files == ["menu.pdf"] && s.pageCount == 3 && s.content == dir + "/allowed/menu.pdf")
        try waitForPage(daemon, client, name: "loaded.png")
        #expect(try daemon.terminate() == 0)
    }

    @Test func killingTheHelperMidFlickMissesNoFrameAndItsContentReturnsWhereTheViewWas() throws {
        let dir = try folder(pages: 10)
        try Recordings.flicks(at: [4]).write(toFile: dir + "/flick.event", atomically: true, encoding: .utf8)
        let daemon = try daemon(dir, content: dir + "/menu.pdf", arguments: ["--input", "evemu:\(dir)/flick.event"])
        let client = try daemon.client()
        let before = try waitShowing(daemon, client, "the menu shown")
        let pid = try #require(before.document?.pid)
        try daemon.waitUntil("the flick decelerating", timeout: 20) { (try? status(client))?.decelerating == true }
        let start = try status(client)
        let t0 = Date()
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        var end = start
        try daemon.waitUntil("the flick's end", timeout: 20) {
            guard let s = try? status(client) else { return false }
            end = s
            return !s.decelerating && !s.scrolling
        }
        let elapsed = Date().timeIntervalSince(t0)
        // Every vblank of the deceleration had its frame (60 Hz headless), the polls' edges aside.
        let frames = (end.frames ?? 0) - (start.frames ?? 0)
        let vblanks = Int((elapsed * 60).rounded(.down))
        #expect(frames >= vblanks - 2, "\(frames) frames in \(vblanks) vblanks across the helper's kill")
        let back = try waitShowing(daemon, client, "the helper back") { $0.document?.pid != pid }
        #expect(back.document?.restarts == 1)
        #expect(back.offset == end.offset && back.zoomScale == end.zoomScale)
        try daemon.waitForLog("flickd-render ended")
        try daemon.waitForLog("signal 9 (SIGKILL)")
        try daemon.waitForLog("flickd-render restarting in 250 ms")
        try waitForPage(daemon, client, name: "back.png")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aHelperKilledMoreOftenThanAllowedGivesUpAndTheFallbackShows() throws {
        let dir = try folder(pages: 2)
        let daemon = try daemon(dir, content: dir + "/menu.pdf", extra: "render_restarts = 1\n")
        let client = try daemon.client()
        var pid = try #require(try waitShowing(daemon, client, "the menu shown").document?.pid)
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        pid = try #require(try waitShowing(daemon, client, "the helper back") { $0.document?.pid != pid }.document?.pid)
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        var failed: ControlStatus?
        try daemon.waitUntil("the helper given up", timeout: 20) {
            failed = try? status(client)
            return failed?.document?.state == "failed"
        }
        let s = try #require(failed)
        #expect(s.document?.error?.reason == "crashed")
        #expect(s.document?.error?.message.contains("2 times in a row (last: signal 9 (SIGKILL))") == true)
        #expect(s.content == "placeholder (black)")
        #expect(s.contentError?.contains("menu.pdf") == true)
        var shot = 0
        try daemon.waitUntil("the fallback on screen", timeout: 10) {
            shot += 1
            return (try? shades(snapshot(daemon, client, name: "fallback-\(shot).png"))) == 1
        }
        #expect(try daemon.terminate() == 0)
    }

    /// Each bad document: a `documentError` with its reason, the fallback, flickd unharmed (it
    /// answers, and terminates cleanly), the helper not restarted.
    @Test(arguments: [("encrypted.pdf", "encrypted"), ("fake.pdf", "notADocument")])
    func aDocumentThatCannotBeShownSaysWhyAndIsNotRetried(name: String, reason: String) throws {
        let dir = try FlickdProcess.makeDirectory()
        let bytes: [UInt8] = name == "fake.pdf" ? Array("a menu, honestly\n".utf8) : SamplePDF.encrypted()
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        let daemon = try daemon(dir, content: dir + "/" + name)
        let client = try daemon.client()
        var seen: ControlStatus?
        try daemon.waitUntil("the document refused", timeout: 20) {
            seen = try? status(client)
            return seen?.document?.state == "failed"
        }
        let s = try #require(seen)
        #expect(s.document?.error?.reason == reason)
        #expect(s.document?.restarts == 0)
        #expect(s.content == "placeholder (black)")
        try daemon.waitForLog("flickd-render ended")
        try daemon.waitForLog("exit status 65")
        #expect(!daemon.stderr.contains("flickd-render restarting"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func onlyTheHelpersConnectionMaySayDocumentErrorOrDeclareADocument() throws {
        let dir = try folder(pages: 1)
        let daemon = try daemon(dir, content: dir + "/menu.pdf")
        let client = try daemon.client()
        try waitShowing(daemon, client, "the menu shown")
        var error = ControlRequest(cmd: "documentError")
        error.reason = "encrypted"
        error.message = "not yours to say"
        let refused = try client.call(error)
        #expect(refused.ok == false && refused.error?.contains("unknown command 'documentError'") == true)
        var provide = ControlRequest(cmd: "provide", width: 100, height: 100, slots: 1)
        provide.document = ControlDocumentDeclaration(files: ["x.pdf"], pages: [[100, 100, 1]])
        let declared = try client.call(provide)
        #expect(declared.ok == false && declared.error?.contains("document") == true)
        #expect(try status(client).document?.state == "showing")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aFolderOfPDFsShowsThemOneAfterAnotherAndAnImageAmongThemIsAPageToo() throws {
        let dir = try FlickdProcess.makeDirectory()
        let docs = dir + "/docs"
        try FileManager.default.createDirectory(atPath: docs, withIntermediateDirectories: true)
        try #require(SamplePDF.write(to: docs + "/a.pdf", pages: [Self.a4, Self.a4]))
        try #require(SamplePDF.write(to: docs + "/b.pdf", pages: [Self.a4]))
        let daemon = try daemon(dir, content: docs)
        let client = try daemon.client()
        let s = try waitShowing(daemon, client, "the folder shown")
        #expect(s.document?.files == ["a.pdf", "b.pdf"] && s.pageCount == 3)
        #expect(try daemon.terminate() == 0)

        // A PNG among the PDFs (issue 38: "a folder may hold them among its pages"): the helper
        // draws it too, a page 800 px wide, 800 high (64 × 64 px counted as points), after the PDFs.
        try #require(SamplePNG.writeRed(to: docs + "/c.png", width: 64, height: 64))
        try "[content]\npath = \"\(docs)\"\n".write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
        let check = try runBuilt("flickd", ["check-config", dir + "/c.toml", "--user", FlickdProcess.user])
        #expect(check.status == 0, "\(check.out)\(check.err)")
        #expect((check.out + check.err).contains("a folder of 2 documents and 1 image"))
        let mixed = try self.daemon(dir, content: docs)
        let mixedClient = try mixed.client()
        let m = try waitShowing(mixed, mixedClient, "the mixed folder shown")
        #expect(m.document?.files == ["a.pdf", "b.pdf", "c.png"] && m.pageCount == 4)
        let height: Double = 3 * 1131 + 3 * 16 + 800
        #expect(m.contentSize == [800, height])
        #expect(try mixedClient.call(ControlRequest(cmd: "page", page: 3, animated: false)).ok == true)
        let on3 = try waitShowing(mixed, mixedClient, "the PNG page drawn") { $0.page == 3 }
        #expect(on3.offset[1] == Double(3 * 1131 + 3 * 16))
        // The 800 × 480 screen lies wholly inside the red page (32 px from its edges left out:
        // the scroll indicators may show there), once the tiles drawn for it reach the screen.
        var red = 0, seen = 0, centre: UInt32 = 0
        defer { if red != seen || seen == 0 { Issue.record("\(red) of \(seen) pixels red; the centre \(String(centre, radix: 16))") } }
        try mixed.waitUntil("the PNG page's red on screen", timeout: 20) {
            guard let frame = try? snapshot(mixed, mixedClient, name: "png.png") else { return false }
            (red, seen, centre) = (0, 0, frame[400, 240] & 0xFF_FFFF)
            for y in stride(from: 32, to: frame.height - 32, by: 4) {
                for x in stride(from: 32, to: frame.width - 32, by: 4) {
                    seen += 1
                    if frame[x, y] & 0xFF_FFFF == 0xFF_0000 { red += 1 }
                }
            }
            return red == seen && seen > 0
        }
        #expect(try mixed.terminate() == 0)
    }
}
