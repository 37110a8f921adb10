import FlickCore
import FlickDisplay
#if canImport(Glibc)
import Glibc
#endif

/// Section 13's kinds of frame: what one frame costs, counted by a profiler around exactly
/// that frame (`CostFrame`, run as `flickd-bench --cost-frame KIND WxH`, one child per kind).
enum CostFrameKind: String, CaseIterable {
    /// A drag at zoom 1 over a whole image, overlay planes: the content scanned out, the bars drawn.
    case pan
    /// The same drag with no overlay planes (fbdev, legacy DRM): every frame composed.
    case panComposed = "pan-composed"
    /// A drag over tiles at zoom 1 whose frame refills the scan-out band (inline, as a replay
    /// does; the daemon's worker does the same copy on another core).
    case band
    /// A whole image composed at zoom 0.3 (bilinear downscale), the bars on their planes.
    case zoomOut = "zoom-0.3"
    /// A whole image composed at zoom 1.7 (bilinear upscale).
    case zoomIn = "zoom-1.7"
    /// A pinch over tiles: a new zoom each frame, so each tile is sampled again (into a band's buffer).
    case pinch
    /// The content at rest at zoom 1 and only the bars fading: the strips redrawn, nothing composed.
    case indicators

    /// A line for the table.
    var title: String {
        switch self {
        case .pan: "panned scan-out (image, zoom 1)"
        case .panComposed: "panned, composed (no planes)"
        case .band: "band refill (tiles, zoom 1)"
        case .zoomOut: "zoomed compose 0.3 (image)"
        case .zoomIn: "zoomed compose 1.7 (image)"
        case .pinch: "pinch frame (tiles, 1.22→1.25)"
        case .indicators: "indicator-only (bars fade)"
        }
    }
}

/// One frame of a `CostFrameKind`, driven through the daemon's own drawing path: a
/// `FrameComposer` over a headless output with two overlay planes (as section 3's rig and a DRM
/// card with planes; none for `pan-composed`). `init` runs every frame before the measured one
/// (content made, tiles in memory, bands placed); `measure()` runs the measured frame alone in
/// `drawMeasured()`, the one function a profiler counts (callgrind's `--toggle-collect`).
final class CostFrame {
    /// What the measured frame did, read from the composer and the output after it, and the
    /// bytes it reads and writes by the frame's own geometry.
    struct Report: Equatable {
        /// The kind's name (`CostFrameKind.rawValue`).
        var kind: String
        /// The panel.
        var size: PixelSize
        /// The primary plane after the frame: `content` (scanned out: the image or a band's
        /// buffer) or `composed` (the output's back buffer).
        var primary: String
        /// Overlay planes shown (the bars' strips).
        var overlays: Int
        /// Frames the measured part committed (1), and of those the ones scanned out.
        var committed: Int
        var scannedOut: Int
        /// Bands the measured frame filled, and frames it composed into a band's buffer.
        var bandFills: Int
        var bandComposed: Int
        /// Panel-sized composed buffers the output holds after it (0 while none was ever needed).
        var composedBuffers: Int
        /// The frame's bytes by its accounting (`CostFrame.accounting`).
        var readBytes: Int
        var writtenBytes: Int
        /// The error the frame threw, if it did.
        var failure: String?

        /// One line the parent and the tests read back: `cost-frame key=value …`.
        var line: String {
            "cost-frame kind=\(kind) size=\(size.width)x\(size.height) primary=\(primary) overlays=\(overlays) committed=\(committed) "
                + "scanned-out=\(scannedOut) band-fills=\(bandFills) band-composed=\(bandComposed) composed-buffers=\(composedBuffers) "
                + "read=\(readBytes) written=\(writtenBytes)" + (failure.map { " failure=" + $0.split(separator: " ").joined(separator: "_") } ?? "")
        }

