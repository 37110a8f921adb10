import CExpat
import CRsvg

/// An SVG's links as expat finds them in its bytes, before librsvg loads them: librsvg draws
/// `<a>` elements but tells nothing about them, yet measures any element by its id
/// (`rsvg_handle_get_geometry_for_layer`). So each `<a>` with an `href` is found here, and one
/// without an `id` gets one written into the bytes librsvg loads (` id="flickd-link-N"` after its
/// name), to be measured when its page's links are first asked for (`SVGLinks.swift`).
///
/// An `<a>` is an element named `a` in the SVG namespace or in none (librsvg takes both), read
/// with expat's namespace processing (librsvg, like expat, refuses a prefix nobody declared). Its
/// link is `href`, or `xlink:href` when it has no plain one (SVG 2, as librsvg reads them). An
/// `<a>` inside a `<text>` is left out: librsvg measures it as its whole text, so two links in
/// one sentence would share one area. A file expat refuses (librsvg is more lenient with some
/// encodings) has no links, and its bytes are loaded as they are.
///
/// Measuring one element costs librsvg a walk past every sibling of each of its ancestors (2.54's
/// `LimitToStack`), so a flat list of 5000 links would take seconds to measure whole. The scan
/// counts that walk for each link and its target (`cost`), and keeps links, in document order,
/// only while their sum stays within `SVGPage.linkBudget`, and at most `SVGPage.linkLimit`.
struct SVGLinkScan {
    /// One `<a>` to measure.
    struct Anchor: Equatable {
        /// The id librsvg finds it by: its own, or the one inserted.
        var id: String
        /// Where it leads, as written.
        var href: String
    }

    /// The links kept, in document order.
    var anchors: [Anchor] = []
    /// How many `<a>` with an `href` the file has, kept or not.
    var found = 0
    /// The ids to write into the bytes: after the `<a` (or `<prefix:a`) at each offset, in order.
    var insertions: [(offset: Int, id: String)] = []

    /// How many links were not kept.
    var leftOut: Int { found - anchors.count }

    /// Scans `bytes`; no links when expat refuses them.
    /// - Parameters:
    ///   - limit: the most links kept.
    ///   - budget: the most sibling visits measuring them may take (see `SVGPage.linkBudget`).
    init(_ bytes: [UInt8], limit: Int, budget: Int) {
        guard let read = SVGLinkReader.read(bytes) else { return }
        found = read.links.count
        let costs = read.costs
        var spent = 0, measuredTargets: Set<String> = [], taken: Set<String> = Set(read.ids.keys), next = 1
        for link in read.links.prefix(limit) {
            guard link.ownID != nil || link.insertAt != nil else { continue }
            var cost = Self.queryCost + costs[link.tracked]
            let target = link.href.first == "#" ? String(link.href.dropFirst()) : nil
            // Each target is measured once; an id nobody has costs nothing (looked up, not drawn).
            if let target, !measuredTargets.contains(target), let element = read.ids[target] {
                cost += Self.queryCost + costs[element]
            }
            guard spent + cost <= budget else { break }
            spent += cost
            if let target { measuredTargets.insert(target) }
            if let id = link.ownID {
                anchors.append(Anchor(id: id, href: link.href))
            } else if let offset = link.insertAt {
                while taken.contains("flickd-link-\(next)") { next += 1 }
                let id = "flickd-link-\(next)"
                taken.insert(id)
                insertions.append((offset, id))
                anchors.append(Anchor(id: id, href: link.href))
            }
        }
    }

    /// What one query costs librsvg besides its walk, in sibling visits: ~15 µs of setting up a
    /// drawing context, at the ~75 ns a visit takes (librsvg 2.54, x86-64).
    static let queryCost = 200

    /// `bytes` with the ids inserted, as the GBytes librsvg reads: one copy, as `g_bytes_new`
    /// makes of the bytes alone.
    func loadable(_ bytes: [UInt8]) -> OpaquePointer {
        guard !insertions.isEmpty else { return bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) } }
        let texts = insertions.map { Array(" id=\"\($0.id)\"".utf8) }
        let total = bytes.count + texts.reduce(0) { $0 + $1.count }
        let out = g_malloc(gsize(total)).assumingMemoryBound(to: UInt8.self)
        var written = 0, read = 0
        bytes.withUnsafeBufferPointer { source in
            for (insertion, text) in zip(insertions, texts) {
                (out + written).update(from: source.baseAddress! + read, count: insertion.offset - read)
                written += insertion.offset - read
                read = insertion.offset
                text.withUnsafeBufferPointer { (out + written).update(from: $0.baseAddress!, count: $0.count) }
                written += text.count
            }
            (out + written).update(from: source.baseAddress! + read, count: bytes.count - read)
        }
        return g_bytes_new_take(UnsafeMutableRawPointer(out), gsize(total))
    }
}

/// Reads an SVG's elements with expat for `SVGLinkScan`: every `<a>` with an `href`, every id,
/// and the walk librsvg makes to measure each of them.
///
/// A class because expat's callbacks reach it through a raw pointer; one per scan, never shared.
final class SVGLinkReader {
    /// An `<a>` found.
    struct Link {
        /// Where it leads, as written: `href`, else `xlink:href`.
        var href: String
        /// Its own id, if it has one no earlier element has.
        var ownID: String?
        /// Where an id can be inserted (after its name), when it has none and the bytes there
        /// are its start tag as written (not an entity's replacement).
        var insertAt: Int?
        /// Its index among the elements whose cost is counted.
        var tracked: Int
    }

