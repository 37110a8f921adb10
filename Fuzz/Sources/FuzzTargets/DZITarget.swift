import CWebPEncode
import FlickDisplay

/// A Deep Zoom pyramid's untrusted bytes: its descriptor, or one of its tile files.
///
/// The first byte chooses. Below 0x80 the rest is a descriptor through `DZIDescriptor.parse`
/// (expat, the structure and value checks). From 0x80 the rest is a tile file through
/// `DZISource.decodeTile` (PNG, JPEG or WebP by signature: libspng, TurboJPEG or libwebp; the
/// size check), for one of `tiles`, chosen by the first byte's low bits: inner and edge tiles,
/// overlap 0 and 1, an opaque (JPEG) source and one that may carry alpha.
///
/// Checks: an accepted descriptor's values are within the format's limits, and written back as
/// `vips dzsave` writes one it reads the same; a refused one is a `ContentError` naming the file,
/// of a descriptor's reasons, with a line inside the file when it has one. A decoded tile is
/// exactly its `storedRect`'s size, `xrgb8888` when the source is opaque; a refused one is a
/// `ContentError` naming the tile's file, of a tile's reasons.
enum DZITarget {
    /// The tiles an input may be decoded as.
    static let tiles: [(grid: TileGrid, key: TileKey, opaque: Bool)] = {
        let map = TileGrid(width: 300, height: 200, tileSize: 64, overlap: 1)!  // maxLevel 9
        let small = TileGrid(width: 77, height: 45, tileSize: 16, overlap: 0)!  // maxLevel 7
        let one = TileGrid(width: 5, height: 3, tileSize: 254, overlap: 1)!     // maxLevel 3
        return [
            (map, TileKey(level: 9, column: 1, row: 1), true),    // inner: 66x66
            (map, TileKey(level: 9, column: 4, row: 3), false),   // bottom-right edge: 45x9
            (small, TileKey(level: 5, column: 1, row: 0), false), // 20x12 level, 4x12 edge tile
            (one, TileKey(level: 3, column: 0, row: 0), true),    // the whole image: 5x3
        ]
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        if selector < 0x80 {
            descriptor(rest)
        } else {
            let tile = tiles[Int(selector) % tiles.count]
            decode(rest, tile.grid, tile.key, opaque: tile.opaque)
        }
    }

    private static func descriptor(_ bytes: [UInt8]) {
        do {
            let d = try DZIDescriptor.parse(bytes, path: "fuzz.dzi")
            let g = d.grid
            fuzzCheck(g.width >= 1 && g.height >= 1 && g.width <= TileGrid.maxSide && g.height <= TileGrid.maxSide
                      && g.width * g.height <= DZIDescriptor.maxPixels, "accepted size \(g.width)x\(g.height)")
            fuzzCheck((1...8192).contains(g.tileSize) && g.overlap >= 0 && g.overlap < g.tileSize,
                      "accepted tile \(g.tileSize), overlap \(g.overlap)")
            fuzzCheck(DZIDescriptor.formats.contains(d.format.lowercased()), "accepted format \(d.format)")
            // Only the format's case and characters XML would need escaped could differ; the
            // accepted ones are letters, so the file written back holds them as they are.
            let again = try? DZIDescriptor.parse(Array(vipsStyle(d).utf8), path: "again.dzi")
            fuzzCheck(again == d, "written back as \(vipsStyle(d)), read as \(String(describing: again))")
        } catch let error as ContentError {
            fuzzCheck(error.path == "fuzz.dzi", "an error naming \(error.path)")
            switch error.reason {
            case .empty, .fileTooLarge, .malformedXML, .descriptorStructure, .descriptorValue, .pyramidTooLarge: break
            default: fuzzCheck(false, "a descriptor refused for a tile's reason: \(error)")
            }
            if let line = error.reason.line {
                // expat counts CR, LF and CRLF as line ends, in any encoding.
                let ends = bytes.lazy.filter { $0 == 0x0A || $0 == 0x0D }.count
                fuzzCheck(line >= 1 && line <= ends + 1, "line \(line) of a file with \(ends) line ends: \(error)")
            }
            fuzzCheck(error.description.hasPrefix("fuzz.dzi"), "rendered without the file: \(error)")
        } catch {
            fuzzCheck(false, "not a ContentError: \(error)")
        }
    }

