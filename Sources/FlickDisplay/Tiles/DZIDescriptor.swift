import CExpat

/// A Deep Zoom image descriptor (`.dzi` or `.xml`): the pyramid's geometry and its tiles' format.
///
/// The format is Microsoft's Deep Zoom (namespaces `http://schemas.microsoft.com/deepzoom/2008`
/// and `…/2009`), as `vips dzsave`, deepzoom.py and OpenSeadragon's examples write it:
///
///     <?xml version="1.0" encoding="UTF-8"?>
///     <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
///       Format="jpeg" Overlap="1" TileSize="254">
///       <Size Width="30000" Height="20000"/>
///     </Image>
///
/// Parsing is expat's: any encoding it reads (UTF-8 with or without a BOM, UTF-16), comments,
/// attributes in any order, elements it does not use (`DisplayRects`) skipped. A descriptor never
/// needs a DOCTYPE, so one is refused outright, and with it every entity declaration (no entity
/// expansion can blow up).
public struct DZIDescriptor: Hashable, Sendable {
    /// The pyramid's geometry: `Size`, `TileSize` and `Overlap`.
    public var grid: TileGrid
    /// The tiles' file extension as declared: `jpeg`, `jpg` or `png` (in the file's own case).
    public var format: String

    /// Creates a descriptor.
    public init(grid: TileGrid, format: String) {
        self.grid = grid
        self.format = format
    }

    /// The largest descriptor read, in bytes. Real ones are under 400 bytes.
    public static let maxFileBytes = 64 << 10
    /// The most pixels a declared image may have (2⁴⁰, a million megapixels): beyond any real
    /// pyramid, and far below where sums of tiles and levels could overflow.
    public static let maxPixels = 1 << 40
    /// The formats a tile may have, as `Format` spells them (compared ignoring case).
    public static let formats = ["png", "jpg", "jpeg", "webp"]
    /// The namespaces of the root element accepted, besides none.
    public static let namespaces = ["http://schemas.microsoft.com/deepzoom/2008",
                                    "http://schemas.microsoft.com/deepzoom/2009"]

    /// Whether the tiles are JPEG, and so opaque.
    public var isJPEG: Bool { format.lowercased() != "png" }

    /// Parses a descriptor's bytes.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - path: the file's name, used only in errors.
    /// - Returns: the descriptor, its values checked.
    /// - Throws: `ContentError` naming `path` and, for what is inside the file, its line: XML
    ///   that is not well-formed (expat's message), a missing element or attribute, a value that
    ///   is not a whole number or out of range, an unknown `Format`, a DOCTYPE.
    public static func parse(_ bytes: [UInt8], path: String) throws -> DZIDescriptor {
        if bytes.isEmpty { throw ContentError(path: path, reason: .empty) }
        if bytes.count > maxFileBytes {
            throw ContentError(path: path, reason: .fileTooLarge(bytes: bytes.count, limit: maxFileBytes))
        }
        do throws(DescriptorProblem) {
            return try make(from: DescriptorReader.read(bytes))
        } catch {
            throw ContentError(path: path, reason: error.reason)
        }
    }

    /// Checks the values of `<Image>` and `<Size>` and builds the grid.
    private static func make(from elements: DescriptorReader.Elements) throws(DescriptorProblem) -> DZIDescriptor {
        let image = elements.image
        let tileSize = try image.integer("TileSize", in: 1...8192, expected: "a tile side from 1 to 8192 pixels")
        let overlap = try image.integer("Overlap", in: 0...(tileSize - 1),
                                        expected: "an overlap from 0 to \(tileSize - 1) pixels, less than TileSize=\"\(tileSize)\"")
        let format = try image.attribute("Format", expected: "Format=\"jpeg\", \"jpg\", \"png\" or \"webp\"")
        guard formats.contains(format.lowercased()) else {
            throw DescriptorProblem(.descriptorValue(line: image.line, element: "Image", attribute: "Format",
                                                     value: format, expected: "jpeg, jpg, png or webp"))
        }
        guard let size = elements.size else {
            throw DescriptorProblem(.descriptorStructure(line: image.line, problem:
                "<Image> has no <Size> element; expected <Size Width=\"…\" Height=\"…\"/> inside it"))
        }
        let sides = "from 1 to \(TileGrid.maxSide) pixels"
        let width = try size.integer("Width", in: 1...TileGrid.maxSide, expected: "a width \(sides)")
        let height = try size.integer("Height", in: 1...TileGrid.maxSide, expected: "a height \(sides)")
        guard width * height <= maxPixels else {
            throw DescriptorProblem(.pyramidTooLarge(line: size.line, width: width, height: height, limit: maxPixels))
        }
        guard let grid = TileGrid(width: width, height: height, tileSize: tileSize, overlap: overlap) else {
            // Every value was checked against the grid's own limits above.
            preconditionFailure("TileGrid refused checked values \(width)x\(height), \(tileSize), \(overlap)")
        }
        return DZIDescriptor(grid: grid, format: format)
    }
}

