import FlickCore
import FlickSystem
import Glibc
import Testing
@testable import FlickDisplay

/// `check-config`'s pyramid size: the estimate from a sample against the pyramid the builder
/// then writes, measured as the cache measures it (blocks on disk), for pictures whose tiles
/// compress very differently, on tiles small enough that the sample is a part of the image.
@Suite struct PyramidEstimateTests {
    /// Within 10 % of the real pyramid, for a photograph-like JPEG, a map-like PNG whose top is
    /// flat sea and bottom busy, and a PNG with alpha.
    @Test(arguments: ["photo.jpg", "map.png", "glass.png"])
    func theEstimateIsWithinATenthOfThePyramid(name: String) throws {
        let dir = makeTemporaryDirectory()
        let path = "\(dir)/\(name)"
        switch name {
        case "photo.jpg": writeBytes(try jpegBytes(of: try picture(width: 2100, height: 1500, kind: .photo)), to: path)
        case "map.png": try PNGCodec.write(try picture(width: 2400, height: 1700, kind: .map), to: path)
        default: try PNGCodec.write(try picture(width: 1600, height: 1400, kind: .glass), to: path)
        }
        let estimate = try PyramidEstimate.estimate(image: path, blockSize: 4096, tileSize: 64, overlap: 1)
        let dzi = try PyramidBuilder.build(image: path, cacheDirectory: dir, tileSize: 64, overlap: 1)
        let folder = String(dzi[..<dzi.lastIndex(of: "/")!])
        let real = PyramidCache.diskBytes(folder)
        let error = Double(estimate.bytes - real) / Double(real)
        #expect(abs(error) <= 0.10, "\(name): estimated \(estimate.bytes), built \(real) (\(Int(error * 100)) %)")
        // A sample, not the whole: 25 patches of 256² out of the image's.
        #expect(estimate.patches == 25 && estimate.patchesInImage > 25)
        var tiles = 0
        for level in 0...12 {
            guard let names = try? FileIO.list("\(folder)/\(name.split(separator: ".")[0])_files/\(level)").get() else { break }
            tiles += names.count
        }
        #expect(estimate.tiles == tiles)
    }

    /// Patches on the patch grid, spread evenly, never past the image; one patch of the whole
    /// side when it is shorter than a patch.
    @Test func patchesAreSpreadOverTheImage() {
        let wide = PyramidEstimate.spread(length: 20000, patch: 1016)
        #expect(wide.count == 19)
        #expect(wide.chosen.map(\.start) == [1 * 1016, 5 * 1016, 9 * 1016, 13 * 1016, 17 * 1016])
        #expect(wide.chosen.allSatisfy { $0.length == 1016 })
        let three = PyramidEstimate.spread(length: 3100, patch: 1016)
        #expect(three.chosen.map(\.start) == [0, 1016, 2032] && three.count == 3)
        let narrow = PyramidEstimate.spread(length: 700, patch: 1016)
        #expect(narrow.chosen.count == 1 && narrow.chosen[0] == (start: 0, length: 700) && narrow.count == 1)
    }

    /// A file cut short in the rows the sample reads is said, as the build would say it.
    @Test func aTruncatedJPEGIsSaid() throws {
        let dir = makeTemporaryDirectory()
        let bytes = try jpegBytes(of: try picture(width: 900, height: 900, kind: .photo))
        writeBytes(Array(bytes.prefix(bytes.count / 2)), to: dir + "/cut.jpg")
        #expect(throws: ContentError.self) { try PyramidEstimate.estimate(image: dir + "/cut.jpg", tileSize: 64, overlap: 1) }
    }

    private enum Kind { case photo, map, glass }

    /// Deterministic pictures: a photograph's gradients and grain, whose grain varies across
    /// the frame; a map's flat sea above, roads on land and a dense town below; translucent
    /// glass with soft edges.
    private func picture(width: Int, height: Int, kind: Kind) throws -> PixelBuffer {
        let buffer = try #require(PixelBuffer(width: width, height: height, format: kind == .glass ? .argb8888 : .xrgb8888))
        for y in 0..<height {
            for x in 0..<width {
                var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
                h = (h ^ (h >> 13)) &* 0x5bd1_e995
                h ^= h >> 15
                let noise = Int(h & 0xFF) - 128
                switch kind {
                case .photo:
                    let grain = 4 + 28 * x / width
                    let r = 120 + 100 * x / width + noise * grain / 128
                    let g = 60 + 150 * y / height + noise * grain / 256
                    let b = 128 + Int(60 * sin(Double(x + y) / 90)) + noise * grain / 192
                    buffer[x, y] = 0xFF00_0000 | clamp(r) << 16 | clamp(g) << 8 | clamp(b)
                case .map:
                    if y < height / 3 {
                        buffer[x, y] = 0xFF3A_6EA5
                    } else if y < 2 * height / 3 {
                        let road = x % 97 < 3 || y % 61 < 2
                        buffer[x, y] = road ? 0xFFFF_FFFF : 0xFFE8_E0C8
                    } else {
                        let block = ((x / 7) ^ (y / 5)) & 3
                        buffer[x, y] = 0xFF00_0000 | UInt32(90 + block * 40 + (noise & 15)) * 0x010101
                    }
                case .glass:
                    let a = UInt32(clamp(Int(128 + 100 * sin(Double(x) / 150) * cos(Double(y) / 110))))
                    let r = UInt32(clamp(200 + noise / 16)), g = UInt32(clamp(40 + x * 200 / width)), b: UInt32 = 180
                    buffer[x, y] = a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | (b * a / 255)
                }
            }
        }
        return buffer
    }

    private func clamp(_ v: Int) -> UInt32 { UInt32(max(0, min(255, v))) }
}
