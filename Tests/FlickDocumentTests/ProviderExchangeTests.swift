import FlickCore
import FlickDisplay
import FlickDocument
import FlickDocumentSamples
import Foundation
import Glibc
import Testing

/// The built flickd-render over a real socket pair, the test playing flickd: `provide` with the
/// pool and the document's pages, then tile requests as flickd would send them at zoom 1 and 4,
/// answered into the pool and compared with each page drawn directly by poppler.
@Suite(.serialized) struct ProviderExchangeTests {
    /// The helper started on `paths`, its `provide` read and accepted: the line's fields and the
    /// pool mapped read-only, as flickd maps it.
    final class Session {
        let helper: HelperProcess
        let provide: [String: Any]
        let pool: UnsafeRawPointer
        let poolBytes: Int

        convenience init(_ paths: [String], arguments: [String]) throws {
            try self.init(HelperProcess(documents: paths, arguments: arguments))
        }

        /// The session of a helper already started.
        init(_ helper: HelperProcess) throws {
            self.helper = helper
            let (line, file) = try helper.line()
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["cmd"] as? String == "provide", let file else { throw TestFailure("not a provide with a pool: \(line)") }
            provide = object
            var info = stat()
            fstat(file, &info)
            poolBytes = Int(info.st_size)
            guard let mapped = mmap(nil, poolBytes, PROT_READ, MAP_SHARED, file, 0), mapped != MAP_FAILED else { throw TestFailure("mmap") }
            close(file)
            pool = UnsafeRawPointer(mapped)
            helper.send("{\"id\":1,\"ok\":true,\"provider\":{\"name\":\"document\",\"levels\":16,\"slotBytes\":262144,\"stride\":1024}}")
        }

        deinit { munmap(UnsafeMutableRawPointer(mutating: pool), poolBytes) }

        func request(_ id: Int, _ tile: AskedTile, slot: Int) { helper.send(Self.request(id, tile, slot: slot)) }

        static func request(_ id: Int, _ tile: AskedTile, slot: Int) -> String {
            let j = tile.job
            return ("{\"type\":\"tileRequest\",\"request\":\(id),\"tile\":{\"level\":\(tile.key.level),\"column\":\(tile.key.column),"
                + "\"row\":\(tile.key.row),\"scale\":\(tile.scale),\"x\":\(j.x),\"y\":\(j.y),\"width\":\(Double(j.pixelWidth) / j.scale),"
                + "\"height\":\(Double(j.pixelHeight) / j.scale),\"pixelWidth\":\(j.pixelWidth),\"pixelHeight\":\(j.pixelHeight),"
                + "\"slot\":\(slot),\"offset\":\(slot * 262_144),\"stride\":\(j.stride)}}")
        }

        /// The next answer: its request and whether it was drawn.
        func answer() throws -> (request: Int, drawn: Bool) {
            let line = try helper.line().text
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["cmd"] as? String == "tile", let request = object["request"] as? Int else { throw TestFailure("not a tile answer: \(line)") }
            return (request, object["drawn"] as? Bool ?? true)
        }
    }

