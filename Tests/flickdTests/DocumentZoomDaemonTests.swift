import CCairo
import CPoppler
import FlickControl
import FlickDisplay
import FlickDocumentSamples
import Foundation
import Glibc
import Testing

/// Zoom 4 on a document shows tiles flickd asked of flickd-render at scale 4: the page's text
/// drawn again at four times the pixels, not the zoom-1 tiles stretched (issue 38's acceptance).
/// The frame on screen is compared with the page drawn by poppler straight at scale 4, and with
/// the daemon's own zoom-1 frame stretched four times: it must be the first and not the second.
@Suite(.serialized) struct DocumentZoomDaemonTests {
    static let a4 = (width: 595.28, height: 841.89)
    /// The panel (FlickdProcess's headless 800×480) and the page laid out on it: 800 px wide,
    /// round(841.89 × 800 / 595.28) = 1131 px high.
    static let view = (width: 800, height: 480), paper = (width: 800.0, height: 1131.0)
    /// Where the view is at zoom 4, in zoom-4 pixels: the content from (60, 200) to (260, 320) at
    /// zoom 1, the first two lines of the menu's dishes (baselines at 226 and 283 px).
    static let offset = (x: 240, y: 800)

    @Test func zoom4ShowsThePageDrawnAgainAtScale4NotTheZoom1TilesStretched() throws {
        let dir = try FlickdProcess.makeDirectory()
        let pdf = dir + "/menu.pdf"
        try #require(SamplePDF.write(to: pdf, pages: [Self.a4]))
        let config = FlickdProcess.config(directory: dir, extra: "[zoom]\nmaximum_scale = 4\n[content]\npage_direction = \"vertical\"\n",
                                          placeholder: "black")
        try config.write(toFile: dir + "/flickd.toml", atomically: true, encoding: .utf8)
        let daemon = try FlickdProcess(directory: dir, arguments: ["run", "--display", "headless", "--content", pdf])
        try daemon.waitUntilReady()
        let client = try daemon.client()
        try waitDrawn(daemon, client, "the page at zoom 1") { $0.zoomScale == 1 && $0.offset == [0, 0] }
        let one = try snapshot(daemon, client, name: "zoom1.png")

        #expect(try client.call(ControlRequest(cmd: "set-zoom", scale: 4, animated: false)).ok == true)
        let target = [Double(Self.offset.x), Double(Self.offset.y)]
        #expect(try client.call(ControlRequest(cmd: "set-offset", x: target[0], y: target[1], animated: false)).ok == true)
        try waitDrawn(daemon, client, "the page at zoom 4") { $0.zoomScale == 4 && $0.offset == target }
        let four = try snapshot(daemon, client, name: "zoom4.png")
        #expect(try daemon.terminate() == 0)

        let sharp = try popplerWindow(pdf: [UInt8](Data(contentsOf: URL(fileURLWithPath: pdf))), scale: 4)
        let stretched = Self.stretched(one, by: 4)
        let toSharp = Self.differing(four, sharp), toStretched = Self.differing(four, stretched)
        let pixels = Self.compared.width * Self.compared.height
        // Tiles drawn separately meet where a whole-page drawing has no seam: a few antialiased
        // pixels along tile edges may differ by more than the tolerance, nowhere else.
        #expect(toSharp * 200 <= pixels, "zoom 4 differs from the page drawn at scale 4 in \(toSharp) of \(pixels) pixels")
        // The stretched zoom-1 frame blurs every edge of the text: thousands of pixels.
        #expect(toStretched * 50 >= pixels, "zoom 4 differs from zoom 1 stretched in only \(toStretched) of \(pixels) pixels")
        #expect(toStretched >= 20 * max(toSharp, 1), "\(toStretched) pixels differ from zoom 1 stretched, \(toSharp) from scale 4")
    }

