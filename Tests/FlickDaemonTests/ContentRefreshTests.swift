import FlickControl
import FlickCore
@testable import FlickDaemon
import FlickDisplay
import FlickTestSupport
import Foundation
import Glibc
import Testing

/// Content kept fresh (issue 35, part 3): replaced on disk and watched with real inotify in a
/// temporary folder, read again at a reload, chosen with `load` and kept across a restart. The
/// host shows on a real pipeline on the headless output, whose pixels are read back; time is
/// the pipeline's virtual clock, and the watch's settle deadline is met by dispatching at it.
@Suite struct ContentRefreshTests {
    static let red: UInt32 = 0xFF0000, blue: UInt32 = 0x0000FF, green: UInt32 = 0x00FF00

    /// A folder of its own, a host over a pipeline on a 64 × 48 headless panel.
    final class Bench {
        let folder: String
        var configuration = Configuration()
        private(set) var rig: PipelineRig?
        private(set) var host: ContentHost!

        init() throws {
            var template = Array("/tmp/flickd-refresh-XXXXXX".utf8CString)
            folder = String(cString: try #require(mkdtemp(&template)))
            configuration.statePath = folder + "/state.json"
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        /// Starts a host (a restart: a new one over the same state file) and shows its content.
        func start() throws {
            let host = ContentHost(configuration: configuration, stateStore: StateStore(path: configuration.statePath),
                                   tileWorkers: 0, clock: { [unowned self] in self.rig?.pipeline.now ?? .zero })
            let first = try host.start(view: PixelSize(width: 64, height: 48))
            let rig = try PipelineRig(size: PixelSize(width: 64, height: 48), content: first.content,
                                      configuration: configuration, restore: first.restore)
            self.rig = rig
            self.host = host
            host.attach(rig.pipeline)
            rig.settle()
        }

        var pipeline: Pipeline { rig!.pipeline }

        /// The colour at the panel's (x, y) on the frame last presented, after the pipeline rests.
        func pixel(_ x: Int = 32, _ y: Int = 24) throws -> UInt32 {
            rig!.settle()
            return try #require(pipeline.presenter.output.snapshot())[x, y] & 0xFF_FFFF
        }

        /// `status` as the control socket answers it.
        var status: ControlStatus {
            let commands = rig!.commands()
            commands.content = host
            return commands.status()
        }

        /// Waits for the watch to hear something and hands it over at the pipeline's time.
        func heard() throws {
            let watch = try #require(host.watch, "the content is watched")
            try waitUntilReadable(watch.fileDescriptor.rawValue, "the content watch")
            host.dispatch(now: pipeline.now)
        }

        /// Hands over what the watch heard, then meets its settle deadline.
        func settled() throws {
            try heard()
            let due = try #require(host.nextDeadline, "a settle deadline after a finished change")
            #expect(due == pipeline.now + configuration.watchSettle)
            host.dispatch(now: due)
        }

        /// A PNG of `width` × `height` in `colour` at `path`, written whole (over what is there).
        func png(_ path: String, _ colour: UInt32, width: Int = 64, height: Int = 48) throws {
            let image = try #require(PixelBuffer(width: width, height: height))
            image.fill(Color(rgb: colour).pixel)
            try PNGCodec.write(image, to: path)
        }

        /// The bytes of such a PNG.
        func pngBytes(_ colour: UInt32, width: Int = 64, height: Int = 48) throws -> [UInt8] {
            let scratch = folder + "/.scratch.png"
            try png(scratch, colour, width: width, height: height)
            defer { unlink(scratch) }
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: scratch)))
        }

