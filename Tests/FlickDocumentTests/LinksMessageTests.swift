import FlickDocument
import Foundation
import Testing

/// `links` lines as `HelperMessages` writes them: each target's fields, nothing for nil, and a
/// page's links split over lines that each stay under the limit.
struct LinksMessageTests {
    @Test func eachTargetHasItsFieldsAndNoOthers() throws {
        let links = [
            PageLink(page: 4, x: 10, y: 20.5, width: 30, height: 40, target: .page(7, x: 1.25, y: nil)),
            PageLink(page: 4, x: 0, y: 0, width: 1, height: 1, target: .page(0, x: nil, y: nil)),
            PageLink(page: 4, x: 0, y: 0, width: 1, height: 1, target: .uri("https://example.com/a?b=\"c\"")),
            PageLink(page: 4, x: 0, y: 0, width: 1, height: 1, target: .file("wines.pdf", page: 2)),
            PageLink(page: 4, x: 0, y: 0, width: 1, height: 1, target: .file("menu-2.pdf", page: nil)),
            PageLink(page: 4, x: 0, y: 0, width: 1, height: 1, target: .missing("page 9 of menu.pdf does not exist")),
        ]
        let lines = HelperMessages.links(page: 4, links)
        #expect(lines == ["{\"cmd\":\"links\",\"page\":4,\"links\":["
                + "{\"x\":10,\"y\":20.5,\"width\":30,\"height\":40,\"toPage\":7,\"toX\":1.25},"
                + "{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"toPage\":0},"
                + "{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"uri\":\"https://example.com/a?b=\\\"c\\\"\"},"
                + "{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"file\":\"wines.pdf\",\"toPage\":2},"
                + "{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"file\":\"menu-2.pdf\"},"
                + "{\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"missing\":\"page 9 of menu.pdf does not exist\"}]}\n"])
        #expect(HelperMessages.links(page: 4, []).isEmpty)
    }

    @Test func manyLinksAreSplitIntoLinesUnderTheLimitInOrder() throws {
        let uri = "https://example.com/" + String(repeating: "x", count: 500)
        let links = (0..<1000).map { PageLink(page: 2, x: Double($0), y: 1, width: 2, height: 3, target: .uri(uri + "\($0)")) }
        let lines = HelperMessages.links(page: 2, links)
        #expect(lines.count > 1)
        var read: [String] = []
        for line in lines {
            #expect(line.utf8.count < HelperMessages.linksLineLimit && line.hasSuffix("}\n") && !line.dropLast().contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["cmd"] as? String == "links" && object["page"] as? Int == 2)
            read += (object["links"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
        }
        #expect(read == links.map { uri + "\(Int($0.x))" })
    }

    @Test func aTargetTooLongForALineIsSentAsMissing() throws {
        let huge = PageLink(page: 0, x: 1, y: 2, width: 3, height: 4, target: .uri(String(repeating: "u", count: 70_000)))
        let small = PageLink(page: 0, x: 5, y: 6, width: 7, height: 8, target: .uri("https://example.com/"))
        let lines = HelperMessages.links(page: 0, [small, huge, small])
        #expect(lines.count == 1 && lines.allSatisfy { $0.utf8.count < HelperMessages.linksLineLimit })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let sent = object["links"] as? [[String: Any]]
        #expect(sent?.count == 3)
        #expect(sent?[1]["missing"] as? String == "a link too long to send (70043 bytes of JSON)")
        #expect(sent?[1]["x"] as? Int == 1 && sent?[2]["uri"] as? String == "https://example.com/")
    }
}