        /// Reads a `line` back; `nil` unless it is one.
        init?(line: Substring) {
            guard line.hasPrefix("cost-frame ") else { return nil }
            var fields: [String: String] = [:]
            for pair in line.split(separator: " ").dropFirst() {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            let dims = fields["size"]?.split(separator: "x").compactMap { Int($0) } ?? []
            func int(_ key: String) -> Int? { fields[key].flatMap { Int($0) } }
            guard let kind = fields["kind"], dims.count == 2, let primary = fields["primary"], let overlays = int("overlays"),
                  let committed = int("committed"), let scannedOut = int("scanned-out"), let bandFills = int("band-fills"),
                  let bandComposed = int("band-composed"), let composedBuffers = int("composed-buffers"),
                  let read = int("read"), let written = int("written") else { return nil }
            self.init(kind: kind, size: PixelSize(width: dims[0], height: dims[1]), primary: primary, overlays: overlays,
                      committed: committed, scannedOut: scannedOut, bandFills: bandFills, bandComposed: bandComposed,
                      composedBuffers: composedBuffers, readBytes: read, writtenBytes: written, failure: fields["failure"])
        }

        init(kind: String, size: PixelSize, primary: String, overlays: Int, committed: Int, scannedOut: Int, bandFills: Int,
             bandComposed: Int, composedBuffers: Int, readBytes: Int, writtenBytes: Int, failure: String?) {
            (self.kind, self.size, self.primary, self.overlays, self.committed, self.scannedOut) =
                (kind, size, primary, overlays, committed, scannedOut)
            (self.bandFills, self.bandComposed, self.composedBuffers, self.readBytes, self.writtenBytes, self.failure) =
                (bandFills, bandComposed, composedBuffers, readBytes, writtenBytes, failure)
        }
    }

    let kind: CostFrameKind
    let screen: PixelSize
    let output: HeadlessOutput
    let composer: FrameComposer
    private let contentSize: Size
    /// The measured frame's state.
    private var state: RenderState
    private var now = Instant.zero
    private var failure: String?

    /// The whole image's size for `screen`: the panel divided by 0.3, so the frame at zoom 0.3
    /// is content from edge to edge (6400×3600 at 1080p, within the default `content.max_pixels`;
    /// 12800×7200 at 2160p, above it: such an image would have to be raised to or be tiled).
    static func imageSize(_ screen: PixelSize) -> PixelSize {
        PixelSize(width: (screen.width * 10 + 2) / 3 + 16, height: (screen.height * 10 + 2) / 3 + 16)
    }

    /// Builds the content and runs the frames before the measured one.
    init(kind: CostFrameKind, screen: PixelSize) throws {
        self.kind = kind
        self.screen = screen
        guard let output = HeadlessOutput(size: screen, overlayPlanes: kind == .panComposed ? 0 : 2) else {
            throw RigError("cannot make a \(screen.width)×\(screen.height) headless output")
        }
        self.output = output
        let content: Content
        switch kind {
        case .band, .pinch:
            // Tiles made as frames need them (no workers), so every run draws the same frames and
            // the measured one finds the tiles it needs already made.
            let side = 8 * max(screen.width, screen.height)
            content = try Content.testPattern(PixelSize(width: side, height: side), tiles: .init(cacheBytes: 4 << 30, workers: 0))
        default:
            content = Content(image: try Self.image(Self.imageSize(screen)))
        }
        contentSize = content.size
        composer = FrameComposer(output: output, compositor: Compositor(), content: content)
        state = RenderState(boundsSize: screen.size, contentSize: content.size, indicatorOpacity: 1)
        try prepare(content)
    }

    /// A whole image with a different colour on every row: what it holds does not change what
    /// composing it costs (no path looks at the pixels' values), and a row filled at once
    /// keeps the child's set-up short under the profiler (92 Mpx at 2160p).
    private static func image(_ size: PixelSize) throws -> PixelBuffer {
        guard let image = PixelBuffer(width: size.width, height: size.height) else {
            throw RigError("cannot allocate a \(size.width)×\(size.height) image")
        }
        for y in 0..<size.height {
            image.row(y).update(repeating: 0xFF00_0000 | UInt32(truncatingIfNeeded: y &* 0x9E37) & 0xFF_FFFF, count: size.width)
        }
        return image
    }