    private static func decode(_ bytes: [UInt8], _ grid: TileGrid, _ key: TileKey, opaque: Bool) {
        let path = "fuzz_files/\(key.level)/\(key.column)_\(key.row).png"
        let stored = grid.storedRect(key)
        do {
            let tile = try DZISource.decodeTile(bytes, for: key, in: grid, opaque: opaque, path: path)
            fuzzCheck(tile.width == stored.width && tile.height == stored.height,
                      "tile \(key) decoded as \(tile.size), not \(stored.width)x\(stored.height)")
            fuzzCheck(!opaque || tile.format == .xrgb8888, "an opaque source's tile with alpha")
        } catch let error as ContentError {
            fuzzCheck(error.path == path, "an error naming \(error.path)")
            switch error.reason {
            case .empty, .unsupportedFormat, .truncated, .corrupt: break
            case .wrongTileSize(let expected, let found):
                fuzzCheck(expected == PixelSize(width: stored.width, height: stored.height) && found != expected,
                          "wrong size \(found) for \(expected)")
            default: fuzzCheck(false, "a tile refused for another reason: \(error)")
            }
        } catch {
            fuzzCheck(false, "not a ContentError: \(error)")
        }
    }

    /// A descriptor as `vips dzsave` writes it.
    static func vipsStyle(_ d: DZIDescriptor) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
          Format="\(d.format)"
          Overlap="\(d.grid.overlap)"
          TileSize="\(d.grid.tileSize)"
          >
          <Size
            Height="\(d.grid.height)"
            Width="\(d.grid.width)"
          />
        </Image>

