import Foundation
import Testing

/// The README's quick start: the demo replay shows its map whole and centred on the first frame,
/// and a pinch below that bounces back to it.
@Suite struct DemoMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func theDemoMapStartsFittedAndCentredAndComesBackToIt() throws {
        // demo.toml names demo/map.jpg from the checkout, where scripts/run.sh runs it.
        let dir = try FlickdProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try String(contentsOfFile: Self.root + "/demo/demo.toml", encoding: .utf8)
            .replacingOccurrences(of: "\"demo/map.jpg\"", with: "\"\(Self.root)/demo/map.jpg\"")
        try config.write(toFile: dir + "/demo.toml", atomically: true, encoding: .utf8)
        let (status, out, err) = try runBuilt("flickd", ["replay", Self.root + "/demo/flick-demo.event", "--config", dir + "/demo.toml",
                                                         "--json"])
        #expect(status == 0, "\(err)")
        let frames = out.split(separator: "\n").filter { $0.contains("\"type\":\"frame\"") }
        // 3000 × 3000 on 800 × 480: fit 480/3000 = 0.16, a 480 px square with 160 px either side.
        #expect(frames.first?.contains("\"offset\":[-160,") == true && frames.first?.contains("\"zoomScale\":0.16") == true,
                "\(frames.first ?? "no frame")")
        // The second pinch goes below fit and bounces back to it, centred across.
        func zoom(_ line: Substring) -> Double {
            Double(line.components(separatedBy: "\"zoomScale\":").dropFirst().first?.prefix { $0 != "," && $0 != "}" } ?? "") ?? -1
        }
        #expect(frames.contains { zoom($0) > 0 && zoom($0) < 0.15 }, "a pinch below fit")
        // Its last frame before the double tap (12.79 s): back at fit, centred.
        func time(_ line: Substring) -> Double {
            Double(line.components(separatedBy: "\"t\":").dropFirst().first?.prefix { $0 != "," } ?? "") ?? -1
        }
        let rested = frames.last { time($0) < 12.7 }
        #expect(rested?.contains("\"offset\":[-160,") == true && rested?.contains("\"zoomScale\":0.16}") == true, "\(rested ?? "none")")
    }
}
