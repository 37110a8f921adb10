import FlickCore
import FlickDisplay
#if canImport(Glibc)
import Glibc
#endif

/// Frame compose at 1920×1080 XRGB8888 into the headless output's back buffer, beside pixman's
/// direct composite of the same operation and a memcpy of one frame (the bandwidth limit). The
/// three are interleaved frame by frame, so drift in clock or cache state hits them alike.
enum ComposeBench {
    struct Case {
        var name: String
        var zoom: Double
        var offset: Point
    }

    struct Result {
        var name: String
        var compose: Stats
        var pixman: Stats
        var memcpy: Stats
        /// At zoom 1: memcpy of the same content rows, one call per row (the layout's own limit).
        var rows: Stats?
        /// Pixels where the peer's frame differs from the compositor's (indicators off).
        var mismatches: Int
    }

    static let screen = PixelSize(width: 1920, height: 1080)
    static let cases = [
        Case(name: "zoom 1 (integer offset)", zoom: 1, offset: Point(x: 1000, y: 1500)),
        Case(name: "zoom 1.7 (bilinear)", zoom: 1.7, offset: Point(x: 1234.5, y: 2345.25)),
        Case(name: "zoom 0.3 (downscale)", zoom: 0.3, offset: Point(x: 0, y: 100.5)),
    ]

    /// Runs every case `frames` times over `content`.
    static func run(content: PixelBuffer, frames: Int) -> [Result] {
        guard let output = HeadlessOutput(size: screen),
              let frameSource = PixelBuffer(width: screen.width, height: screen.height),
              let scratch = PixelBuffer(width: screen.width, height: screen.height) else {
            fatalError("flickd-bench: cannot allocate 1080p buffers")
        }
        frameSource.fill(0xFF33_6699)
        let compositor = Compositor()
        let bytes = screen.width * screen.height * 4
        return cases.map { c in
            try! output.withBackBuffer { target in
                let peer = PixmanPeer(content: content, target: target)
                peer.prepare(zoom: c.zoom, offset: (c.offset.x, c.offset.y), contentSize: (content.width, content.height))
                var state = RenderState(boundsSize: screen.size, contentOffset: c.offset, zoomScale: c.zoom,
                                        contentSize: Size(width: Double(content.width), height: Double(content.height)),
                                        indicatorOpacity: 0, background: .black)
                // Same pixels? Compare once with the indicators off.
                compositor.compose(state, content: content, into: target)
                scratch.copy(from: target)
                target.fill(0xFFFF_FFFF)
                peer.compose()
                var mismatches = 0
                for y in 0..<screen.height {
                    let a = scratch.row(y), b = target.row(y)
                    for x in 0..<screen.width where a[x] & 0xFF_FFFF != b[x] & 0xFF_FFFF { mismatches += 1 }
                }
                state.indicatorOpacity = 1
                var compose: [Double] = [], pixman: [Double] = [], copy: [Double] = [], rows: [Double] = []
                let rowBytes = screen.width * 4
                let firstRow = content.pixels + Int(c.offset.y) * content.stride + Int(c.offset.x) * 4
                for i in -3..<frames {   // three warm-up rounds
                    var t0 = monotonicNanoseconds()
                    compositor.compose(state, content: content, into: target)
                    var t1 = monotonicNanoseconds()
                    if i >= 0 { compose.append(Double(t1 - t0) / 1e6) }
                    t0 = monotonicNanoseconds()
                    peer.compose()
                    t1 = monotonicNanoseconds()
                    if i >= 0 { pixman.append(Double(t1 - t0) / 1e6) }
                    t0 = monotonicNanoseconds()
                    memcpy(target.pixels, frameSource.pixels, bytes)
                    t1 = monotonicNanoseconds()
                    if i >= 0 { copy.append(Double(t1 - t0) / 1e6) }
                    guard c.zoom == 1 else { continue }
                    t0 = monotonicNanoseconds()
                    for y in 0..<screen.height {
                        memcpy(target.pixels + y * target.stride, firstRow + y * content.stride, rowBytes)
                    }
                    t1 = monotonicNanoseconds()
                    if i >= 0 { rows.append(Double(t1 - t0) / 1e6) }
                }
                return Result(name: c.name, compose: Stats(samples: compose), pixman: Stats(samples: pixman),
                              memcpy: Stats(samples: copy), rows: rows.isEmpty ? nil : Stats(samples: rows),
                              mismatches: mismatches)
            }
        }
    }
}