        """
    }

    /// Descriptors as vips, deepzoom.py and OpenSeadragon write them, in the shapes XML allows,
    /// and one for each refusal; then for each tile of `tiles` PNG (opaque and with alpha) and
    /// JPEG files of its size, of a wrong size, truncated.
    static func seeds() -> [(name: String, bytes: [UInt8])] {
        var out: [(name: String, bytes: [UInt8])] = []
        let vips = DZIDescriptor(grid: TileGrid(width: 30000, height: 20000, tileSize: 254, overlap: 1)!, format: "jpeg")
        let image = #"<Image TileSize="8" Overlap="1" Format="png">"#
        let descriptors: [(String, String)] = [
            ("vips.dzi", vipsStyle(vips)),
            ("deepzoom-py.dzi", #"<?xml version="1.0" encoding="UTF-8"?><Image Format="jpg" Overlap="1" TileSize="254" xmlns="http://schemas.microsoft.com/deepzoom/2008"><Size Height="1003" Width="1513"/></Image>"#),
            ("openseadragon.dzi", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Image TileSize=\"256\" Overlap=\"2\" Format=\"png\" xmlns=\"http://schemas.microsoft.com/deepzoom/2008\">\n    <Size Width=\"7026\" Height=\"9221\"/>\n</Image>\n"),
            ("2009-display-rects.dzi", #"<Image TileSize="510" Overlap="0" Format="JPG" ServerFormat="Default" xmlns="http://schemas.microsoft.com/deepzoom/2009"><Size Width="4000" Height="3000"/><DisplayRects><DisplayRect MinLevel="0" MaxLevel="12"><Rect X="0" Y="0" Width="4000" Height="3000"/></DisplayRect></DisplayRects></Image>"#),
            ("prefixed.dzi", #"<dz:Image xmlns:dz="http://schemas.microsoft.com/deepzoom/2008" TileSize="8" Overlap="1" Format="png"><dz:Size Width="9" Height="3"/></dz:Image>"#),
            ("bom-crlf-comments.dzi", "\u{FEFF}<?xml version=\"1.0\"?>\r\n<!-- c -->\r\n<Image\r\n Format='png'\tTileSize=' 256 ' Overlap=\"1\">\r\n<Size Width=\"100\" Height=\"50\"></Size>\r\n</Image>\r\n"),
            ("largest.dzi", #"<Image TileSize="8192" Overlap="8191" Format="png"><Size Width="16777216" Height="65536"/></Image>"#),
            ("no-size.dzi", image + "\n</Image>"),
            ("no-attribute.dzi", #"<Image Overlap="0" Format="png"><Size Width="1" Height="1"/></Image>"#),
            ("two-sizes.dzi", image + #"<Size Width="1" Height="1"/><Size Width="2" Height="2"/></Image>"#),
            ("not-a-number.dzi", image + #"<Size Width="1e6" Height="&#9;1"/></Image>"#),
            ("absurd.dzi", image + #"<Size Width="1000000000" Height="1000000000"/></Image>"#),
            ("too-many-pixels.dzi", image + #"<Size Width="16777216" Height="16777216"/></Image>"#),
            ("overlap.dzi", #"<Image TileSize="254" Overlap="254" Format="png"><Size Width="1" Height="1"/></Image>"#),
            ("format.dzi", #"<Image TileSize="254" Overlap="1" Format="gif"><Size Width="1" Height="1"/></Image>"#),
            ("webp.dzi", #"<Image TileSize="254" Overlap="1" Format="webp"><Size Width="512" Height="300"/></Image>"#),
            ("root.dzi", #"<Collection MaxLevel="7" TileSize="256" Format="png"/>"#),
            ("namespace.dzi", #"<Image xmlns="http://example.com/x" TileSize="8" Overlap="0" Format="png"/>"#),
            ("mismatched.dzi", image + "\n<Size Width=\"1\" Height=\"1\">\n</Image>"),
            ("entity.dzi", #"<Image TileSize="&x;" Overlap="0" Format="png"/>"#),
            ("doctype.dzi", "<?xml version=\"1.0\"?>\n<!DOCTYPE Image [\n<!ENTITY a \"aaaa\">\n<!ENTITY b \"&a;&a;&a;&a;\">\n]>\n<Image TileSize=\"8\" Overlap=\"0\" Format=\"&b;\"/>\n"),
        ]
        for (name, text) in descriptors { out.append(("descriptor-" + name, [0x00] + Array(text.utf8))) }
        let utf16 = #"<?xml version="1.0" encoding="UTF-16"?><Image TileSize="254" Overlap="1" Format="jpeg"><Size Width="300" Height="200"/></Image>"#
        out.append(("descriptor-utf16.dzi", [0x00, 0xFF, 0xFE] + utf16.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }))

        for (index, tile) in tiles.enumerated() {
            let stored = tile.grid.storedRect(tile.key)
            let selector = [UInt8(0x80 + index)]
            func pattern(_ width: Int, _ height: Int, alpha: Bool) -> PixelBuffer {
                let buffer = PixelBuffer(width: width, height: height, format: alpha ? .argb8888 : .xrgb8888)!
                for y in 0..<height {
                    for x in 0..<width {
                        let rgb = UInt32(x * 37 % 256) << 16 | UInt32(y * 59 % 256) << 8 | UInt32((x + y) * 11 % 256)
                        buffer[x, y] = alpha && (x + y) % 3 == 0 ? 0 : 0xFF00_0000 | rgb
                    }
                }
                return buffer
            }
            let name = "tile\(index)-\(stored.width)x\(stored.height)"
            let png = try! PNGCodec.encode(pattern(stored.width, stored.height, alpha: false))
            out.append(("\(name).png", selector + png))
            out.append(("\(name)-alpha.png", selector + (try! PNGCodec.encode(pattern(stored.width, stored.height, alpha: true)))))
            if let jpeg = JPEGEncoder.encode(pattern(stored.width, stored.height, alpha: false)) {
                out.append(("\(name).jpeg", selector + jpeg))
                out.append(("\(name)-truncated.jpeg", selector + jpeg.prefix(jpeg.count * 2 / 3)))
            }
            if let wrong = JPEGEncoder.encode(pattern(stored.width + 1, stored.height, alpha: false)) {
                out.append(("\(name)-wider.jpeg", selector + wrong))
            }
            out.append(("\(name)-taller.png", selector + (try! PNGCodec.encode(pattern(stored.width, stored.height + 1, alpha: false)))))
            out.append(("\(name)-truncated.png", selector + png.prefix(png.count / 2)))
            // WebP (`vips dzsave --suffix .webp`): lossy, lossless with alpha, cut, a size off.
            let lossy = webp(pattern(stored.width, stored.height, alpha: false), lossless: false)
            out.append(("\(name).webp", selector + lossy))
            out.append(("\(name)-alpha.webp", selector + webp(pattern(stored.width, stored.height, alpha: true), lossless: true)))
            out.append(("\(name)-truncated.webp", selector + lossy.prefix(lossy.count * 2 / 3)))
            out.append(("\(name)-wider.webp", selector + webp(pattern(stored.width + 1, stored.height, alpha: false), lossless: false)))
        }
        return out
    }

    /// A buffer (premultiplied BGRA words) as a WebP file from libwebp's encoder.
    private static func webp(_ buffer: PixelBuffer, lossless: Bool) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: buffer.width * buffer.height * 4)
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let p = buffer[x, y], a = buffer.format == .argb8888 ? p >> 24 : 255
                let i = 4 * (y * buffer.width + x)
                (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]) =
                    (UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p), UInt8(a))
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        let (w, h) = (Int32(buffer.width), Int32(buffer.height))
        let size = lossless ? WebPEncodeLosslessRGBA(rgba, w, h, w * 4, &output) : WebPEncodeRGBA(rgba, w, h, w * 4, 80, &output)
        guard let output else { return [] }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