    /// Waits until the document shows, the view is where `at` wants it and its tiles are drawn
    /// and on screen. The tiles the status counts as drawn reach the screen with the next frame,
    /// not at once (a quiet machine polls between the two): the screen holds what was wanted once
    /// no frame was committed for 250 ms with nothing pending (a tile that came would have
    /// brought a frame within a refresh).
    private func waitDrawn(_ daemon: FlickdProcess, _ client: ControlClient, _ what: String, _ at: (ControlStatus) -> Bool) throws {
        var committed: Int?
        try daemon.waitUntil(what, timeout: 30) {
            guard let s = try? client.call(ControlRequest(cmd: "status")).status, s.document?.state == "showing",
                  let provider = s.provider, let tiles = s.tiles,
                  at(s) && (provider.drawn ?? 0) > 0 && provider.pending == 0 && tiles.pending == 0 else {
                committed = nil
                return false
            }
            defer { committed = s.frames }
            if committed != nil && committed == s.frames { return true }
            usleep(250_000)
            return false
        }
    }

    /// The frame on screen, decoded.
    private func snapshot(_ daemon: FlickdProcess, _ client: ControlClient, name: String) throws -> PixelBuffer {
        #expect(try client.call(ControlRequest(cmd: "snapshot", path: name)).ok == true)
        let path = daemon.directory + "/snapshots/" + name
        let frame = try PNGCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), path: path, pixelBudget: 1 << 22)
        try #require(frame.width == Self.view.width && frame.height == Self.view.height)
        return frame
    }

    /// What the view shows at zoom 4 drawn by poppler itself: the page on white at `scale` times
    /// its zoom-1 size, moved by the view's offset (XRGB8888).
    private func popplerWindow(pdf: [UInt8], scale: Double) throws -> [UInt32] {
        let pixels = try WhiteCanvas.pixels(width: Self.view.width, height: Self.view.height) { cr in
            cairo_translate(cr, -Double(Self.offset.x), -Double(Self.offset.y))
            cairo_scale(cr, scale * Self.paper.width / Self.a4.width, scale * Self.paper.height / Self.a4.height)
            let data = pdf.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            defer { g_bytes_unref(data) }
            guard let document = poppler_document_new_from_bytes(data, nil, nil) else { throw TestFailure("poppler refused the sample") }
            defer { g_object_unref(UnsafeMutableRawPointer(document)) }
            guard let page = poppler_document_get_page(document, 0) else { throw TestFailure("no page 0") }
            defer { g_object_unref(UnsafeMutableRawPointer(page)) }
            poppler_page_render(page, cr)
        }
        guard let pixels else { throw TestFailure("no surface") }
        return pixels
    }

    /// The zoom-1 frame (view at the content's origin) stretched `factor` times over the zoom-4
    /// view, bilinear as flickd resamples a coarser level: what zoom 4 would show had it kept the
    /// zoom-1 tiles.
    private static func stretched(_ frame: PixelBuffer, by factor: Int) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: view.width * view.height)
        for j in 0..<view.height {
            for i in 0..<view.width {
                let x = (Double(offset.x + i) + 0.5) / Double(factor) - 0.5, y = (Double(offset.y + j) + 0.5) / Double(factor) - 0.5
                let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down)), fx = x - Double(x0), fy = y - Double(y0)
                var pixel: UInt32 = 0
                for shift in [0, 8, 16] as [UInt32] {
                    func c(_ px: Int, _ py: Int) -> Double {
                        Double((frame[min(max(px, 0), frame.width - 1), min(max(py, 0), frame.height - 1)] >> shift) & 0xFF)
                    }
                    let top = c(x0, y0) * (1 - fx) + c(x0 + 1, y0) * fx, bottom = c(x0, y0 + 1) * (1 - fx) + c(x0 + 1, y0 + 1) * fx
                    pixel |= UInt32((top * (1 - fy) + bottom * fy).rounded()) << shift
                }
                out[j * view.width + i] = pixel
            }
        }
        return out
    }

    /// The part of the view compared: all but a 12-px strip along the right and bottom edges,
    /// where the scroll indicators may still show.
    static let compared = (width: view.width - 12, height: view.height - 12)

    /// Pixels of `frame` with a channel more than 16 away from `other`'s, in `compared`.
    private static func differing(_ frame: PixelBuffer, _ other: [UInt32]) -> Int {
        var count = 0
        for j in 0..<compared.height {
            for i in 0..<compared.width {
                let a = frame[i, j], b = other[j * view.width + i]
                let worst = [0, 8, 16].map { shift -> UInt32 in
                    let p = (a >> UInt32(shift)) & 0xFF, q = (b >> UInt32(shift)) & 0xFF
                    return p > q ? p - q : q - p
                }.max() ?? 0
                if worst > 16 { count += 1 }
            }
        }
        return count
    }
}
