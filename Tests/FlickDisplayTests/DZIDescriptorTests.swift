import FlickCore
import Testing
@testable import FlickDisplay

/// Deep Zoom descriptors as real tools write them, and every way one can be wrong. The fixtures
/// are written here from the published format (vips' `dzsave`, deepzoom.py, OpenSeadragon's
/// examples), not copied.
@Suite struct DZIDescriptorTests {
    /// Parses `text` as `t.dzi`.
    private func parse(_ text: String) throws -> DZIDescriptor {
        try DZIDescriptor.parse(Array(text.utf8), path: "t.dzi")
    }

    /// The error `text` is refused with, rendered as flickd prints it.
    private func refusal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        refusal(Array(text.utf8), sourceLocation: sourceLocation)
    }

    private func refusal(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            let descriptor = try DZIDescriptor.parse(bytes, path: "t.dzi")
            Issue.record("accepted as \(descriptor)", sourceLocation: sourceLocation)
            return ""
        } catch let error as ContentError {
            #expect(error.path == "t.dzi", sourceLocation: sourceLocation)
            #expect(error.kind == .data, sourceLocation: sourceLocation)
            return error.description
        } catch {
            Issue.record("not a ContentError: \(error)", sourceLocation: sourceLocation)
            return ""
        }
    }

    // MARK: What tools write

    @Test func vipsDzsave() throws {
        // dzsave's layout: one attribute a line, `>` on a line of its own, Format "jpeg".
        let d = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
              Format="jpeg"
              Overlap="1"
              TileSize="254"
              >
              <Size
                Height="20000"
                Width="30000"
              />
            </Image>

            """)
        #expect(d.format == "jpeg")
        #expect(d.grid == TileGrid(width: 30000, height: 20000, tileSize: 254, overlap: 1))
        #expect(d.grid.maxLevel == 15)
        #expect(d.isJPEG)
    }

    @Test func deepzoomPy() throws {
        // minidom's output: one line, attributes sorted, the namespace last, Format "jpg".
        let d = try parse(#"<?xml version="1.0" encoding="UTF-8"?><Image Format="jpg" Overlap="1" TileSize="254" xmlns="http://schemas.microsoft.com/deepzoom/2008"><Size Height="1003" Width="1513"/></Image>"#)
        #expect(d.format == "jpg")
        #expect(d.grid == TileGrid(width: 1513, height: 1003, tileSize: 254, overlap: 1))
    }

    @Test func openSeadragonExample() throws {
        let d = try parse("""
            <?xml version="1.0" encoding="utf-8"?>
            <Image TileSize="256" Overlap="2" Format="png" xmlns="http://schemas.microsoft.com/deepzoom/2008">
                <Size Width="7026" Height="9221"/>
            </Image>
            """)
        #expect(d.format == "png" && !d.isJPEG)
        #expect(d.grid == TileGrid(width: 7026, height: 9221, tileSize: 256, overlap: 2))
    }

    @Test func namespace2009WithDisplayRectsAndServerFormat() throws {
        let d = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Image TileSize="510" Overlap="0" Format="JPG" ServerFormat="Default" xmlns="http://schemas.microsoft.com/deepzoom/2009">
              <Size Width="4000" Height="3000" />
              <DisplayRects>
                <DisplayRect MinLevel="0" MaxLevel="12"><Rect X="0" Y="0" Width="4000" Height="3000"/></DisplayRect>
              </DisplayRects>
            </Image>
            """)
        // The extension as declared (tile files are named with it); compared ignoring case.
        #expect(d.format == "JPG" && d.isJPEG)
        #expect(d.grid == TileGrid(width: 4000, height: 3000, tileSize: 510, overlap: 0))
    }

    @Test func noNamespaceAPrefixedOneBOMCommentsCRLF() throws {
        let plain = try parse(#"<Image TileSize="8" Overlap="0" Format="png"><Size Width="9" Height="3"/></Image>"#)
        #expect(plain.grid == TileGrid(width: 9, height: 3, tileSize: 8))
        let prefixed = try parse(#"<dz:Image xmlns:dz="http://schemas.microsoft.com/deepzoom/2008" TileSize="8" Overlap="1" Format="png"><dz:Size Width="9" Height="3"/></dz:Image>"#)
        #expect(prefixed.grid == TileGrid(width: 9, height: 3, tileSize: 8, overlap: 1))
        let text = "<?xml version=\"1.0\"?>\r\n<!-- made by hand -->\r\n<Image\r\n Format='png'\tTileSize=' 256 ' Overlap=\"1\">\r\n<!-- size: -->\r\n<Size Width=\"100\" Height=\"50\"></Size>\r\n</Image>\r\n<!-- end -->\r\n"
        let d = try DZIDescriptor.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8), path: "t.dzi")
        #expect(d.grid == TileGrid(width: 100, height: 50, tileSize: 256, overlap: 1))
    }

    @Test func utf16WithBOM() throws {
        let text = #"<?xml version="1.0" encoding="UTF-16"?><Image TileSize="254" Overlap="1" Format="jpeg"><Size Width="300" Height="200"/></Image>"#
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try DZIDescriptor.parse(utf16, path: "t.dzi").grid == TileGrid(width: 300, height: 200, tileSize: 254, overlap: 1))
    }

    @Test func largestAcceptedSizes() throws {
        let side = TileGrid.maxSide
        let d = try parse(#"<Image TileSize="8192" Overlap="8191" Format="png"><Size Width="\#(side)" Height="65536"/></Image>"#)
        #expect(d.grid.width == side && d.grid.height == 65536 && d.grid.maxLevel == 24)
    }

    // MARK: Malformed XML: the line, expat's message, what was expected

    @Test func malformedXMLNamesTheLine() {
        #expect(refusal("") == "t.dzi: the file is empty (0 bytes)")
        #expect(refusal("""
            <?xml version="1.0"?>
            <Image TileSize="256" Overlap="1" Format="png">
              <Size Width="10" Height="10">
            </Image>
            """) == "t.dzi:4: malformed XML at column 3: mismatched tag; expected the closing tag of the element open there")
        #expect(refusal("""
            <Image TileSize="256" Overlap="1" Format="png">
              <Size Width="10" Height="10"/>

            """) == "t.dzi:3: malformed XML at column 1: no element found; expected an <Image …> element closed by </Image>")
        #expect(refusal("""
            <Image TileSize="256"
                   Overlap=1 Format="png">
            """) == "t.dzi:2: malformed XML at column 16: not well-formed (invalid token); expected a tag, text or comment as XML writes them")
        #expect(refusal("""
            <Image TileSize="256" Overlap="1" Format="png"><Size Width="10" Height="10"/></Image>
            <Image/>
            """) == "t.dzi:2: malformed XML at column 1: junk after document element; expected nothing but comments and white space after </Image>")
        #expect(refusal("""
            <Image TileSize="256" Overlap="1" Format="&png;">
            """) == "t.dzi:1: malformed XML at column 1: undefined entity; expected only &lt; &gt; &amp; &quot; &apos; and character references")
        #expect(refusal("""
            <Image TileSize="256" TileSize="254" Overlap="1" Format="png"/>
            """) == "t.dzi:1: malformed XML at column 23: duplicate attribute; expected each attribute once")
        #expect(refusal("""
            <dz:Image TileSize="256" Overlap="1" Format="png"/>
            """) == "t.dzi:1: malformed XML at column 1: unbound prefix; expected every prefix declared with xmlns:PREFIX=\"…\"")
        #expect(refusal("PNG\r\n") == "t.dzi:1: malformed XML at column 1: syntax error")
    }

    @Test func doctypeAndEntitiesAreRefused() {
        // The billion laughs: never expanded, refused at the DOCTYPE.
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE Image [\n<!ENTITY l0 \"ha\">\n"
        for i in 1...9 { laughs += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">\n" }
        laughs += "]>\n<Image TileSize=\"256\" Overlap=\"1\" Format=\"&l9;\"><Size Width=\"1\" Height=\"1\"/></Image>\n"
        #expect(refusal(laughs) == "t.dzi:2: found a DOCTYPE declaration; a Deep Zoom descriptor has none (expected <Image> after the XML declaration)")
        #expect(refusal("<!DOCTYPE Image SYSTEM \"file:///etc/passwd\">\n<Image/>") ==
                "t.dzi:1: found a DOCTYPE declaration; a Deep Zoom descriptor has none (expected <Image> after the XML declaration)")
    }

    // MARK: Structure: the element's line and what was expected

    @Test func wrongRootOrNamespace() {
        #expect(refusal("<?xml version=\"1.0\"?>\n<Collection MaxLevel=\"7\" TileSize=\"256\" Format=\"png\"/>") ==
                "t.dzi:2: the root element is <Collection>; expected <Image>, the root of a Deep Zoom descriptor")
        #expect(refusal(#"<Image xmlns="http://example.com/other" TileSize="8" Overlap="0" Format="png"><Size Width="1" Height="1"/></Image>"#) ==
                "t.dzi:1: <Image> is in the namespace \"http://example.com/other\"; expected http://schemas.microsoft.com/deepzoom/2008 or http://schemas.microsoft.com/deepzoom/2009, or none")
    }

    @Test func missingElementsAndAttributes() {
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\">\n</Image>") ==
                "t.dzi:1: <Image> has no <Size> element; expected <Size Width=\"…\" Height=\"…\"/> inside it")
        #expect(refusal("\n<Image Overlap=\"0\" Format=\"png\"><Size Width=\"1\" Height=\"1\"/></Image>") ==
                "t.dzi:2: <Image> has no TileSize attribute; expected TileSize=\"…\", a tile side from 1 to 8192 pixels")
        #expect(refusal("<Image TileSize=\"8\" Format=\"png\"><Size Width=\"1\" Height=\"1\"/></Image>") ==
                "t.dzi:1: <Image> has no Overlap attribute; expected Overlap=\"…\", an overlap from 0 to 7 pixels, less than TileSize=\"8\"")
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\"><Size Width=\"1\" Height=\"1\"/></Image>") ==
                "t.dzi:1: <Image> has no Format attribute; expected Format=\"jpeg\", \"jpg\", \"png\" or \"webp\"")
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\">\n\n  <Size Height=\"1\"/></Image>") ==
                "t.dzi:3: <Size> has no Width attribute; expected Width=\"…\", a width from 1 to 16777216 pixels")
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\">\n<Size Width=\"1\" height=\"1\"/></Image>") ==
                "t.dzi:2: <Size> has no Height attribute; expected Height=\"…\", a height from 1 to 16777216 pixels")
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\">\n<Size Width=\"1\" Height=\"1\"/>\n<Size Width=\"2\" Height=\"2\"/></Image>") ==
                "t.dzi:3: a second <Size> element; expected one")
    }

    // MARK: Values

    @Test func valuesThatAreNotWholeNumbers() {
        func image(_ attributes: String) -> String { "<Image \(attributes)>\n<Size Width=\"10\" Height=\"10\"/></Image>" }
        #expect(refusal(image(#"TileSize="25x" Overlap="1" Format="png""#)) ==
                "t.dzi:1: <Image> TileSize=\"25x\": expected a whole number: a tile side from 1 to 8192 pixels")
        #expect(refusal(image(#"TileSize="" Overlap="1" Format="png""#)) ==
                "t.dzi:1: <Image> TileSize=\"\": expected a whole number: a tile side from 1 to 8192 pixels")
        #expect(refusal(image(#"TileSize="254" Overlap="-1" Format="png""#)) ==
                "t.dzi:1: <Image> Overlap=\"-1\": expected a whole number: an overlap from 0 to 253 pixels, less than TileSize=\"254\"")
        #expect(refusal(image(#"TileSize="254.0" Overlap="1" Format="png""#)) ==
                "t.dzi:1: <Image> TileSize=\"254.0\": expected a whole number: a tile side from 1 to 8192 pixels")
        #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\">\n<Size Width=\"1e6\" Height=\"1\"/></Image>") ==
                "t.dzi:2: <Size> Width=\"1e6\": expected a whole number: a width from 1 to 16777216 pixels")
        // A control character in a value is shown escaped.
        #expect(refusal("<Image TileSize=\"8&#9;x\" Overlap=\"0\" Format=\"png\"><Size Width=\"1\" Height=\"1\"/></Image>") ==
                "t.dzi:1: <Image> TileSize=\"8\\tx\": expected a whole number: a tile side from 1 to 8192 pixels")
    }

    @Test func absurdSizes() {
        func size(_ w: String, _ h: String) -> String {
            "<Image TileSize=\"254\" Overlap=\"1\" Format=\"jpeg\">\n  <Size Width=\"\(w)\" Height=\"\(h)\"/>\n</Image>"
        }
        #expect(refusal(size("1000000000", "1000000000")) ==
                "t.dzi:2: <Size> Width=\"1000000000\": expected a width from 1 to 16777216 pixels")
        #expect(refusal(size("100", "16777217")) ==
                "t.dzi:2: <Size> Height=\"16777217\": expected a height from 1 to 16777216 pixels")
        #expect(refusal(size("0", "100")) == "t.dzi:2: <Size> Width=\"0\": expected a width from 1 to 16777216 pixels")
        // More digits than an Int holds: out of range, not "not a number".
        #expect(refusal(size("99999999999999999999999999", "1")) ==
                "t.dzi:2: <Size> Width=\"99999999999999999999999999\": expected a width from 1 to 16777216 pixels")
        // Each side allowed, the two together not: 2^24 × 2^24 = 2^48 pixels.
        #expect(refusal(size("16777216", "16777216")) ==
                "t.dzi:2: <Size> declares 16777216x16777216 = 281474976710656 pixels, more than the 1099511627776 a pyramid may have")
        #expect(refusal(size("16777216", "65537")) ==
                "t.dzi:2: <Size> declares 16777216x65537 = 1099528404992 pixels, more than the 1099511627776 a pyramid may have")
    }

    @Test func tileSizeAndOverlap() {
        func image(_ tile: String, _ overlap: String) -> String {
            "<Image\n TileSize=\"\(tile)\" Overlap=\"\(overlap)\" Format=\"png\"><Size Width=\"10\" Height=\"10\"/></Image>"
        }
        #expect(refusal(image("0", "0")) == "t.dzi:1: <Image> TileSize=\"0\": expected a tile side from 1 to 8192 pixels")
        #expect(refusal(image("8193", "1")) == "t.dzi:1: <Image> TileSize=\"8193\": expected a tile side from 1 to 8192 pixels")
        #expect(refusal(image("254", "254")) ==
                "t.dzi:1: <Image> Overlap=\"254\": expected an overlap from 0 to 253 pixels, less than TileSize=\"254\"")
        #expect(refusal(image("1", "1")) ==
                "t.dzi:1: <Image> Overlap=\"1\": expected an overlap from 0 to 0 pixels, less than TileSize=\"1\"")
        #expect(throws: Never.self) { try parse(image("1", "0")) }
    }

    @Test func unknownFormat() {
        for format in ["gif", "", "jpeg2000", "png ", "webp2"] {
            #expect(refusal("<Image TileSize=\"8\" Overlap=\"0\" Format=\"\(format)\"><Size Width=\"1\" Height=\"1\"/></Image>") ==
                    "t.dzi:1: <Image> Format=\"\(format)\": expected jpeg, jpg, png or webp")
        }
        // WebP tiles (`vips dzsave --suffix .webp`) are taken, in any case.
        #expect(throws: Never.self) { try parse("<Image TileSize=\"8\" Overlap=\"0\" Format=\"WebP\"><Size Width=\"1\" Height=\"1\"/></Image>") }
    }

    @Test func oversizedFileIsRefusedBeforeParsing() {
        let padding = "<!--" + String(repeating: "x", count: DZIDescriptor.maxFileBytes) + "-->"
        let text = padding + "<Image TileSize=\"8\" Overlap=\"0\" Format=\"png\"><Size Width=\"1\" Height=\"1\"/></Image>"
        #expect(refusal(text) == "t.dzi: the file is \(text.utf8.count) bytes, more than the 65536 accepted")
    }
}