        /// Writes a PNG beside `path` and renames it over `path`, as `mv` and rsync do.
        func renameOver(_ path: String, _ colour: UInt32, width: Int = 64, height: Int = 48) throws {
            try png(folder + "/incoming.png", colour, width: width, height: height)
            #expect(rename(folder + "/incoming.png", path) == 0)
        }
    }

    @Test func aPNGRenamedOverTheContentIsShownOnceTheChangeSettles() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red)
        bench.configuration.contentPath = path
        try bench.start()
        #expect(try bench.pixel() == Self.red && bench.host.nextDeadline == nil, "nothing to do while nothing changes")

        try bench.renameOver(path, Self.blue)
        try bench.heard()
        let due = try #require(bench.host.nextDeadline)
        bench.host.dispatch(now: due - .milliseconds(1))
        #expect(try bench.pixel() == Self.red, "not before the change settles")
        bench.host.dispatch(now: due)
        #expect(try bench.pixel() == Self.blue)
        #expect(bench.host.nextDeadline == nil && bench.status.contentError == nil && bench.host.name == path)
    }

    @Test func aFileWrittenInPlaceInTwoHalvesIsNotShownHalfWritten() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red)
        bench.configuration.contentPath = path
        try bench.start()

        let bytes = try bench.pngBytes(Self.blue)
        let fd = open(path, O_WRONLY | O_TRUNC)
        try #require(fd >= 0)
        let half = bytes.count / 2
        #expect(bytes[..<half].withUnsafeBytes { write(fd, $0.baseAddress, half) } == half)
        // Written to but still open: busy, no deadline, the old picture however long it waits.
        try bench.heard()
        #expect(bench.host.nextDeadline == nil)
        bench.host.dispatch(now: bench.pipeline.now + .seconds(30))
        #expect(try bench.pixel() == Self.red && bench.status.contentError == nil)

        #expect(bytes[half...].withUnsafeBytes { write(fd, $0.baseAddress, bytes.count - half) } == bytes.count - half)
        close(fd)
        try bench.settled()
        #expect(try bench.pixel() == Self.blue)
    }

    @Test func garbageReplacingTheContentKeepsTheOldPictureAndStatusSaysWhy() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red)
        bench.configuration.contentPath = path
        try bench.start()

        try Data("not a picture at all".utf8).write(to: URL(fileURLWithPath: bench.folder + "/incoming.png"))
        #expect(rename(bench.folder + "/incoming.png", path) == 0)
        try bench.settled()
        #expect(try bench.pixel() == Self.red)
        let error = try #require(bench.status.contentError)
        #expect(error.contains(path) && error.hasSuffix("; its version shown before stays on screen"), "\(error)")

        // A truncated PNG (the first half of a good one) is broken the same way.
        let bytes = try bench.pngBytes(Self.blue)
        try Data(bytes[..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: bench.folder + "/incoming.png"))
        #expect(rename(bench.folder + "/incoming.png", path) == 0)
        try bench.settled()
        #expect(try bench.pixel() == Self.red && bench.status.contentError != nil)

        // Fixed: shown, and the error gone.
        try bench.renameOver(path, Self.green)
        try bench.settled()
        #expect(try bench.pixel() == Self.green && bench.status.contentError == nil)
    }

    @Test func aDeletedFileKeepsThePictureUntilItIsRestored() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red)
        bench.configuration.contentPath = path
        try bench.start()

        #expect(unlink(path) == 0)
        try bench.settled()
        #expect(try bench.pixel() == Self.red)
        #expect(bench.status.contentError?.contains("\(path): no such file or folder") == true, "\(bench.status)")

        // Made again by a copy (created, written, closed): shown once closed.
        try bench.png(path, Self.blue)
        try bench.settled()
        #expect(try bench.pixel() == Self.blue && bench.status.contentError == nil)
    }

    @Test func contentMissingAtStartIsShownWhenItArrives() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        bench.configuration.contentPath = path
        try bench.start()
        #expect(try bench.pixel() == 0 && bench.host.name == "placeholder (black)")
        #expect(bench.status.contentError?.contains(path) == true)
        try bench.renameOver(path, Self.blue)
        try bench.settled()
        #expect(try bench.pixel() == Self.blue && bench.host.name == path && bench.status.contentError == nil)
    }

    @Test func aFolderGainingAPageShowsItAndKeepsThePageInView() throws {
        let bench = try Bench()
        let pages = bench.folder + "/pages"
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try bench.png(pages + "/1.png", Self.red)
        try bench.png(pages + "/2.png", Self.blue)
        bench.configuration.contentPath = pages
        try bench.start()
        #expect(bench.status.pageCount == 2)
        bench.pipeline.restore(offset: Point(x: 64, y: 0), zoomScale: 1, at: bench.pipeline.now)
        #expect(try bench.pixel() == Self.blue)

        // A page added after: still on page 2.
        try bench.png(pages + "/3.png", Self.green)
        try bench.settled()
        #expect(bench.status.pageCount == 3 && bench.status.page == 1 && bench.pipeline.scrollView.contentOffset.x == 64)
        #expect(try bench.pixel() == Self.blue)

        // The page before it removed: the view stays on the same page (now the first).
        #expect(unlink(pages + "/1.png") == 0)
        try bench.settled()
        #expect(bench.status.pageCount == 2 && bench.status.page == 0)
        #expect(try bench.pixel() == Self.blue)
    }

    @Test func aFolderReplacedWholeIsShownAndWatchedAnew() throws {
        let bench = try Bench()
        let pages = bench.folder + "/pages", next = bench.folder + "/next"
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: next, withIntermediateDirectories: true)
        try bench.png(pages + "/1.png", Self.red)
        try bench.png(next + "/1.png", Self.blue)
        bench.configuration.contentPath = pages
        try bench.start()

        // The old folder removed, the new one moved into its place (a deployment's swap).
        try FileManager.default.removeItem(atPath: pages)
        #expect(rename(next, pages) == 0)
        try bench.settled()
        #expect(try bench.pixel() == Self.blue && bench.status.pageCount == 1)
        // The new folder is the one watched now: a page added to it is seen.
        try bench.png(pages + "/2.png", Self.green)
        try bench.settled()
        #expect(bench.status.pageCount == 2)
    }

    @Test func theViewsOffsetIsKeptClampedIntoTheNewContent() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red, width: 256)
        bench.configuration.contentPath = path
        try bench.start()
        bench.pipeline.restore(offset: Point(x: 150, y: 0), zoomScale: 1, at: bench.pipeline.now)

        try bench.renameOver(path, Self.blue, width: 300)
        try bench.settled()
        #expect(try bench.pixel() == Self.blue && bench.pipeline.scrollView.contentOffset.x == 150)

        // Narrower: as far right as it goes now (200 − 64).
        try bench.renameOver(path, Self.green, width: 200)
        try bench.settled()
        #expect(try bench.pixel() == Self.green && bench.pipeline.scrollView.contentOffset.x == 136)
    }

    @Test func aReloadReadsAChangedFileAgainWithTheWatchOff() throws {
        let bench = try Bench()
        let path = bench.folder + "/content.png"
        try bench.png(path, Self.red)
        bench.configuration.contentPath = path
        bench.configuration.watchContent = false
        try bench.start()
        #expect(bench.host.watch == nil && bench.host.fileDescriptors.isEmpty)

        try bench.renameOver(path, Self.blue)
        #expect(try bench.pixel() == Self.red)
        bench.host.apply(bench.configuration)
        #expect(try bench.pixel() == Self.blue)
        // Unchanged since: a reload reads nothing.
        let shown = bench.rig!.pipeline.presenter.composer.content
        bench.host.apply(bench.configuration)
        #expect(bench.rig!.pipeline.presenter.composer.content === shown)

        // Turned on by a reload: watched from then on.
        bench.configuration.watchContent = true
        bench.host.apply(bench.configuration)
        try bench.renameOver(path, Self.green)
        try bench.settled()
        #expect(try bench.pixel() == Self.green)
    }

    @Test func contentChosenWithLoadIsShownAgainAfterARestartUntilTheConfigChangesItsPath() throws {
        let bench = try Bench()
        let configured = bench.folder + "/configured.png", chosen = bench.folder + "/allowed/chosen.png"
        try FileManager.default.createDirectory(atPath: bench.folder + "/allowed", withIntermediateDirectories: true)
        try bench.png(configured, Self.red)
        try bench.png(chosen, Self.blue)
        bench.configuration.contentPath = configured
        bench.configuration.loadDirectories = [bench.folder + "/allowed"]
        try bench.start()
        var saves = 0
        bench.host.chosen = { saves += 1 }
        try bench.host.load(chosen)
        #expect(try bench.pixel() == Self.blue && saves == 1)
        // The daemon saves the state when asked to.
        let store = StateStore(path: bench.configuration.statePath)
        try store.save(bench.host.persistedState(offset: .zero, zoomScale: 1))

        // Restarted: what load chose, and it is watched.
        try bench.start()
        #expect(bench.host.name == chosen && bench.host.watch?.path == chosen)
        #expect(try bench.pixel() == Self.blue)

        // A reload with the same content.path keeps it.
        bench.host.apply(bench.configuration)
        #expect(try bench.pixel() == Self.blue)
        try store.save(bench.host.persistedState(offset: .zero, zoomScale: 1))

        // The config names other content: the config wins, and the choice is forgotten.
        let other = bench.folder + "/other.png"
        try bench.png(other, Self.green)
        bench.configuration.contentPath = other
        try bench.start()
        #expect(try bench.pixel() == Self.green && bench.host.name == other)
        #expect(store.load().state?.loaded == nil)
        bench.configuration.contentPath = configured
        try bench.start()
        #expect(try bench.pixel() == Self.red, "the choice does not come back with the old path")
    }

    @Test func aReloadThatChangesTheContentPathShowsTheConfigsContentOverWhatLoadChose() throws {
        let bench = try Bench()
        let chosen = bench.folder + "/allowed/chosen.png", other = bench.folder + "/other.png"
        try FileManager.default.createDirectory(atPath: bench.folder + "/allowed", withIntermediateDirectories: true)
        try bench.png(chosen, Self.blue)
        try bench.png(other, Self.green)
        bench.configuration.loadDirectories = [bench.folder + "/allowed"]
        try bench.start()
        try bench.host.load(chosen)
        #expect(bench.host.persistedState(offset: .zero, zoomScale: 1).loaded == chosen)
        bench.configuration.contentPath = other
        bench.host.apply(bench.configuration)
        #expect(try bench.pixel() == Self.green && bench.host.persistedState(offset: .zero, zoomScale: 1).loaded == nil)
    }

    @Test func aStateSavedBeforeLoadWasKeptStillLoads() throws {
        let bench = try Bench()
        let path = bench.configuration.statePath
        try Data(#"{"content":"/srv/a.png|1|2","offsetX":10,"offsetY":20,"zoomScale":1.5}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let (state, warning) = StateStore(path: path).load()
        #expect(warning == nil)
        #expect(state == PersistedState(content: "/srv/a.png|1|2", offsetX: 10, offsetY: 20, zoomScale: 1.5))
    }

    @Test func aSignatureChangesWithTheInodeTheBytesAndAFoldersPagesButNotItsHiddenFiles() throws {
        let bench = try Bench()
        let path = bench.folder + "/a.png"
        #expect(ContentIdentity.signature(of: path) == nil)
        try bench.png(path, Self.red)
        let first = ContentIdentity.signature(of: path)
        #expect(first != nil && ContentIdentity.signature(of: path) == first)
        try bench.renameOver(path, Self.red)
        #expect(ContentIdentity.signature(of: path) != first, "a new inode")
        let folder = ContentIdentity.signature(of: bench.folder)
        try Data().write(to: URL(fileURLWithPath: bench.folder + "/.rsync-temp"))
        #expect(ContentIdentity.signature(of: bench.folder) == folder)
        try Data().write(to: URL(fileURLWithPath: bench.folder + "/b.png"))
        #expect(ContentIdentity.signature(of: bench.folder) != folder)
    }
}