    @Test func aPDFIsProvidedAndItsTilesDrawnAsPopplerDrawsThem() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("menu.pdf"), pages: TileComparisonTests.pages))
        let bytes = try scratch.read("menu.pdf")
        let session = try Session([scratch.file("menu.pdf")],
                                  arguments: ["--page-width", "1280", "--gap", "16", "--direction", "vertical", "--background", "#101820",
                                              "--detail-max", "2", "--tile-size", "256", "--slots", "4", "--max-pages", "2000", "--memory-mb", "512"])
        let provide = session.provide
        #expect(provide["id"] as? Int == 1 && provide["width"] as? Int == 1280 && provide["height"] as? Int == 5432)
        #expect(provide["tileSize"] as? Int == 256 && provide["slots"] as? Int == 4 && provide["detail"] as? Int == 2)
        #expect(provide["opaque"] as? Bool == true && provide["name"] as? String == "document" && provide["background"] == nil)
        let document = provide["document"] as? [String: Any]
        #expect(document?["files"] as? [String] == ["menu.pdf"])
        #expect((document?["pages"] as? [[Double]]) == [[640, 900, 3]])
        #expect(session.poolBytes == 4 * 256 * 256 * 4)

        // flickd's own layout of what the helper said gives the same size, bit for bit.
        let layout = try DocumentLayout(pages: Array(repeating: DocumentPageSize(width: 640, height: 900), count: 3), direction: .vertical,
                                        pageWidth: 1280, gap: 16, maxPages: 2000)
        for zoom in [1.0, 4.0] {
            let tiles = try AskedTile.at(zoom: zoom, size: layout.size, detail: 2) { $0.row == (zoom == 1 ? 7 : 28) && $0.column < 4 }
            for (slot, tile) in tiles.enumerated() { session.request(100 + slot, tile, slot: slot) }
            var answered: Set<Int> = []
            for _ in tiles {
                let answer = try session.answer()
                #expect(answer.drawn)
                answered.insert(answer.request)
            }
            #expect(answered == Set(100..<(100 + tiles.count)))
            for (slot, tile) in tiles.enumerated() {
                let difference = try TileDifference.of(session.pool + slot * 262_144, stride: tile.job.stride, asked: tile, layout: layout,
                                                       background: 0x10_18_20, tolerance: 2) { page in
                    try DirectPage.pdf(bytes: bytes, index: page).window(tile, paper: layout.pages[page], points: DocumentPageSize(width: 640, height: 900))
                }
                #expect(difference.different * 1000 <= difference.compared, "\(tile.key) at zoom \(zoom): \(difference)")
            }
        }
        session.helper.send("{\"type\":\"didScroll\",\"t\":1.5,\"offset\":[0,10]}")  // not the helper's: ignored
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
    }

    @Test func cancelledRequestsAreAnsweredUndrawnAndBadOnesRefused() throws {
        let scratch = try Scratch()
        try scratch.write("plan.svg", SampleSVG.floorPlan())
        let session = try Session([scratch.file("plan.svg")], arguments: ["--page-width", "1280", "--slots", "2", "--detail-max", "0"])
        let tiles = try AskedTile.at(zoom: 1, size: .init(width: 1280, height: 960), detail: 0) { $0.row == 0 }
        // Sent in one write, so the helper reads the cancel with the requests, before it draws:
        // the cancelled one is answered undrawn at once, then the other drawn.
        session.helper.send([Session.request(1, tiles[0], slot: 0), Session.request(2, tiles[1], slot: 1),
                             "{\"type\":\"tileCancel\",\"request\":2}"].joined(separator: "\n"))
        let first = try session.answer(), second = try session.answer()
        #expect(first.request == 2 && !first.drawn)
        #expect(second.request == 1 && second.drawn)
        // A cancel of a request already answered needs nothing.
        session.helper.send("{\"type\":\"tileCancel\",\"request\":1}")
        // Two more, and one whose slot lies outside the pool: answered undrawn.
        session.request(3, tiles[2], slot: 0)
        session.request(4, tiles[3], slot: 1)
        session.request(5, tiles[4], slot: 7)
        var late: [Int: Bool] = [:]
        for _ in 0..<3 {
            let answer = try session.answer()
            late[answer.request] = answer.drawn
        }
        #expect(late[5] == false)
        #expect(late[3] == true && late[4] == true)
        // Three at once with two slots: flickd never does it; the third is answered undrawn at
        // once, before the two it could draw.
        session.helper.send([Session.request(6, tiles[0], slot: 0), Session.request(7, tiles[1], slot: 1),
                             Session.request(8, tiles[2], slot: 0)].joined(separator: "\n"))
        let over = try session.answer(), then = try session.answer(), last = try session.answer()
        #expect(over.request == 8 && !over.drawn)
        #expect(then.request == 6 && then.drawn && last.request == 7 && last.drawn)
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
    }

    @Test func externalReferencesAreNotFetchedAndTheRestIsDrawn() throws {
        let scratch = try Scratch()
        // A red image beside the SVG, where its <image href="other.png"> points: never loaded.
        #expect(SamplePNG.writeRed(to: scratch.file("other.png"), width: 16, height: 16))
        try scratch.write("refs.svg", SampleSVG.externalReferences())
        let session = try Session([scratch.file("refs.svg")], arguments: ["--page-width", "400", "--slots", "1"])
        let tile = try #require(try AskedTile.at(zoom: 1, size: .init(width: 400, height: 300), detail: 0).first)
        session.request(1, tile, slot: 0)
        let answer = try session.answer()
        #expect(answer.request == 1 && answer.drawn)
        // The image's corner shows the background rectangle (#336699), not red.
        let pixel = session.pool.load(fromByteOffset: (10 * tile.job.stride) + 10 * 4, as: UInt32.self) & 0xFF_FFFF
        #expect(pixel == 0x33_66_99, "got \(String(pixel, radix: 16))")
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
    }

    @Test func aRefusedProvideEndsTheHelperWithSeventy() throws {
        let scratch = try Scratch()
        try scratch.write("plan.svg", SampleSVG.floorPlan())
        let helper = try HelperProcess(documents: [scratch.file("plan.svg")], arguments: ["--page-width", "1280"])
        _ = try helper.line()
        helper.send("{\"id\":1,\"ok\":false,\"error\":\"'provide': width: differs from the daemon's layout\"}")
        #expect(try helper.exit() == 70)
    }

    @Test(arguments: [[], ["--socket", "3"], ["--socket", "3", "--document", "4:a.pdf"], ["--page-width", "0"], ["--bogus", "1"]])
    func aWrongCommandLineExitsSixtyFour(arguments: [String]) throws {
        let helper = try HelperProcess(documents: [], arguments: arguments, withSocketFlag: false)
        #expect(try helper.exit() == 64)
    }
}
