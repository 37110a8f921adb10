import CJPEG
import FlickDisplay
#if canImport(Glibc)
import Glibc
#endif

/// A generated "map" of any size, written as a PNG row by row (PNGStreamWriter), so a
/// 30000×30000 map needs one row in memory, not 3.6 GB. Deterministic: the same size gives the
/// same bytes.
///
/// What it draws, so the pyramid builder and its peer meet realistic work rather than a flat
/// colour: terrain of two octaves of value noise in hypsometric tints (a band every twelfth of
/// the height), contour lines between bands, a hill-shade gradient inside each band, a thin
/// grid every 100 px, a bold one every 1000 px, and each 1000 px cell's column and row in
/// digits at its top-left. Flat bands and smooth gradients compress as a real map does: about
/// about 0.28 bytes a pixel at zlib level 6 (4.3 MiB at 4000², about 240 MiB at 30000²).
enum MapGenerator {
    /// Writes a `width`×`height` map to `path`.
    static func writePNG(width: Int, height: Int, to path: String) throws {
        let writer = try PNGStreamWriter(path: path, width: width, height: height, compressionLevel: 6)
        try rows(width: width, height: height) { try writer.write(row: $0) }
        try writer.finish()
    }

    /// Writes a `width`×`height` map to `path` as a baseline JPEG of `quality`, row by row
    /// through libjpeg (a scanned map's texture: the preview benchmark's file).
    static func writeJPEG(width: Int, height: Int, quality: Int32, to path: String) throws {
        guard let file = fopen(path, "wb") else { throw RigError("cannot create \(path)") }
        defer { fclose(file) }
        // libjpeg's default error handler exits the process: a bench writing its own file.
        var error = jpeg_error_mgr()
        var info = jpeg_compress_struct()
        info.err = jpeg_std_error(&error)
        jpeg_CreateCompress(&info, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        defer { jpeg_destroy_compress(&info) }
        jpeg_stdio_dest(&info, file)
        info.image_width = JDIMENSION(width)
        info.image_height = JDIMENSION(height)
        info.input_components = 3
        info.in_color_space = JCS_RGB
        jpeg_set_defaults(&info)
        jpeg_set_quality(&info, quality, 1)
        jpeg_start_compress(&info, 1)
        try rows(width: width, height: height) { row in
            var pointer: UnsafeMutablePointer<UInt8>? = UnsafeMutablePointer(mutating: row.assumingMemoryBound(to: UInt8.self))
            jpeg_write_scanlines(&info, &pointer, 1)
        }
        jpeg_finish_compress(&info)
    }

    /// Hands each row of the map, top first, `width × 3` bytes of RGB, to `body`.
    private static func rows(width: Int, height: Int, _ body: (UnsafeRawPointer) throws -> Void) throws {
        let coarse = Octave(cell: 1531, seed: 1, width: width), fine = Octave(cell: 211, seed: 2, width: width)
        let texture = Octave(cell: 13, seed: 3, width: width)
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            coarse.prepare(y); fine.prepare(y); texture.prepare(y)
            row.withUnsafeMutableBufferPointer { out in
                for x in 0..<width {
                    let base = coarse.value(x), detail = fine.value(x)
                    let elevation = min(0.9999, max(0, 0.75 * base + 0.25 * detail))
                    let scaled = elevation * 12
                    let band = Int(scaled), within = scaled - Double(band)
                    var (r, g, b) = tints[band]
                    if within < 0.04 {
                        // A contour line.
                        r = r * 6 / 10; g = g * 6 / 10; b = b * 6 / 10
                    } else {
                        // Hill shade from the coarse height, and a fine ground texture (fields,
                        // woods) that keeps every band from being flat.
                        let shade = Int(base * 40) - 20 + Int(texture.value(x) * 24) - 12
                        r = clamp(r + shade); g = clamp(g + shade); b = clamp(b + shade)
                    }
                    if x % 1000 < 3 || y % 1000 < 3 {
                        (r, g, b) = (40, 40, 60)
                    } else if x % 100 == 0 || y % 100 == 0 {
                        (r, g, b) = (r * 8 / 10, g * 8 / 10, b * 8 / 10)
                    }
                    out[3 * x] = UInt8(r); out[3 * x + 1] = UInt8(g); out[3 * x + 2] = UInt8(b)
                }
                drawLabels(y: y, width: width, into: out)
            }
            try row.withUnsafeBytes { try body($0.baseAddress!) }
        }
    }