    /// An element open while its children are read.
    private struct Frame {
        /// Its element children so far: what measuring anything inside it walks past.
        var children = 0
        /// Its elements, itself included, so far.
        var elements = 1
        /// The first tracked element inside it.
        var firstInside: Int
        /// Its own tracked index, if it is tracked.
        var tracked: Int?
        /// Whether it is a `<text>` or inside one.
        var inText: Bool
    }

    /// The namespace of SVG's elements.
    static let svgNamespace = "http://www.w3.org/2000/svg"
    /// `xlink:href` as expat names it with namespace processing.
    static let xlinkHref = "http://www.w3.org/1999/xlink|href"

    /// The parser whose callbacks these are, for the position of the tag being read.
    private let parser: XML_Parser
    /// The bytes being read (valid only while `read` runs), to find where an id can go.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The elements open, the root first.
    private var stack: [Frame] = []
    /// The tracked elements' costs as differences from the one before: the end of an element
    /// adds its children to every tracked element inside it, a range of consecutive indices.
    private var differences = [0]
    /// The first element with each id, by its tracked index (librsvg finds the first).
    private(set) var ids: [String: Int] = [:]
    /// Every `<a>` with an `href`, in document order.
    private(set) var links: [Link] = []

    private init(parser: XML_Parser, bytes: UnsafeBufferPointer<UInt8>) {
        self.parser = parser
        self.bytes = bytes
    }

    /// Each tracked element's cost: the element children of each of its ancestors, plus its own
    /// elements (measuring it draws them).
    var costs: [Int] {
        var sum = 0
        return differences.map { sum += $0; return sum }
    }

    /// Reads `bytes` in one go; nil when expat refuses them.
    static func read(_ bytes: [UInt8]) -> SVGLinkReader? {
        guard bytes.count < Int(Int32.max), let parser = XML_ParserCreateNS(nil, CChar(UInt8(ascii: "|"))) else { return nil }
        defer { XML_ParserFree(parser) }
        return bytes.withUnsafeBufferPointer { buffer -> SVGLinkReader? in
            let reader = SVGLinkReader(parser: parser, bytes: buffer)
            let status = withExtendedLifetime(reader) { () -> XML_Status in
                XML_SetUserData(parser, Unmanaged.passUnretained(reader).toOpaque())
                XML_SetElementHandler(parser, { data, name, attributes in
                    guard let data, let name else { return }
                    Unmanaged<SVGLinkReader>.fromOpaque(data).takeUnretainedValue().start(name, attributes)
                }, { data, _ in
                    guard let data else { return }
                    Unmanaged<SVGLinkReader>.fromOpaque(data).takeUnretainedValue().end()
                })
                return buffer.withMemoryRebound(to: CChar.self) { XML_Parse(parser, $0.baseAddress, Int32(buffer.count), 1) }
            }
            return status == XML_STATUS_OK ? reader : nil
        }
    }

    /// A start tag: counted as its parent's child, its id and (for an `<a>`) its link noted.
    private func start(_ qualifiedName: UnsafePointer<XML_Char>, _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) {
        if !stack.isEmpty {
            stack[stack.count - 1].children += 1
        }
        let name = String(cString: qualifiedName)
        // With namespace processing expat names an element `NAMESPACE|LOCAL`, or `LOCAL` in none.
        let bar = name.lastIndex(of: "|")
        let isSVG = bar.map { name[..<$0] == Self.svgNamespace } ?? true
        let local = bar.map { String(name[name.index(after: $0)...]) } ?? name
        var id: String?, href: String?, xlink: String?
        var index = 0
        while let attribute = attributes?[index], let value = attributes?[index + 1] {
            switch String(cString: attribute) {
            case "id": id = String(cString: value)
            case "href": href = String(cString: value)
            case Self.xlinkHref: xlink = String(cString: value)
            default: break
            }
            index += 2
        }
        let inText = stack.last?.inText ?? false
        var tracked: Int?
        if let id, ids[id] == nil {
            tracked = track()
            ids[id] = tracked
        }
        if isSVG, local == "a", !inText, let link = href ?? xlink, !link.isEmpty {
            let index = tracked ?? track()
            // An id an earlier element has finds that element; a second id attribute would make
            // the tag malformed: such a link cannot be measured.
            let own = tracked != nil ? id : nil
            tracked = index
            links.append(Link(href: link, ownID: own, insertAt: id == nil ? insertionPoint() : nil, tracked: index))
        }
        stack.append(Frame(firstInside: differences.count - 1, tracked: tracked, inText: inText || (isSVG && local == "text")))
    }

    /// An end tag: the element's children counted for every tracked element inside it, its
    /// elements for itself and its parent.
    private func end() {
        guard let frame = stack.popLast() else { return }
        let after = differences.count - 1
        if frame.firstInside < after {
            differences[frame.firstInside] += frame.children
            differences[after] -= frame.children
        }
        if let own = frame.tracked {
            differences[own] += frame.elements
            differences[own + 1] -= frame.elements
        }
        if !stack.isEmpty {
            stack[stack.count - 1].elements += frame.elements
        }
    }

    /// A new tracked element's index.
    private func track() -> Int {
        differences.append(0)
        return differences.count - 2
    }

    /// Where to insert an id into the start tag expat is reading: after its name, when the bytes
    /// at expat's position are `<a` or `<prefix:a` followed by a blank, `/` or `>`.
    private func insertionPoint() -> Int? {
        let start = Int(XML_GetCurrentByteIndex(parser))
        guard start >= 0, start < bytes.count, bytes[start] == UInt8(ascii: "<") else { return nil }
        var end = start + 1
        while end < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">")].contains(bytes[end]) { end += 1 }
        let raw = bytes[(start + 1)..<end]
        guard end < bytes.count, raw.last == UInt8(ascii: "a"), raw.count == 1 || raw.dropLast().last == UInt8(ascii: ":") else { return nil }
        return end
    }
}