/// Why a descriptor was refused, before the file's path is known to go with it.
struct DescriptorProblem: Error {
    var reason: ContentError.Reason
    init(_ reason: ContentError.Reason) { self.reason = reason }
}

/// One element of a descriptor as expat reported it: where its start tag is and its attributes.
struct DescriptorElement {
    /// The line of the start tag (1-based).
    var line: Int
    /// The local name.
    var name: String
    /// The attributes without a namespace, by name.
    var attributes: [String: String]

    /// An attribute's value.
    func attribute(_ key: String, expected: String) throws(DescriptorProblem) -> String {
        guard let value = attributes[key] else {
            throw DescriptorProblem(.descriptorStructure(line: line, problem: "<\(name)> has no \(key) attribute; expected \(expected)"))
        }
        return value
    }

    /// An attribute holding a whole number within `range`: decimal digits, spaces around allowed.
    func integer(_ key: String, in range: ClosedRange<Int>, expected: String) throws(DescriptorProblem) -> Int {
        let text = try attribute(key, expected: "\(key)=\"…\", \(expected)")
        let digits = Array(text.utf8.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed())
        let isWhole = !digits.isEmpty && digits.allSatisfy { (0x30...0x39).contains($0) }
        // More digits than an Int holds is out of range as surely as any other large number.
        let number = isWhole ? Int(String(decoding: digits, as: UTF8.self)) ?? .max : nil
        guard let number, range.contains(number) else {
            throw DescriptorProblem(.descriptorValue(line: line, element: name, attribute: key, value: text,
                                                     expected: isWhole ? expected : "a whole number: \(expected)"))
        }
        return number
    }
}

/// Reads a descriptor's elements with expat, refusing what no descriptor holds.
///
/// A class because expat's callbacks reach it through a raw pointer; one per parse, never shared.
final class DescriptorReader {
    /// What a descriptor's XML held.
    struct Elements {
        /// The root, `<Image>`.
        var image: DescriptorElement
        /// Its `<Size>` child, if it has one.
        var size: DescriptorElement?
    }

    private let parser: XML_Parser
    private var depth = 0
    private var image: DescriptorElement?
    private var size: DescriptorElement?
    /// Why the handlers stopped the parser, if they did.
    private var failure: ContentError.Reason?

    private init(parser: XML_Parser) {
        self.parser = parser
    }