    /// Writes the map as a PNG and builds its Deep Zoom pyramid with flickd's builder.
    /// - Returns: the `.dzi`'s path (in `directory`; the PNG is removed).
    static func writeDZI(width: Int, height: Int, directory: String) throws -> String {
        let png = "\(directory)/map-\(width)x\(height).png"
        try writePNG(width: width, height: height, to: png)
        defer { unlink(png) }
        return try PyramidBuilder.build(image: png, cacheDirectory: directory)
    }

    /// Hypsometric tints, sea to snow.
    private static let tints: [(Int, Int, Int)] = [
        (40, 90, 170), (70, 130, 200), (120, 180, 220), (90, 160, 90), (120, 180, 100), (160, 200, 120),
        (210, 220, 140), (220, 200, 130), (200, 160, 110), (170, 130, 100), (190, 180, 170), (245, 245, 245),
    ]

    private static func clamp(_ v: Int) -> Int { min(255, max(0, v)) }

    /// "C,R" of each 1000 px cell, 4× scaled 3×5 digits, 10 px in from its top-left corner.
    private static func drawLabels(y: Int, width: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        let inCell = y % 1000 - 10, scale = 4
        guard inCell >= 0 && inCell < 5 * scale else { return }
        let glyphRow = inCell / scale
        for cellX in stride(from: 0, to: width, by: 1000) {
            let text = Array("\(cellX / 1000),\(y / 1000)".utf8)
            for (i, char) in text.enumerated() {
                let bits = glyph(char)[glyphRow]
                for gx in 0..<3 where bits & (4 >> gx) != 0 {
                    for sx in 0..<scale {
                        let x = cellX + 10 + i * 4 * scale + gx * scale + sx
                        if x < width { out[3 * x] = 20; out[3 * x + 1] = 20; out[3 * x + 2] = 20 }
                    }
                }
            }
        }
    }

    /// A 3×5 glyph, each row 3 bits (left is 4).
    private static func glyph(_ c: UInt8) -> [UInt8] {
        switch c {
        case UInt8(ascii: "0"): [7, 5, 5, 5, 7]
        case UInt8(ascii: "1"): [2, 6, 2, 2, 7]
        case UInt8(ascii: "2"): [7, 1, 7, 4, 7]
        case UInt8(ascii: "3"): [7, 1, 7, 1, 7]
        case UInt8(ascii: "4"): [5, 5, 7, 1, 1]
        case UInt8(ascii: "5"): [7, 4, 7, 1, 7]
        case UInt8(ascii: "6"): [7, 4, 7, 5, 7]
        case UInt8(ascii: "7"): [7, 1, 2, 2, 2]
        case UInt8(ascii: "8"): [7, 5, 7, 5, 7]
        case UInt8(ascii: "9"): [7, 5, 7, 1, 7]
        default: [0, 0, 0, 1, 2]   // the comma
        }
    }
}

/// One octave of value noise: hashed lattice values every `cell` pixels, smoothly interpolated.
/// Per row, the lattice is first interpolated down the column (`prepare`), so each pixel costs
/// one horizontal interpolation, not four hashes.
private final class Octave {
    let cell: Int
    let seed: UInt64
    /// Per pixel column: the lattice column and the smoothed weight of the next one.
    private let columns: [(Int, Double)]
    /// The current row's values at each lattice column.
    private var along: [Double]

    init(cell: Int, seed: UInt64, width: Int) {
        self.cell = cell
        self.seed = seed
        columns = (0..<width).map { x in (x / cell, Self.smooth(Double(x % cell) / Double(cell))) }
        along = [Double](repeating: 0, count: width / cell + 2)
    }

    /// Readies row `y`.
    func prepare(_ y: Int) {
        let j = y / cell, wy = Self.smooth(Double(y % cell) / Double(cell))
        for i in along.indices { along[i] = lattice(i, j) * (1 - wy) + lattice(i, j + 1) * wy }
    }

    /// The noise at column `x` of the prepared row, 0…1.
    @inline(__always)
    func value(_ x: Int) -> Double {
        let (i, wx) = columns[x]
        return along[i] * (1 - wx) + along[i + 1] * wx
    }

    @inline(__always)
    private func lattice(_ i: Int, _ j: Int) -> Double {
        var h = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: j) &* 0xC2B2_AE3D_27D4_EB4F ^ seed
        h ^= h >> 29; h = h &* 0xBF58_476D_1CE4_E5B9; h ^= h >> 32
        return Double(h >> 11) / Double(1 << 53)
    }

    private static func smooth(_ t: Double) -> Double { t * t * (3 - 2 * t) }
}