    private func at(_ offset: Point, zoom: Double = 1, opacity: Double = 1) -> RenderState {
        RenderState(boundsSize: screen.size, contentOffset: offset, zoomScale: zoom, contentSize: contentSize,
                    indicatorOpacity: opacity, background: .black)
    }

    /// Draws and presents one frame before the measured one.
    private func frame(_ s: RenderState) throws {
        try composer.commit(s, now: now)
        try present()
    }

    private func present() throws {
        guard let vblank = output.nextDeadline else { return }
        now = vblank
        _ = try output.dispatch(now: vblank)
    }

    /// The frames before the measured one, and the measured frame's state.
    private func prepare(_ content: Content) throws {
        let w = Double(screen.width), h = Double(screen.height)
        // A drag's step: 17 px a frame is 1000 px/s at 60 Hz.
        let step = 17.0
        switch kind {
        case .pan, .panComposed:
            let start = Point(x: w / 2, y: h / 2)
            try frame(at(start))
            try frame(at(Point(x: start.x, y: start.y + step)))
            state = at(Point(x: start.x, y: start.y + 2 * step))
        case .indicators:
            let rest = Point(x: w / 2, y: h / 2)
            try frame(at(rest, opacity: 1))
            try frame(at(rest, opacity: 0.95))
            state = at(rest, opacity: 0.9)
        case .zoomOut:
            // The content (the panel ÷ 0.3, plus 16 px) fills the frame at these offsets.
            try frame(at(Point(x: 2, y: 1), zoom: 0.3))
            state = at(Point(x: 2, y: 3), zoom: 0.3)
        case .zoomIn:
            let start = Point(x: w * 0.8 + 0.5, y: h * 0.9 + 0.25)
            try frame(at(start, zoom: 1.7))
            state = at(Point(x: start.x, y: start.y + step), zoom: 1.7)
        case .pinch:
            // About a focus in the middle of the view that moves 6 px a frame; the measured
            // frame's own view first, so its tiles are in memory, then the frame before it.
            func pinch(_ zoom: Double, _ focus: Point) -> RenderState {
                let content = Point(x: 3 * w, y: 3 * h)   // the content point under the focus
                return at(Point(x: content.x * zoom - focus.x, y: content.y * zoom - focus.y), zoom: zoom)
            }
            let measured = pinch(1.25, Point(x: w / 2 - 6, y: h / 2 - 6))
            try frame(measured)
            try frame(pinch(1.22, Point(x: w / 2, y: h / 2)))
            state = measured
        case .band:
            state = try prepareBand(content)
        }
    }

    /// A drag across tiled content: a first pass on a composer of its own finds the frame that
    /// refills a band for the third time (both buffers drawn before) and makes every tile the
    /// drag shows; this composer then draws the frames before that one.
    private func prepareBand(_ content: Content) throws -> RenderState {
        guard let rehearsal = HeadlessOutput(size: screen, overlayPlanes: 2) else { throw RigError("headless output") }
        let first = FrameComposer(output: rehearsal, compositor: Compositor(), content: content)
        let start = Point(x: Double(screen.width), y: Double(screen.height))
        func drag(_ i: Int) -> RenderState { at(Point(x: start.x + Double(i) * 40, y: start.y + Double(i) * 10)) }
        var refill: Int?
        var i = 0
        while refill == nil && i < 2000 {
            let before = first.bandFills
            try first.commit(drag(i), now: Instant(nanoseconds: Int64(i) * 16_666_667))
            if let vblank = rehearsal.nextDeadline { _ = try rehearsal.dispatch(now: vblank) }
            if first.bandFills > before && first.bandFills == 3 { refill = i }
            i += 1
        }
        guard let refill else { throw RigError("the drag never refilled the band three times") }
        for j in 0..<refill { try frame(drag(j)) }
        return drag(refill)
    }

