import CWebP
import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

/// WebP, the third image format: decoded whole, streamed into a pyramid in bounded memory, an
/// animation's first frame, and the files that lie. Test files are made with libwebp's own
/// encoder (and an animation's chunks written here, as the container spec lays them out).
@Suite struct WebPTests {
    /// A lossless file decodes to exactly its pixels, opaque as `xrgb8888`, with alpha as
    /// premultiplied `argb8888`.
    @Test func aLosslessFileIsItsPixels() throws {
        let dir = makeTemporaryDirectory()
        let rgba = pattern(width: 61, height: 37, alpha: false)
        writeBytes(try encode(rgba, width: 61, height: 37, lossless: true), to: dir + "/a.webp")
        let content = try Content.load(file: dir + "/a.webp", pixelBudget: 1 << 20)
        guard case .image(let image) = content.pixels else { Issue.record("not decoded whole"); return }
        #expect(image.format == .xrgb8888 && image.width == 61 && image.height == 37)
        #expect(content.note == nil)
        var differ = 0
        for y in 0..<37 {
            for x in 0..<61 {
                let i = 4 * (y * 61 + x)
                let want = UInt32(rgba[i]) << 16 | UInt32(rgba[i + 1]) << 8 | UInt32(rgba[i + 2])
                if image[x, y] & 0xFF_FFFF != want { differ += 1 }
            }
        }
        #expect(differ == 0)

        let glass = pattern(width: 20, height: 9, alpha: true)
        writeBytes(try encode(glass, width: 20, height: 9, lossless: true), to: dir + "/g.webp")
        guard case .image(let translucent) = try Content.load(file: dir + "/g.webp", pixelBudget: 1 << 20).pixels else { return }
        #expect(translucent.format == .argb8888)
        let a = UInt32(glass[3]), r = UInt32(glass[0])
        #expect(translucent[0, 0] >> 24 == a && abs(Int((translucent[0, 0] >> 16) & 0xFF) - Int(r * a / 255)) <= 1)
    }