    /// Parses `bytes` (at most `DZIDescriptor.maxFileBytes`) in one go.
    /// - Throws: `DescriptorProblem`: malformed XML, a DOCTYPE, a root other than `<Image>` in
    ///   a Deep Zoom namespace or none, a second `<Size>`.
    static func read(_ bytes: [UInt8]) throws(DescriptorProblem) -> Elements {
        // "|" separates a namespace from a local name: "http://…/2008|Image".
        guard let parser = XML_ParserCreateNS(nil, CChar(UInt8(ascii: "|"))) else {
            throw DescriptorProblem(.outOfMemory(width: 0, height: 0))
        }
        defer { XML_ParserFree(parser) }
        let reader = DescriptorReader(parser: parser)
        try withExtendedLifetime(reader) { () throws(DescriptorProblem) in
            XML_SetUserData(parser, Unmanaged.passUnretained(reader).toOpaque())
            XML_SetElementHandler(parser, { data, name, attributes in
                guard let data, let name else { return }
                Unmanaged<DescriptorReader>.fromOpaque(data).takeUnretainedValue().start(name, attributes)
            }, { data, _ in
                guard let data else { return }
                Unmanaged<DescriptorReader>.fromOpaque(data).takeUnretainedValue().depth -= 1
            })
            XML_SetStartDoctypeDeclHandler(parser, { data, _, _, _, _ in
                guard let data else { return }
                Unmanaged<DescriptorReader>.fromOpaque(data).takeUnretainedValue()
                    .stop(because: "a DOCTYPE declaration; a Deep Zoom descriptor has none (expected <Image> after the XML declaration)")
            })
            // Unreachable behind the DOCTYPE refusal (entities are declared only inside one); kept
            // so that no entity is ever declared should that handler change.
            XML_SetEntityDeclHandler(parser, { data, _, _, _, _, _, _, _, _ in
                guard let data else { return }
                Unmanaged<DescriptorReader>.fromOpaque(data).takeUnretainedValue()
                    .stop(because: "an entity declaration; a Deep Zoom descriptor has none")
            })
            let status = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32(buffer.count), 1) }
            }
            if let failure = reader.failure { throw DescriptorProblem(failure) }
            if status != XML_STATUS_OK {
                let code = XML_GetErrorCode(parser)
                let message = XML_ErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
                throw DescriptorProblem(.malformedXML(line: Int(XML_GetCurrentLineNumber(parser)),
                                                      column: Int(XML_GetCurrentColumnNumber(parser)) + 1,
                                                      message: message, expected: hint(for: code)))
            }
        }
        // expat refuses a document without a root element, and the root's handler sets `image`.
        guard let image = reader.image else {
            throw DescriptorProblem(.malformedXML(line: 1, column: 1, message: "no element found", expected: hint(for: XML_ERROR_NO_ELEMENTS)))
        }
        return Elements(image: image, size: reader.size)
    }

    /// What a well-formed document would have had where expat stopped, for its common errors.
    private static func hint(for code: XML_Error) -> String? {
        switch code {
        case XML_ERROR_NO_ELEMENTS: "an <Image …> element closed by </Image>"
        case XML_ERROR_TAG_MISMATCH: "the closing tag of the element open there"
        case XML_ERROR_UNCLOSED_TOKEN: "the tag to end with '>' or '/>'"
        case XML_ERROR_JUNK_AFTER_DOC_ELEMENT: "nothing but comments and white space after </Image>"
        case XML_ERROR_UNDEFINED_ENTITY: "only &lt; &gt; &amp; &quot; &apos; and character references"
        case XML_ERROR_UNBOUND_PREFIX: "every prefix declared with xmlns:PREFIX=\"…\""
        case XML_ERROR_DUPLICATE_ATTRIBUTE: "each attribute once"
        case XML_ERROR_INVALID_TOKEN: "a tag, text or comment as XML writes them"
        default: nil
        }
    }

    /// The line expat is at: inside a start handler, the line of the start tag.
    private var line: Int { Int(XML_GetCurrentLineNumber(parser)) }

    private func stop(because problem: String) {
        guard failure == nil else { return }
        failure = .descriptorStructure(line: line, problem: "found \(problem)")
        XML_StopParser(parser, XML_Bool(XML_FALSE))
    }

    private func start(_ qualifiedName: UnsafePointer<XML_Char>, _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
        depth += 1
        guard failure == nil, depth <= 2 else { return }
        let (namespace, name) = Self.split(String(cString: qualifiedName))
        if depth == 1 {
            guard name == "Image" else {
                failure = .descriptorStructure(line: line, problem:
                    "the root element is <\(ContentError.Reason.clip(name))>; expected <Image>, the root of a Deep Zoom descriptor")
                XML_StopParser(parser, XML_Bool(XML_FALSE))
                return
            }
            if let namespace, !DZIDescriptor.namespaces.contains(namespace) {
                failure = .descriptorStructure(line: line, problem:
                    "<Image> is in the namespace \"\(ContentError.Reason.clip(namespace))\"; expected \(DZIDescriptor.namespaces.joined(separator: " or ")), or none")
                XML_StopParser(parser, XML_Bool(XML_FALSE))
                return
            }
            image = DescriptorElement(line: line, name: name, attributes: Self.attributes(attributes))
        } else if name == "Size" {
            guard size == nil else {
                failure = .descriptorStructure(line: line, problem: "a second <Size> element; expected one")
                XML_StopParser(parser, XML_Bool(XML_FALSE))
                return
            }
            size = DescriptorElement(line: line, name: name, attributes: Self.attributes(attributes))
        }
        // Other children (DisplayRects of a sparse image, extensions) say nothing about the grid.
    }

    /// A name as expat reports it with namespace processing: `NAMESPACE|LOCAL` or `LOCAL`.
    private static func split(_ name: String) -> (namespace: String?, local: String) {
        guard let bar = name.lastIndex(of: "|") else { return (nil, name) }
        return (String(name[..<bar]), String(name[name.index(after: bar)...]))
    }

    /// expat's attribute list (name, value, …, NULL); attributes with a namespace are skipped.
    private static func attributes(_ list: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) -> [String: String] {
        var out: [String: String] = [:]
        guard let list else { return out }
        var index = 0
        while let name = list[index], let value = list[index + 1] {
            let key = String(cString: name)
            if !key.contains("|") { out[key] = String(cString: value) }
            index += 2
        }
        return out
    }
}
