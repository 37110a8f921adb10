import FlickCore
import FlickDocument
import FlickDocumentSamples
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Section 16: documents (issue 38). How fast flickd-render draws a generated 10-page A4 menu
/// (cairo-written: text and vector shapes), in tiles of 256 px, at zoom 1 (scale 1) and zoom 4
/// (detail 2: scale 4, text drawn again): 60 tiles down the first pages at each zoom, as a flick
/// asks for them.
/// - in process: `Document.draw` into a slot-sized buffer, what the helper does per request;
/// - through the helper: the built `flickd-render` over a socket pair, 16 slots outstanding, each
///   request answered before the next is sent into its slot — parsing the lines, drawing, the
///   answers — under its seccomp filter.
/// The two zooms alternate sample by sample (A B A B); the ratio is the median of paired ratios.
enum DocumentBench {
    static let title = "17. documents: flickd-render's tiles per second, a 10-page A4 menu (PDF), 256-px tiles, zoom 1 and zoom 4"

    struct Tile { var scale: Double; var x: Double; var y: Double }

    /// 60 tiles of the level at `scale` (1 or 4): 5 columns (at scale 1) or the left 5 (at 4) of
    /// 12 rows from the top of the second page, the rows a downward flick reaches first.
    static func tiles(scale: Double, layout: DocumentLayout) -> [Tile] {
        let top = layout.pages[1].origin.y * scale
        return (0..<12).flatMap { row in
            (0..<5).map { column in
                Tile(scale: scale, x: Double(column * 256) / scale, y: (top + Double(row * 256)).rounded(.down) / scale)
            }
        }
    }

    static func report(quick: Bool, arguments: [String]) {
        let folder = NSTemporaryDirectory() + "flickd-bench-documents-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/menu.pdf"
        guard SamplePDF.write(to: path, pages: Array(repeating: (595.28, 841.89), count: 10)),
              let data = FileManager.default.contents(atPath: path) else {
            print("flickd-bench: cannot write the menu")
            return
        }
        var options = RenderOptions(socket: 3, documents: [], pageWidth: 1280)
        options.gap = 16
        options.detailMax = 2
        let document: Document
        do { document = try Document(files: [("menu.pdf", Array(data))], options: options) } catch {
            print("flickd-bench: \(error)")
            return
        }
        print("menu: \(data.count) bytes, 10 pages, content \(document.layout.size) at zoom 1, detail \(document.layout.detail(maximum: 2))")
        let rounds = quick ? 3 : 11
        let sets = [tiles(scale: 1, layout: document.layout), tiles(scale: 4, layout: document.layout)]
        var inProcess = [Stats(samples: []), Stats(samples: [])]
        var buffer = [UInt8](repeating: 0, count: 256 * 256 * 4)
        for _ in 0..<rounds {
            for (which, set) in sets.enumerated() {
                let start = monotonicNanoseconds()
                for t in set {
                    let job = TileJob(scale: t.scale, x: t.x, y: t.y, pixelWidth: 256, pixelHeight: 256, stride: 1024)
                    _ = buffer.withUnsafeMutableBytes { raw in raw.baseAddress.map { document.draw(job, into: $0, background: 0x101820) } }
                }
                inProcess[which].samples.append(Double(set.count) / (Double(monotonicNanoseconds() - start) / 1e9))
            }
        }
        print("in process, zoom 1: \(inProcess[0].summary("tiles/s"))")
        print("in process, zoom 4: \(inProcess[1].summary("tiles/s"))")
        print("in process, zoom 4 / zoom 1 (paired): \(fmt(inProcess[1].pairedRatio(to: inProcess[0]), 2))")
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
        let helper = (me as NSString).deletingLastPathComponent + "/flickd-render"
        guard FileManager.default.isExecutableFile(atPath: helper) else {
            Verdicts.skip("documents through the helper", "no flickd-render beside \(me): build it (swift build -c release --product flickd-render)")
            return
        }
        do {
            let exchange = try HelperExchange(helper: helper, document: path)
            var through = [Stats(samples: []), Stats(samples: [])]
            for _ in 0..<rounds {
                for (which, set) in sets.enumerated() {
                    let start = monotonicNanoseconds()
                    try exchange.draw(set)
                    through[which].samples.append(Double(set.count) / (Double(monotonicNanoseconds() - start) / 1e9))
                }
            }
            print("through flickd-render, zoom 1: \(through[0].summary("tiles/s"))")
            print("through flickd-render, zoom 4: \(through[1].summary("tiles/s"))")
            print("through flickd-render, zoom 4 / zoom 1 (paired): \(fmt(through[1].pairedRatio(to: through[0]), 2))")
        } catch {
            print("flickd-bench: through the helper: \(error)")
        }
        print("load: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?")")
    }
}