    /// Runs the measured frame and says what it did.
    func measure() -> Report {
        let committed = composer.committedFrameCount, scanned = composer.scannedOutFrameCount
        let fills = composer.bandFills, bandComposed = composer.bandFramesComposed
        drawMeasured()
        // What the output would show: the frame goes to its vblank.
        do { try present() } catch { failure = failure ?? "\(error)" }
        let bytes = accounting(fills: composer.bandFills - fills)
        return Report(kind: kind.rawValue, size: screen, primary: output.isScanningOutContent ? "content" : "composed",
                      overlays: output.shownOverlays.count, committed: composer.committedFrameCount - committed,
                      scannedOut: composer.scannedOutFrameCount - scanned, bandFills: composer.bandFills - fills,
                      bandComposed: composer.bandFramesComposed - bandComposed, composedBuffers: output.composedBufferCount,
                      readBytes: bytes.read, writtenBytes: bytes.written, failure: failure)
    }

    /// The measured frame: exactly what the daemon's presenter does to draw one frame. Kept out
    /// of line with no closure in it, so `--toggle-collect` on its name counts it alone.
    @inline(never)
    func drawMeasured() {
        do {
            try composer.commit(state, now: now)
        } catch {
            failure = "\(error)"
        }
    }

    /// The bytes the measured frame reads and writes, by its geometry: the rows the compositor
    /// copies or samples, the band it fills, the bars drawn into their strips.
    private func accounting(fills: Int) -> (read: Int, written: Int) {
        var read = 0, written = 0
        // The bars: each strip's bar drawn and the previous bar's area cleared (the pixels of a
        // bar are what the strip shows that is not clear).
        for overlay in output.shownOverlays {
            let pixels = overlay.buffer.pixels
            var drawn = 0
            for y in 0..<pixels.height {
                let row = pixels.row(y)
                for x in 0..<pixels.width where row[x] != 0 { drawn += 1 }
            }
            written += 2 * 4 * drawn
        }
        let frame = 4 * screen.area
        switch kind {
        case .pan, .indicators:
            break
        case .panComposed:
            // Every row copied from the content, the bars blended over it (read and written).
            read += frame
            written += frame
        case .band:
            // A band's whole buffer copied from the tiles' rows.
            let band = composer.bandBytes / 2
            read += fills * band
            written += fills * band
        case .zoomOut, .zoomIn, .pinch:
            // Written: the whole frame. Read: the content rows the bilinear filter samples,
            // across the view's width in content pixels (at 0.3 every 64-byte line of a row holds
            // a sample): all rows of the view at zoom ≥ 1, two of every 1/zoom rows below it.
            let zoom = state.zoomScale
            let width = (Double(screen.width) / zoom).rounded(.up) + 2
            let rows = zoom >= 1 ? (Double(screen.height) / zoom).rounded(.up) + 2
                : min((Double(screen.height) / zoom).rounded(.up) + 2, 2 * Double(screen.height))
            read += 4 * Int(width * rows)
            written += frame
        }
        return (read, written)
    }
}

/// `flickd-bench --cost-frame KIND WxH`: one frame of a kind, its report on standard output.
func costFrameMain(_ arguments: [String]) -> Never {
    guard let i = arguments.firstIndex(of: "--cost-frame"), i + 2 < arguments.count,
          let kind = CostFrameKind(rawValue: arguments[i + 1]) else {
        print("flickd-bench: --cost-frame KIND WxH, KIND one of \(CostFrameKind.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(64)
    }
    let dims = arguments[i + 2].split(separator: "x").compactMap { Int($0) }
    guard dims.count == 2, dims.allSatisfy({ $0 > 0 && $0 <= 1 << 14 }) else {
        print("flickd-bench: --cost-frame: size \(arguments[i + 2]) is not WxH (1…16384 each)")
        exit(64)
    }
    do {
        let frame = try CostFrame(kind: kind, screen: PixelSize(width: dims[0], height: dims[1]))
        let report = frame.measure()
        print(report.line)
        exit(report.failure == nil ? 0 : 1)
    } catch {
        print("flickd-bench: --cost-frame \(kind.rawValue): \(error)")
        exit(1)
    }
}
