import CTurboJPEG
import FlickCore
import Testing
@testable import FlickDisplay

/// A CMYK JPEG (a print file, as Photoshop saves it) shows in its colours on every path: decoded
/// whole, reduced for a preview, and streamed into a pyramid. TurboJPEG decodes CMYK to CMYK
/// only; libjpeg's rows are converted to RGB (`CJPEGRows`).
@Suite struct CMYKJPEGTests {
    /// 64 × 32: the left half red, the right half a dark blue (half black), in the inverted CMYK
    /// Photoshop stores (255 = no ink), which TurboJPEG writes with an Adobe marker.
    static func cmykJPEG() throws -> [UInt8] {
        let width = 64, height = 32
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                // Red: no cyan, full magenta and yellow, no black. Blue: full cyan and magenta, half black.
                let ink: [UInt8] = x < width / 2 ? [0, 255, 255, 0] : [255, 255, 0, 128]
                for c in 0..<4 { pixels[(y * width + x) * 4 + c] = 255 - ink[c] }
            }
        }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_CMYK.rawValue),
                        &output, &size, Int32(TJSAMP_444.rawValue), 95, 0)
        }
        try #require(rc == 0, "\(String(cString: tjGetErrorStr2(handle)))")
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Whether `pixel` is `rgb` within JPEG's error.
    static func near(_ pixel: UInt32, _ rgb: (Int, Int, Int)) -> Bool {
        abs(Int((pixel >> 16) & 0xFF) - rgb.0) <= 6 && abs(Int((pixel >> 8) & 0xFF) - rgb.1) <= 6 && abs(Int(pixel & 0xFF) - rgb.2) <= 6
    }

    static let red = (255, 0, 0), blue = (0, 0, 127)

    @Test func decodedWholeItIsInItsColours() throws {
        let data = try Self.cmykJPEG()
        let image = try JPEGDecoder.decode(data, path: "print.jpg", pixelBudget: 1 << 20)
        #expect(image.width == 64 && image.height == 32)
        #expect(Self.near(image[8, 16], Self.red), "\(String(image[8, 16], radix: 16))")
        #expect(Self.near(image[56, 16], Self.blue), "\(String(image[56, 16], radix: 16))")
    }

    @Test func reducedAndStreamedItIsInItsColours() throws {
        let dir = makeTemporaryDirectory()
        writeBytes(try Self.cmykJPEG(), to: dir + "/print.jpg")
        let (preview, full) = try ReducedDecoder.decode(at: dir + "/print.jpg", fitting: PixelSize(width: 16, height: 8),
                                                        pixelBudget: 1 << 20, maxFileBytes: 1 << 20)
        #expect(full == PixelSize(width: 64, height: 32) && preview.size == PixelSize(width: 16, height: 8))
        #expect(Self.near(preview[2, 4], Self.red) && Self.near(preview[14, 4], Self.blue))
        let reader = try ScanlineReaders.open(dir + "/print.jpg")
        var row = [UInt8](repeating: 0, count: 64 * 3)
        try row.withUnsafeMutableBufferPointer { try reader.readRow(into: $0.baseAddress!) }
        let left = UInt32(row[24]) << 16 | UInt32(row[25]) << 8 | UInt32(row[26])
        let right = UInt32(row[180]) << 16 | UInt32(row[181]) << 8 | UInt32(row[182])
        #expect(Self.near(left, Self.red) && Self.near(right, Self.blue))
    }
}