    /// Streamed a row at a time (the pyramid's reader), every row is libwebp's one-shot decode of
    /// the file: lossy, lossy with alpha, lossless.
    @Test(arguments: [(false, false), (false, true), (true, true)])
    func streamedRowsAreTheWholeDecode(lossless: Bool, alpha: Bool) throws {
        let dir = makeTemporaryDirectory()
        let (width, height) = (300, 517)
        let bytes = try encode(pattern(width: width, height: height, alpha: alpha), width: width, height: height, lossless: lossless)
        writeBytes(bytes, to: dir + "/s.webp")
        let reference = try straightDecode(bytes, width: width, height: height)
        let reader = try ScanlineReaders.open(dir + "/s.webp")
        #expect(reader.width == width && reader.height == height && reader.hasAlpha == alpha)
        let channels = reader.channels
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * channels)
        defer { row.deallocate() }
        var differ = 0
        for y in 0..<height {
            try reader.readRow(into: row)
            for x in 0..<width {
                for c in 0..<channels where row[x * channels + c] != reference[4 * (y * width + x) + c] { differ += 1 }
            }
        }
        #expect(differ == 0, "\(differ) samples differ from WebPDecodeRGBA")
    }

    /// An opaque WebP's pyramid is the pyramid of its decoded pixels: built from the WebP and
    /// from a PNG of the whole decode, every tile file is the same bytes.
    @Test func aPyramidFromAWebPIsThatOfItsPixels() throws {
        let dir = makeTemporaryDirectory()
        let (width, height) = (530, 300)
        writeBytes(try encode(pattern(width: width, height: height, alpha: false), width: width, height: height, lossless: false),
                   to: dir + "/map.webp")
        guard case .image(let decoded) = try Content.load(file: dir + "/map.webp", pixelBudget: 1 << 20).pixels else { return }
        try PNGCodec.write(decoded, to: dir + "/map.png")
        #expect(mkdir(dir + "/w", 0o755) == 0 && mkdir(dir + "/p", 0o755) == 0)
        let fromWebP = try PyramidBuilder.build(image: dir + "/map.webp", cacheDirectory: dir + "/w", tileSize: 128, overlap: 1)
        let fromPNG = try PyramidBuilder.build(image: dir + "/map.png", cacheDirectory: dir + "/p", tileSize: 128, overlap: 1)
        let grid = try #require(TileGrid(width: width, height: height, tileSize: 128, overlap: 1))
        var tiles = 0
        for level in 0...grid.maxLevel {
            let count = grid.tileCount(level)
            for row in 0..<count.rows {
                for column in 0..<count.columns {
                    let name = "_files/\(level)/\(column)_\(row).png"
                    #expect(readBytes(String(fromWebP.dropLast(4)) + name) == readBytes(String(fromPNG.dropLast(4)) + name), "\(name)")
                    tiles += 1
                }
            }
        }
        #expect(tiles > 10)
    }

    /// Streaming keeps only the rows in flight resident, not the frame libwebp writes into.
    @Test func streamingHoldsTheRowsInFlightOnly() throws {
        let dir = makeTemporaryDirectory()
        let (width, height) = (1024, 1536)
        writeBytes(try encode(pattern(width: width, height: height, alpha: false), width: width, height: height, lossless: false),
                   to: dir + "/tall.webp")
        let file = try #require(fopen(dir + "/tall.webp", "rbe"))
        let reader = try WebPScanlines(file: file, path: dir + "/tall.webp")
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3)
        defer { row.deallocate() }
        var most = 0
        for y in 0..<height {
            try reader.readRow(into: row)
            if y % 64 == 63 { most = max(most, reader.residentOutputBytes) }
        }
        // The frame is 4.5 MiB of RGB; a slice of the file decodes some tens of rows ahead.
        #expect(most >= 0 && most <= 256 * width * 3, "\(most) bytes of the 4.5 MiB frame resident")
    }

    /// An animation shows its first frame where it lies on the canvas, transparent elsewhere,
    /// and says so; streamed, the same.
    @Test func anAnimationShowsItsFirstFrameAndSaysSo() throws {
        let dir = makeTemporaryDirectory()
        let first = pattern(width: 16, height: 10, alpha: false)
        let second = pattern(width: 30, height: 20, alpha: false)
        let frames = [(try encode(first, width: 16, height: 10, lossless: true), x: 6, y: 4, width: 16, height: 10),
                      (try encode(second, width: 30, height: 20, lossless: true), x: 0, y: 0, width: 30, height: 20)]
        writeBytes(animation(canvas: (30, 20), frames: frames), to: dir + "/anim.webp")
        let content = try Content.load(file: dir + "/anim.webp", pixelBudget: 1 << 20)
        #expect(content.note == "the first of 2 frames of an animated WebP (animations are not played)")
        #expect(content.summary.hasSuffix("; the first of 2 frames of an animated WebP (animations are not played)"))
        guard case .image(let image) = content.pixels else { return }
        #expect(image.format == .argb8888 && image.width == 30 && image.height == 20)
        #expect(image[0, 0] == 0 && image[5, 4] == 0 && image[22, 4] == 0)
        #expect(image[6, 4] == 0xFF00_0000 | UInt32(first[0]) << 16 | UInt32(first[1]) << 8 | UInt32(first[2]))
        let reader = try ScanlineReaders.open(dir + "/anim.webp")
        #expect(reader.hasAlpha && reader.width == 30 && reader.height == 20)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: 30 * 4)
        defer { row.deallocate() }
        for _ in 0...4 { try reader.readRow(into: row) }
        #expect(Array(UnsafeBufferPointer(start: row, count: 24)) == Array(repeating: 0, count: 24))
        #expect(Array(UnsafeBufferPointer(start: row + 24, count: 4)) == [first[0], first[1], first[2], 255])
    }

    /// Files that lie or are cut: each a `ContentError` naming the file, whole and streamed.
    @Test func badFilesAreSaid() throws {
        let dir = makeTemporaryDirectory()
        let good = try encode(pattern(width: 200, height: 150, alpha: false), width: 200, height: 150, lossless: false)
        // Cut in the middle of the bitstream.
        writeBytes(Array(good.prefix(good.count / 2)), to: dir + "/cut.webp")
        // A RIFF header that claims more than there is.
        var liar = good
        let claimed = UInt32(good.count * 2)
        for k in 0..<4 { liar[4 + k] = UInt8(truncatingIfNeeded: claimed >> (8 * k)) }
        writeBytes(liar, to: dir + "/liar.webp")
        // The VP8 frame's start code broken (lossy data itself has no check: damage there
        // decodes as damaged pixels, as in a JPEG).
        var scrambled = good
        #expect(Array(scrambled[23..<26]) == [0x9D, 0x01, 0x2A], "the simple lossy layout")
        scrambled[24] ^= 0xFF
        writeBytes(scrambled, to: dir + "/scrambled.webp")
        // The RIFF signature and nothing else.
        writeBytes(Array(good.prefix(12)), to: dir + "/header.webp")
        for name in ["cut", "liar", "scrambled", "header"] {
            let path = "\(dir)/\(name).webp"
            #expect(throws: ContentError.self, "\(name), whole") { try Content.load(file: path, pixelBudget: 1 << 20) }
            #expect(throws: ContentError.self, "\(name), streamed") {
                let reader = try ScanlineReaders.open(path)
                let row = UnsafeMutablePointer<UInt8>.allocate(capacity: reader.width * reader.channels)
                defer { row.deallocate() }
                for _ in 0..<reader.height { try reader.readRow(into: row) }
            }
        }
        do {
            _ = try Content.load(file: dir + "/cut.webp", pixelBudget: 1 << 20)
        } catch let error as ContentError {
            #expect(error.path == dir + "/cut.webp")
            if case .truncated = error.reason {} else { Issue.record("cut: \(error)") }
        }
        // Over the budget whole: said before any pixel memory.
        writeBytes(good, to: dir + "/good.webp")
        #expect(throws: ContentError(path: dir + "/good.webp", reason: .overPixelBudget(width: 200, height: 150, budget: 100))) {
            try Content.load(file: dir + "/good.webp", pixelBudget: 100)
        }
    }

    /// A lossless frame libwebp would hold whole over the limit is refused with what to do.
    @Test func aLosslessFrameOverTheLimitIsNotStreamed() throws {
        let dir = makeTemporaryDirectory()
        writeBytes(try encode(pattern(width: 100, height: 100, alpha: false), width: 100, height: 100, lossless: true),
                   to: dir + "/big.webp")
        let file = try #require(fopen(dir + "/big.webp", "rbe"))
        do {
            _ = try WebPScanlines(file: file, path: dir + "/big.webp", wholeFrameLimit: 30_000)
            Issue.record("streamed")
        } catch let error as ContentError {
            guard case .notStreamable(let why) = error.reason else { Issue.record("\(error)"); return }
            #expect(why.hasPrefix("a lossless WebP of 100x100 would be held whole in memory by libwebp (its pixels, 4 bytes each"))
        }
    }

    /// Deep Zoom tiles may be WebP (`vips dzsave --suffix .webp`).
    @Test func aDeepZoomTileMayBeWebP() throws {
        let grid = try #require(TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1))
        let key = TileKey(level: 9, column: 1, row: 1)
        let bytes = try encode(pattern(width: 66, height: 66, alpha: false), width: 66, height: 66, lossless: false)
        let tile = try DZISource.decodeTile(bytes, for: key, in: grid, opaque: true, path: "1_1.webp")
        #expect(tile.width == 66 && tile.height == 66 && tile.format == .xrgb8888)
        #expect(throws: ContentError.self) {
            try DZISource.decodeTile(bytes, for: TileKey(level: 9, column: 0, row: 0), in: grid, opaque: true, path: "0_0.webp")
        }
        #expect(try DZIDescriptor.parse(Array(("<Image TileSize=\"64\" Overlap=\"1\" Format=\"webp\" "
                                                + "xmlns=\"http://schemas.microsoft.com/deepzoom/2008\"><Size Width=\"300\" Height=\"200\"/></Image>").utf8),
                                        path: "m.dzi").format == "webp")
    }

    // MARK: - Making WebP files

    /// Straight RGBA bytes: gradients, a ripple, and a varying alpha when asked.
    private func pattern(width: Int, height: Int, alpha: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                bytes[i] = UInt8(x * 255 / max(1, width - 1))
                bytes[i + 1] = UInt8(y * 255 / max(1, height - 1))
                bytes[i + 2] = UInt8(128 + Int(100 * sin(Double(x * y) / 400)))
                if alpha { bytes[i + 3] = UInt8((x * 7 + y * 3) % 256) }
            }
        }
        return bytes
    }

    /// libwebp's simple encoder: quality 80, or lossless.
    private func encode(_ rgba: [UInt8], width: Int, height: Int, lossless: Bool) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgba.withUnsafeBufferPointer { pixels in
            lossless ? WebPEncodeLosslessRGBA(pixels.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output)
                : WebPEncodeRGBA(pixels.baseAddress, Int32(width), Int32(height), Int32(width * 4), 80, &output)
        }
        let encoded = try #require(output)
        defer { WebPFree(encoded) }
        return Array(UnsafeBufferPointer(start: encoded, count: size))
    }

    /// libwebp's one-shot decode to straight RGBA: the reference for the streamed rows.
    private func straightDecode(_ bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var w: Int32 = 0, h: Int32 = 0
        let decoded = try #require(WebPDecodeRGBA(bytes, bytes.count, &w, &h))
        defer { WebPFree(decoded) }
        #expect(Int(w) == width && Int(h) == height)
        return Array(UnsafeBufferPointer(start: decoded, count: width * height * 4))
    }

    /// An animated WebP: VP8X (animation), ANIM, and an ANMF chunk a frame holding that frame's
    /// own file minus its RIFF header (the container spec's layout).
    private func animation(canvas: (Int, Int), frames: [([UInt8], x: Int, y: Int, width: Int, height: Int)]) -> [UInt8] {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
            Array(tag.utf8) + le(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        var body = chunk("VP8X", [0x02, 0, 0, 0] + le(canvas.0 - 1, 3) + le(canvas.1 - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0, 0, 0])
        for frame in frames {
            let header = le(frame.x / 2, 3) + le(frame.y / 2, 3) + le(frame.width - 1, 3) + le(frame.height - 1, 3) + le(100, 3) + [0]
            body += chunk("ANMF", header + Array(frame.0.dropFirst(12)))
        }
        return Array("RIFF".utf8) + le(body.count + 4, 4) + Array("WEBP".utf8) + body
    }
}
