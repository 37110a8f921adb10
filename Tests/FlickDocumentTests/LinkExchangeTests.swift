import FlickCore
import FlickDocument
import FlickDocumentSamples
import Foundation
import Glibc
import Testing

/// The built flickd-render sends a page's links over the socket, seccomp filter and all: one
/// `links` line (or several, each under 60 000 bytes) before the answer to the first tile drawn of
/// a page that has links, never again that session, nothing for a page without.
@Suite(.serialized) struct LinkExchangeTests {
    /// The next line, decoded: a `links` line's page and links, or a tile answer's request.
    enum Line {
        case links(page: Int, [[String: Any]], bytes: Int)
        case tile(request: Int)
    }

    static func next(_ session: ProviderExchangeTests.Session) throws -> Line {
        let line = try session.helper.line().text
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { throw TestFailure("not JSON: \(line)") }
        switch object["cmd"] as? String {
        case "links":
            guard object["id"] == nil, let page = object["page"] as? Int, let links = object["links"] as? [[String: Any]] else {
                throw TestFailure("a links line without its page or links: \(line)")
            }
            return .links(page: page, links, bytes: line.utf8.count + 1)
        case "tile":
            guard let request = object["request"] as? Int else { throw TestFailure("a tile answer without its request: \(line)") }
            return .tile(request: request)
        default:
            throw TestFailure("neither links nor a tile answer: \(line)")
        }
    }

    /// A link as the line carries it, for comparing with the one the document gives in process.
    static func link(_ fields: [String: Any], page: Int) -> PageLink? {
        guard let x = fields["x"] as? Double, let y = fields["y"] as? Double, let width = fields["width"] as? Double,
              let height = fields["height"] as? Double else { return nil }
        let target: PageLink.Target
        if let uri = fields["uri"] as? String {
            target = .uri(uri)
        } else if let file = fields["file"] as? String {
            target = .file(file, page: fields["toPage"] as? Int)
        } else if let missing = fields["missing"] as? String {
            target = .missing(missing)
        } else if let toPage = fields["toPage"] as? Int {
            target = .page(toPage, x: fields["toX"] as? Double, y: fields["toY"] as? Double)
        } else {
            return nil
        }
        return PageLink(page: page, x: x, y: y, width: width, height: height, target: target)
    }

    @Test func aPagesLinksArriveOnceBeforeItsFirstTile() throws {
        let scratch = try Scratch()
        #expect(SamplePDF.write(to: scratch.file("intro.pdf"), pages: [(600, 800)]))
        try scratch.write("links.pdf", SamplePDF.handBuiltLinks())
        let files = [("intro.pdf", try scratch.read("intro.pdf")), ("links.pdf", SamplePDF.handBuiltLinks())]
        let document = try Document(files: files, options: RenderOptions(socket: 3, documents: [], pageWidth: 1280))
        let session = try ProviderExchangeTests.Session([scratch.file("intro.pdf"), scratch.file("links.pdf")],
                                                        arguments: ["--page-width", "1280", "--slots", "2"])
        let tiles = try AskedTile.at(zoom: 1, size: document.layout.size, detail: 0)
        // The first tile of page 0 (no links), two of page 1, one of page 3.
        let plain = try #require(tiles.first { document.pages(meeting: $0.job) == [0] })
        let onPage1 = tiles.filter { document.pages(meeting: $0.job) == [1] }.prefix(2)
        let onPage3 = try #require(tiles.first { document.pages(meeting: $0.job) == [3] })
        #expect(onPage1.count == 2)

        session.request(1, plain, slot: 0)
        guard case .tile(1) = try Self.next(session) else { throw TestFailure("page 0 has no links, yet something came before its tile") }
        var sent: [Int: [PageLink]] = [:]
        for (request, tile) in zip([2, 3, 4], Array(onPage1) + [onPage3]) {
            session.request(request, tile, slot: 0)
            while true {
                switch try Self.next(session) {
                case let .links(page, links, bytes):
                    #expect(sent[page] == nil, "page \(page)'s links sent twice")
                    #expect(bytes < HelperMessages.linksLineLimit)
                    sent[page, default: []] += links.compactMap { Self.link($0, page: page) }
                    #expect(sent[page]?.count == links.count, "\(links)")
                    continue
                case let .tile(answered):
                    #expect(answered == request)
                }
                break
            }
            // The links of the tile's page came before its answer.
            #expect(sent[document.pages(meeting: tile.job)[0]] != nil)
        }
        #expect(Set(sent.keys) == [1, 3])
        // What the line says is what the document gives, numbers to the bit.
        #expect(sent[1] == document.links(page: 1) && sent[3] == document.links(page: 3))
        #expect(sent[1]?.map(\.target) == [.missing("a link on page 1 of links.pdf leads to a page it does not have"),
                                           .page(2, x: nil, y: nil), .file("menu-2.pdf", page: nil), .file("wines.pdf", page: 1)])
        #expect(sent[3]?.map(\.target) == [.page(1, x: 120, y: 160), .missing("page 4 of links.pdf does not exist"),
                                           .page(2, x: nil, y: nil)])
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
    }

    @Test func aThousandSVGLinksComeInLinesUnderTheLimitAndTheRestAreSaidOnStderr() throws {
        let scratch = try Scratch()
        try scratch.write("seats.svg", SampleSVG.manyLinks(5000, rows: true))
        let helper = try HelperProcess(documents: [scratch.file("seats.svg")], arguments: ["--page-width", "1280", "--slots", "1"],
                                       stderr: scratch.file("stderr"))
        let session = try ProviderExchangeTests.Session(helper)
        let tile = try #require(try AskedTile.at(zoom: 1, size: .init(width: 1280, height: 640), detail: 0).first)
        session.request(1, tile, slot: 0)
        var links: [[String: Any]] = [], lines = 0
        while true {
            guard case let .links(page, more, bytes) = try Self.next(session) else { break }
            #expect(page == 0 && bytes < HelperMessages.linksLineLimit)
            links += more
            lines += 1
        }
        #expect(links.count == 1000 && lines >= 2, "\(links.count) links in \(lines) lines")
        #expect(links.first.flatMap { Self.link($0, page: 0) } == PageLink(page: 0, x: 0, y: 0, width: 10, height: 10, target: .page(0, x: 20, y: 0)))
        // Another tile of the page: no links again.
        session.request(2, tile, slot: 0)
        guard case .tile(2) = try Self.next(session) else { throw TestFailure("links sent twice") }
        session.helper.hangUp()
        #expect(try session.helper.exit() == 0)
        let said = String(decoding: try scratch.read("stderr"), as: UTF8.self).split(separator: "\n").filter { $0.contains("left out") }
        #expect(said == ["flickd-render: seats.svg: 4000 of its 5000 links left out: at most 1000 are kept, and only as many as "
                         + "librsvg measures in about 0.3 s (links among thousands of siblings cost it the most)"])
    }
}
