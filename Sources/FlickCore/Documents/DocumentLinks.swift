/// A link on a document's page, as the document helper found it: an area in the page's points
/// (origin at the page's top-left) and where it goes.
public struct DocumentLink: Hashable, Sendable {
    /// Where a link goes.
    public enum Target: Hashable, Sendable {
        /// A page of the same document (0-based over all its files), at a position in that
        /// page's points when the link fixes one.
        case page(Int, x: Double?, y: Double?)
        /// A URI: never opened by flickd, told to the app.
        case uri(String)
        /// A file outside the document (and its page there, 0-based, when said): never opened.
        case file(String, page: Int?)
        /// An internal link that leads nowhere (a page past the last, a missing destination):
        /// what is wrong, for the journal.
        case missing(String)
    }

    /// The area, in the page's points.
    public var rect: Rect
    /// Where it goes.
    public var target: Target

    public init(rect: Rect, target: Target) {
        self.rect = rect
        self.target = target
    }
}

/// The links of the content on screen, in content coordinates, as taps meet them: a tap on a
/// link follows it instead of reaching the content. Links come a page at a time, as the helper
/// first draws that page (a page not drawn yet is not seen, so none of its links can be tapped).
public struct DocumentLinks: Hashable, Sendable {
    /// A link where it lies in the content.
    public struct Area: Hashable, Sendable {
        /// The page it is on (0-based).
        public var page: Int
        /// Its area, in content coordinates.
        public var rect: Rect
        /// Where it goes.
        public var target: DocumentLink.Target
        /// For a link to a page: the content point to bring to the view's top-left (the page's
        /// corner when paging, or when the link fixes no position).
        public var destination: Point?

        public init(page: Int, rect: Rect, target: DocumentLink.Target, destination: Point?) {
            self.page = page
            self.rect = rect
            self.target = target
            self.destination = destination
        }
    }

    /// One page's paper in the content and its size in points: what turns points into content
    /// coordinates.
    public struct Page: Hashable, Sendable {
        public var frame: Rect
        public var points: Size

        public init(frame: Rect, points: Size) {
            self.frame = frame
            self.points = points
        }
    }

    /// The pages' geometry.
    public let pages: [Page]
    /// Whether the content pages: then a link goes to its page's corner, as `page N` does.
    public let paging: Bool
    /// The areas, in the order they were added; a later one wins where two overlap (the one
    /// drawn on top).
    public private(set) var areas: [Area] = []
    /// The pages whose links were added.
    public private(set) var pagesWithLinks: Set<Int> = []
    /// Changes with every `add`: the pipeline hands the recogniser a new table only then.
    public private(set) var version = 0

    /// The most links one content keeps: a document with more (an SVG of thousands of rooms)
    /// keeps the first, and the helper says so.
    public static let limit = 100_000

    /// No links (content that is not a document, or a document before its pages are drawn).
    public init() {
        pages = []
        paging = false
    }

    /// The table of a document whose pages are `pages`.
    public init(pages: [Page], paging: Bool) {
        self.pages = pages
        self.paging = paging
    }

    /// Adds the links of page `page`, in its points. Links of a page that does not exist, with
    /// no area, or past `limit`, are left out.
    public mutating func add(page: Int, links: [DocumentLink]) {
        guard pages.indices.contains(page) else { return }
        let from = pages[page]
        let sx = from.frame.size.width / from.points.width, sy = from.frame.size.height / from.points.height
        guard sx.isFinite, sy.isFinite, sx > 0, sy > 0 else { return }
        for link in links.prefix(max(0, Self.limit - areas.count)) {
            let r = link.rect
            guard r.size.width > 0, r.size.height > 0 else { continue }
            let rect = Rect(x: from.frame.origin.x + r.origin.x * sx, y: from.frame.origin.y + r.origin.y * sy,
                            width: r.size.width * sx, height: r.size.height * sy)
            areas.append(Area(page: page, rect: rect, target: link.target, destination: destination(of: link.target)))
        }
        pagesWithLinks.insert(page)
        version &+= 1
    }

    /// The link at content point `p`, or within `slop` content units of it (a finger is wider
    /// than a link's underline): the one containing it, else the nearest; nil for none.
    public func hit(_ p: Point, slop: Double) -> Area? {
        var best: (area: Area, distance: Double)?
        for area in areas.reversed() {
            let r = area.rect
            let dx = max(r.origin.x - p.x, 0, p.x - r.maxX), dy = max(r.origin.y - p.y, 0, p.y - r.maxY)
            let distance = (dx * dx + dy * dy).squareRoot()
            if distance == 0 { return area }
            if distance <= slop, distance < best?.distance ?? .infinity { best = (area, distance) }
        }
        return best?.area
    }

    /// Where a link to a page brings the view: the position it fixes on that page, or the
    /// page's corner (always when paging).
    private func destination(of target: DocumentLink.Target) -> Point? {
        guard case let .page(index, x, y) = target, pages.indices.contains(index) else { return nil }
        let to = pages[index]
        guard !paging else { return to.frame.origin }
        let sx = to.frame.size.width / to.points.width, sy = to.frame.size.height / to.points.height
        return Point(x: to.frame.origin.x + (x.map { $0 * sx } ?? 0), y: to.frame.origin.y + (y.map { $0 * sy } ?? 0))
    }
}
